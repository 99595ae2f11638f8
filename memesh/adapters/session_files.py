"""What a host keeps beside a session, read for the hooks: the session transcript (its newest part, bounded, and
only a regular .jsonl file) and the signature of the note folder next to it."""

from __future__ import annotations

import os
from pathlib import Path

from memesh.adapters.regular_files import read_tail
from memesh.core import transcript

MAX_TRANSCRIPT_BYTES = 16 << 20  # the newest 16 MiB: a long session's tail holds its latest replies and calls


def read_session(path: Path) -> transcript.Session | None:
    """The parsed transcript, or None when the path is not a readable regular .jsonl file (a FIFO, a device or a
    symlink to one is never opened for reading: it would block the hook)."""
    if path.suffix != ".jsonl":
        return None
    try:
        data, start = read_tail(path, MAX_TRANSCRIPT_BYTES)
    except OSError:
        return None
    lines = data.decode("utf-8", "replace").splitlines()
    if start:
        lines = lines[1:]  # the first line read from the middle of the file is a fragment
    return transcript.parse(lines)


def folder_signature(directory: Path) -> str | None:
    """The newest modification time in a folder (its own and its entries'): unchanged means nothing to read again;
    None when the folder cannot be read."""
    try:
        times = [directory.stat().st_mtime_ns]
        with os.scandir(directory) as entries:
            times += [entry.stat(follow_symlinks=False).st_mtime_ns for entry in entries]
    except OSError:
        return None
    return str(max(times))
