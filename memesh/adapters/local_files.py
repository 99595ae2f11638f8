"""Files the owner names on the command line, read for an operation (`memesh delegation record`'s envelope and
prompt): bounded reads and digests, nothing written."""

from __future__ import annotations

import hashlib
from pathlib import Path

_READ_CHUNK = 1 << 20


class LocalFiles:
    """Reads of this machine's files; OSError (with the file name) when one cannot be read."""

    def read_at_most(self, path: str, limit: int) -> bytes:
        """The first `limit` bytes of the file (so an oversized one is refused, never loaded whole)."""
        with Path(path).open("rb") as handle:
            return handle.read(limit)

    def sha256_of(self, path: str) -> str:
        """The hex SHA-256 of the whole file, read a chunk at a time."""
        digest = hashlib.sha256()
        with Path(path).open("rb") as handle:
            while chunk := handle.read(_READ_CHUNK):
                digest.update(chunk)
        return digest.hexdigest()
