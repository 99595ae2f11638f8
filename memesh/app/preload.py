"""Everything a server's calls would import or read on first use, done once before the server takes requests.

A CLI command runs one operation, so operations import their code (and read their schema files) on first use. A
server must not: under a storm of connections every descriptor of the process can be held by a socket, and a module
or schema file opened then fails with EMFILE — issue 35 measured 500s from exactly that (1,100 waiting polls at a
1,024-descriptor limit). `memesh serve` calls `preload` in its worker before it answers anything; a test drives every
route afterwards and finds nothing left to import.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterable
from typing import Any

from memesh.app.registry import Op
from memesh.schema import files as schemas

# Imported inside the functions that need them, at call time, by the operations a server runs (found by
# tests/transports/http/test_preload.py, which lists whatever a route still imports after `preload`).
CALL_TIME_MODULES = (
    "encodings.utf_8_sig",  # files read as utf-8-sig
    "getpass",  # the local author's name (getpass.getuser imports pwd when it runs)
    "pwd",
    "memesh.adapters.author",
    "memesh.adapters.claude_settings_file",
    "memesh.adapters.config_file",
    "memesh.adapters.host_config_files",
    "memesh.adapters.plugin_cache",
    "memesh.adapters.project_git",
    "memesh.core.type_hints",
    "memesh.adapters.hook_outcomes",
    "memesh.resident",  # doctor's `daemon` row (and fcntl, which it imports when it reads the lock)
    "fcntl",
    "_sha256",  # project ids (memesh.core.identity)
)


def preload(ops: Iterable[Op[Any, Any, Any]], modules: Iterable[str] = CALL_TIME_MODULES) -> int:
    """Read the schema files of `ops`, import their code and `modules`; returns how many operations were loaded."""
    count = 0
    for op in ops:
        schemas.load(op.input_schema)
        if op.output_schema is not None:
            schemas.load(op.output_schema)
        op.load()
        count += 1
    for name in modules:
        importlib.import_module(name)
    from memesh import records

    records.load_tables()  # a class is made on its first instance, from its module's recorded table
    return count
