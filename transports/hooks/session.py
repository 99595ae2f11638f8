"""Reading the session transcript the host names, bounded and without following it anywhere odd."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from memesh.core import transcript

MAX_TRANSCRIPT_BYTES = 16 << 20  # the newest 16 MiB: a long session's tail holds its latest replies and calls


def read_session(path: Path) -> transcript.Session | None:
    """The parsed transcript, or None when the path is not a readable regular .jsonl file."""
    if path.suffix != ".jsonl":
        return None
    try:
        with path.open("rb") as handle:
            if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
                return None
            size = handle.seek(0, os.SEEK_END)
            start = max(0, size - MAX_TRANSCRIPT_BYTES)
            handle.seek(start)
            data = handle.read()
    except OSError:
        return None
    lines = data.decode("utf-8", "replace").splitlines()
    if start:
        lines = lines[1:]  # the first line read from the middle of the file is a fragment
    return transcript.parse(lines)
