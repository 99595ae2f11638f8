"""The key the dashboard's sign-in cookies are sealed with: `<memesh dir>/session-secret`, 256 random bits, mode 0600,
made on first use. Deleting it signs every browser out (the next sign-in makes a new one)."""

from __future__ import annotations

import contextlib
import secrets
from pathlib import Path

from memesh import paths

SECRET_FILENAME = "session-secret"
SECRET_HEX_CHARS = 64


class SessionSecretError(Exception):
    """The secret could not be read or made; the message says where, never what it holds."""


def secret_path() -> Path:
    return paths.memesh_dir() / SECRET_FILENAME


def session_secret() -> bytes:
    """The sealing key, read from its file or made (linked into place whole, so two servers starting together read
    the same key, never a half-written one)."""
    path = secret_path()
    try:
        paths.ensure_private_dir(path.parent)
        return _create(path)
    except FileExistsError:
        return _read(path)
    except OSError as exc:
        raise SessionSecretError(f"cannot write {path}: {exc.strerror or exc}") from exc


def _create(path: Path) -> bytes:
    value = secrets.token_hex(SECRET_HEX_CHARS // 2)
    paths.write_new_secret(path, value)
    return bytes.fromhex(value)


def _read(path: Path) -> bytes:
    with contextlib.suppress(OSError):  # a key others can read seals nothing: kept at mode 600
        path.chmod(0o600)
    try:
        text = path.read_text(encoding="ascii").strip()
        value = bytes.fromhex(text)
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise SessionSecretError(f"cannot read {path}: delete it and sign in again") from exc
    if len(value) < SECRET_HEX_CHARS // 2:
        raise SessionSecretError(f"{path} is too short: delete it and sign in again")
    return value
