"""Interoperation with the official VibeSearchBench harness: import of its trajectory files."""

from .official_trajectories import ImportFileError, ImportResult, import_trajectory, read_extraction, read_trajectory

__all__ = ["ImportFileError", "ImportResult", "import_trajectory", "read_extraction", "read_trajectory"]
