"""What a task id may look like (persona tasks, table tasks and WideSearch instances alike)."""

from __future__ import annotations

MAX_ID_CHARS = 200  # task ids name runs, files and URLs: keep them short
ID_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9_.\-]*$"  # letters, digits, '_', '.' and '-'
