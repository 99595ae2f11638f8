"""tools/plugin_payload.py, loaded once for the tests that build a payload or copy the package's sources (tools/ is
a folder of scripts, not an installed package)."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parent.parent


def _load() -> ModuleType:
    spec = importlib.util.spec_from_file_location("memesh_plugin_payload", ROOT / "tools" / "plugin_payload.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


plugin_payload = _load()
