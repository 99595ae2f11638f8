"""How many descriptors of this test process are open on a file (Linux: through /proc/self/fd)."""

from __future__ import annotations

from pathlib import Path

import pytest

FD_FOLDER = Path("/proc/self/fd")
needs_proc = pytest.mark.skipif(not FD_FOLDER.is_dir(), reason="counts descriptors through /proc")


def open_to(path: Path) -> int:
    count = 0
    for fd in FD_FOLDER.iterdir():
        try:
            if fd.readlink() == path:
                count += 1
        except OSError:
            continue
    return count
