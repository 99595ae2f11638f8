"""The schema files, read once per process from the package (they ship in the wheel as memesh/schemas/)."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any


def _schema_dir() -> Path:
    """Where `memesh.schemas` lives: beside this package in a wheel or a strict editable install (not resolve():
    there this file is a link), else wherever the import system maps it (a plain `pip install -e .` maps
    memesh.schemas onto the checkout's schemas/ folder)."""
    beside = Path(__file__).parent.parent / "schemas"
    if beside.is_dir():
        return beside
    import importlib.util

    spec = importlib.util.find_spec("memesh.schemas")
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
