"""The HTTP transport, and the CLI commands that reach the same operations (config, dream, demo/feedback, briefing,
setup, why, doctor), reach `memesh/ops`, the adapters and the store only through the door: none of their modules
imports them. (tests/test_layers.py states the rule for every transport once each is converted.)"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.test_layers import ROOT, _imports

BELOW_THE_DOOR = ("memesh.ops", "memesh.adapters", "memesh.store")
THROUGH_THE_DOOR = [
    *sorted((ROOT / "transports" / "http").rglob("*.py")),
    *(ROOT / "transports" / "cli" / part / f"{name}.py" for part in ("commands", "actions") for name in (
        "config", "dream", "insight", "session"
    )),
]  # fmt: skip


@pytest.mark.parametrize("path", THROUGH_THE_DOOR, ids=lambda path: str(path.relative_to(ROOT)))
def test_the_module_imports_no_operation_adapter_or_store(path: Path) -> None:
    assert [name for name in sorted(_imports(path)) if name.startswith(BELOW_THE_DOOR)] == []
