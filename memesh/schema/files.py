"""The schema files, read once per process from the package (they ship in the wheel as memesh/schemas/)."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any


def _schema_dir() -> Path:
    """Where `memesh.schemas` lives, for each way memesh can be installed.

    A wheel or a strict editable install: beside this package (not resolve(): in the strict tree this file is a
    link). A plain `pip install -e .`: the checkout's schemas/ folder, beside the memesh/ source folder this file
    runs from. setuptools maps memesh.schemas there with an import hook, but that hook finds a folder without
    __init__.py only below a namespace package, and memesh is a regular one, so the import system cannot be asked.
    """
    here = Path(__file__).parent.parent
    for candidate in (here / "schemas", here.resolve().parent / "schemas"):
        if (candidate / "tools").is_dir():
            return candidate
    import importlib.util  # any other layout that maps the package: ask the import system

    try:
        spec = importlib.util.find_spec("memesh.schemas")
    except ImportError:
        spec = None
    locations = list(spec.submodule_search_locations or []) if spec is not None else []
    if not locations:
        raise FileNotFoundError("the memesh.schemas package data is not installed")
    return Path(locations[0])


SCHEMA_DIR = _schema_dir()


@cache
def load(name: str) -> dict[str, Any]:
    """The schema `schemas/<name>.json` (e.g. `tools/remember.input`), exactly as written."""
    with (SCHEMA_DIR / f"{name}.json").open(encoding="utf-8") as handle:
        schema: dict[str, Any] = json.load(handle)
    return schema


def description(name: str) -> str:
    """A schema's top-level description: for a tool's input schema, the tool's description."""
    return str(load(name).get("description", ""))
