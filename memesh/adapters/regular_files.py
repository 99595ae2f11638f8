"""Reads of a file someone else named (a hook's transcript_path, a note beside it) that can never block: only a
regular file is opened, and every read is bounded.

A FIFO opened for reading waits for a writer, a device may never end (/dev/zero) or wait for input (a terminal),
and a symlink can point at either. So the type is checked before the open (no side effect of opening a device),
the open itself does not wait (O_NONBLOCK, no controlling terminal), and the descriptor is checked again (the path
may have been swapped in between). OSError for anything that is not a readable regular file.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

_FLAGS = os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC


def _not_regular(path: Path) -> OSError:
    return OSError(errno.EINVAL, "not a regular file", str(path))


def open_regular(path: Path) -> int:
    """A read-only descriptor of `path`, a regular file (a symlink to one is followed); OSError otherwise."""
    if not stat.S_ISREG(path.stat().st_mode):
        raise _not_regular(path)
    fd = os.open(path, _FLAGS)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise _not_regular(path)
    except BaseException:
        os.close(fd)
        raise
    return fd


def _read_exactly(fd: int, size: int) -> bytes:
    chunks: list[bytes] = []
    while size > 0 and (chunk := os.read(fd, min(size, 1 << 20))):
        chunks.append(chunk)
        size -= len(chunk)
    return b"".join(chunks)


def read_tail(path: Path, limit: int) -> tuple[bytes, int]:
    """The newest `limit` bytes of the regular file at `path` (at most what it held when opened) and the offset
    they start at; OSError when it is not a readable regular file."""
    fd = open_regular(path)
    try:
        size = os.fstat(fd).st_size
        start = max(0, size - limit)
        os.lseek(fd, start, os.SEEK_SET)
        return _read_exactly(fd, size - start), start
    finally:
        os.close(fd)


def read_at_most(path: Path, limit: int) -> bytes:
    """The regular file's bytes; OSError (EFBIG) when it holds more than `limit`, or it is not a readable regular
    file."""
    fd = open_regular(path)
    try:
        data = _read_exactly(fd, limit + 1)
    finally:
        os.close(fd)
    if len(data) > limit:
        raise OSError(errno.EFBIG, f"larger than {limit} bytes", str(path))
    return data
