"""The bearer token a remote listener requires: from MEMESH_REMOTE_TOKEN, else `<memesh dir>/remote-token`.

It must exist before the server listens, so there is never a moment a remote listener answers without auth.
"""

from __future__ import annotations

import contextlib
import os
import secrets
from dataclasses import field
from pathlib import Path

from memesh import paths
from memesh.records import dataclass

TOKEN_ENV = "MEMESH_REMOTE_TOKEN"
TOKEN_FILENAME = "remote-token"
MIN_TOKEN_CHARS = 16


class TokenError(Exception):
    """The token could not be provided; the message says what to do, and never contains the token."""


@dataclass(frozen=True)
class Token:
    """The token, where it came from (the env var name or the file path), and whether it was just created."""

    value: str = field(repr=False)  # kept out of tracebacks and logs
    source: str
    created: bool = False


def token_path() -> Path:
    return paths.memesh_dir() / TOKEN_FILENAME


def provision() -> Token:
    """MEMESH_REMOTE_TOKEN when it has 16+ characters; else the token file, created (mode 0600) if missing."""
    configured = os.environ.get(TOKEN_ENV, "").strip()
    if len(configured) >= MIN_TOKEN_CHARS:
        return Token(configured, TOKEN_ENV)
    path = token_path()
    try:
        paths.ensure_private_dir(path.parent)
        return _create(path)
    except FileExistsError:
        return _read(path)
    except OSError as exc:
        raise TokenError(f"cannot write {path}: {exc.strerror or exc}") from exc


def _create(path: Path) -> Token:
    """A new token at `path` (paths.write_new_secret: whole or not at all; FileExistsError when it exists)."""
    value = secrets.token_hex(32)
    paths.write_new_secret(path, value)
    return Token(value, str(path), created=True)


def _read(path: Path) -> Token:
    with contextlib.suppress(OSError):  # a token others can read is no secret: the file is kept at mode 600
        path.chmod(0o600)
    try:
        value = path.read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError) as exc:
        raise TokenError(f"cannot read {path}: {exc}") from exc
    if len(value) < MIN_TOKEN_CHARS:
        raise TokenError(
            f"Existing {path} is too short (<{MIN_TOKEN_CHARS} chars). Delete it and restart memesh serve to "
            "regenerate."
        )
    return Token(value, str(path))
