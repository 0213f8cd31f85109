"""Interoperation with the official VibeSearchBench harness: import of its trajectory files."""

from .official_trajectories import (
    ImportFileError,
    ImportResult,
    import_trajectory,
    prepare_import,
    read_extraction,
    read_trajectory,
    store_imports,
)

__all__ = ["ImportFileError", "ImportResult", "import_trajectory", "prepare_import", "read_extraction", "read_trajectory", "store_imports"]
