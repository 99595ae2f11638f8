"""Dependencies point one way (docs/ARCHITECTURE.md): each layer's imports, read from the source, prove it."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

# layer folder → module prefixes it must never import
FORBIDDEN: dict[str, tuple[str, ...]] = {
    "memesh/core": ("memesh.app", "memesh.ops", "memesh.store", "memesh.adapters", "memesh.transports"),
    "memesh/ops": ("memesh.app", "memesh.transports"),
    "memesh/store": ("memesh.app", "memesh.ops", "memesh.transports"),
    "memesh/adapters": ("memesh.app", "memesh.ops", "memesh.transports"),
    "memesh/schema": ("memesh.app", "memesh.ops", "memesh.store", "memesh.transports"),
    "transports": ("memesh.store",),
}


def _imports(path: Path) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
    return found


@pytest.mark.parametrize("layer", sorted(FORBIDDEN))
def test_no_module_of_a_layer_imports_a_layer_above_it(layer: str) -> None:
    offenders = [
        f"{path.relative_to(ROOT)} imports {name}"
        for path in sorted((ROOT / layer).rglob("*.py"))
        for name in sorted(_imports(path))
        if name.startswith(FORBIDDEN[layer])
    ]
    assert offenders == []
