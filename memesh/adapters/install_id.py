"""The anonymous local install ID: a random UUID kept in `<memesh dir>/install-id` (0600), made on first use.

It identifies this installation in a feedback report and nothing else: it is derived from nothing on the machine.
"""

from __future__ import annotations

import os
import re
import uuid

from memesh import paths

FILENAME = "install-id"
_VALID = re.compile(r"^[0-9a-f]{32}$")


def install_id() -> str:
    """This installation's ID, created now if there is none (or the file holds something else); 'unavailable' when
    the MeMesh folder cannot be written."""
    path = paths.memesh_dir() / FILENAME
    try:
        current = path.read_text(encoding="ascii").strip()
    except (OSError, UnicodeDecodeError):
        current = ""
    if _VALID.match(current):
        return current
    fresh = uuid.uuid4().hex
    try:
        paths.ensure_private_dir(path.parent)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="ascii") as handle:
            handle.write(fresh + "\n")
    except OSError:
        return "unavailable"
    return fresh
