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
    """The schema `schemas/<name>.json` (e.g. `tools/remember.input`) as written, except that a `$ref` into another
    file of its folder (`common.json#/$defs/host`: the hook inputs share their definitions) is replaced by what it
    names, so every reader (the gate's validator, jsonschema in tests, the CLI's schema export) gets one
    self-contained document."""
    with (SCHEMA_DIR / f"{name}.json").open(encoding="utf-8") as handle:
        text = handle.read()
    if ".json#" not in text:  # most schemas refer to no other file: no hook on the parse
        schema: dict[str, Any] = json.loads(text)
        return schema
    folder = name.rpartition("/")[0]
    inlined: dict[str, Any] = json.loads(text, object_hook=lambda node: _inlined(node, folder))
    return inlined


def _inlined(node: dict[str, Any], folder: str) -> dict[str, Any]:
    """`node`, or what its `$ref` names in another file of `folder` (annotations beside the `$ref` kept)."""
    ref = node.get("$ref")
    if not isinstance(ref, str) or ref.startswith("#"):
        return node
    file, _, pointer = ref.partition("#")
    shared = load(f"{folder}/{file.removesuffix('.json')}" if folder else file.removesuffix(".json"))
    target: Any = shared
    for part in pointer.strip("/").split("/") if pointer.strip("/") else ():
        target = target[part.replace("~1", "/").replace("~0", "~")]
    # A shared definition refers to nothing itself (tests/test_validation.py): a local `$ref` in it would name the
    # wrong document once copied here.
    beside = {key: value for key, value in node.items() if key != "$ref"}
    return {**target, **beside} if beside else target


def description(name: str) -> str:
    """A schema's top-level description: for a tool's input schema, the tool's description."""
    return str(load(name).get("description", ""))
