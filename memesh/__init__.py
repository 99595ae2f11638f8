"""MeMesh: local-first memory for AI coding agents.

`from memesh import MEMORY_TOOL_DEFINITION, handle_memory_command` gives the Anthropic memory tool
(`memory_20250818`) backed by MeMesh. Both load on first use, so `import memesh` stays cheap.
"""

from __future__ import annotations

# Not `from typing import TYPE_CHECKING`: every hook and CLI process imports this package first, and `typing`
# costs ~17 ms there (the hooks' start-up is measured in tens of ms). mypy reads a bare TYPE_CHECKING name as true.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from memesh.app.memory_tool import MEMORY_TOOL_DEFINITION, handle_memory_command

__version__ = "0.1.0"
# The upstream API reference this implementation follows.
SPEC_VERSION = "4.10.11"

__all__ = ["MEMORY_TOOL_DEFINITION", "SPEC_VERSION", "__version__", "handle_memory_command"]
_LAZY = frozenset({"MEMORY_TOOL_DEFINITION", "handle_memory_command"})


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        from memesh.app import memory_tool

        return getattr(memory_tool, name)
    raise AttributeError(f"module 'memesh' has no attribute {name!r}")
