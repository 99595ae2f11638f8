"""The schema files, read once per process from the package (they ship in the wheel as memesh/schemas/)."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

# Not resolve(): in an editable install this file is a link, and the schemas sit beside the link.
SCHEMA_DIR = Path(__file__).parent / "schemas"


@cache
def load(name: str) -> dict[str, Any]:
    """The schema `schemas/<name>.json` (e.g. `tools/remember.input`), exactly as written."""
    with (SCHEMA_DIR / f"{name}.json").open(encoding="utf-8") as handle:
        schema: dict[str, Any] = json.load(handle)
    return schema


def description(name: str) -> str:
    """A schema's top-level description: for a tool's input schema, the tool's description."""
    return str(load(name).get("description", ""))
