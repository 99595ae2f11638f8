"""Dependencies point one way (docs/ARCHITECTURE.md): each layer's imports, read from the source, prove it.

    transports → app → ops → core → values floor
                  ↘ store, adapters (reached by ops only through protocols; built by app/resources.py)

An import counts wherever it stands: at the top, inside a function (the lazy imports that keep start-up light) or
under TYPE_CHECKING, since each is a dependency all the same.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

# The values floor: plain values (and memesh.records, the dataclass decorator they are made with; memesh.settings, the
# process's settings value, with memesh.jsontext, the JSON reader config.json is read with) every layer may import.
# It may use only itself and memesh.schema (the schema files read once, and the facts they state), which imports
# nothing of MeMesh but itself.
FLOOR = (
    "memesh/errors.py",
    "memesh/context.py",
    "memesh/model.py",
    "memesh/paths.py",
    "memesh/values.py",
    "memesh/records.py",
    "memesh/settings.py",
    "memesh/jsontext.py",
)
FLOOR_MAY_IMPORT = (
    "memesh.errors",
    "memesh.context",
    "memesh.model",
    "memesh.paths",
    "memesh.values",
    "memesh.records",
    "memesh.settings",
    "memesh.jsontext",
    "memesh.schema",
)

# layer folder → module prefixes it must never import
FORBIDDEN: dict[str, tuple[str, ...]] = {
    "transports": ("memesh.ops", "memesh.adapters", "memesh.store"),
    "memesh/app": ("memesh.transports",),
    "memesh/ops": ("memesh.app", "memesh.transports", "memesh.store", "memesh.adapters"),
    "memesh/core": ("memesh.app", "memesh.ops", "memesh.store", "memesh.adapters", "memesh.transports"),
    "memesh/store": ("memesh.app", "memesh.ops", "memesh.adapters", "memesh.transports"),
    "memesh/adapters": ("memesh.app", "memesh.ops", "memesh.store", "memesh.transports"),
    # The hosts: pure data and two functions each, read by the hook runner before anything else.
    "memesh/hosts": (
        "memesh.app",
        "memesh.ops",
        "memesh.core",
        "memesh.store",
        "memesh.adapters",
        "memesh.transports",
        "memesh.schema",
        "memesh.errors",
        "memesh.context",
    ),
    "memesh/schema": (
        "memesh.app",
        "memesh.ops",
        "memesh.core",
        "memesh.store",
        "memesh.adapters",
        "memesh.transports",
    ),
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


def _offenders(layer: str) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for path in sorted((ROOT / layer).rglob("*.py")):
        names = sorted(name for name in _imports(path) if name.startswith(FORBIDDEN[layer]))
        if names:
            found[path.relative_to(ROOT).as_posix()] = names
    return found


@pytest.mark.parametrize("layer", sorted(FORBIDDEN))
def test_no_module_of_a_layer_imports_a_layer_above_it(layer: str) -> None:
    assert _offenders(layer) == {}


def test_the_values_floor_imports_nothing_above_it() -> None:
    offenders = {
        module: sorted(
            name
            for name in _imports(ROOT / module)
            if name.startswith("memesh.") and not name.startswith(FLOOR_MAY_IMPORT)
        )
        for module in FLOOR
    }
    assert {module: names for module, names in offenders.items() if names} == {}


def test_no_module_is_left_where_the_router_used_to_live() -> None:
    assert not (ROOT / "memesh" / "router").exists()  # the router is transports/router; its clients are adapters


def test_the_hook_outcome_records_are_an_adapter_under_the_layer_rules() -> None:
    assert not (ROOT / "memesh" / "hook_outcomes.py").exists()  # memesh/adapters/hook_outcomes.py
    assert (ROOT / "memesh" / "adapters" / "hook_outcomes.py").exists()


def test_the_composition_root_and_the_hook_resources_do_not_import_each_other() -> None:
    # Resources reaches HookResources only through its hook factory; HookResources names no part of Resources.
    resources = _imports(ROOT / "memesh" / "app" / "resources.py")
    hooks = _imports(ROOT / "memesh" / "app" / "hook_resources.py")
    assert not {name for name in resources if name.startswith("memesh.app.hook_resources")}
    assert not {name for name in hooks if name.startswith(("memesh.app.resources", "memesh.app.resource_core"))}
    assert not {name for name in hooks if name.startswith(("memesh.app.hook_factory", "memesh.app.install_factory"))}
