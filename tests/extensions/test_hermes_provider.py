"""The Hermes Agent plugin against Hermes's MemoryProvider contract, loaded the way Hermes loads a user plugin.

The `hermes-agent` package is not a test dependency (it pins a whole agent runtime, pydantic and rich among it, at
versions that conflict with ours), so `agent.memory_provider` is a stand-in written from Hermes Agent's interface:
the same abstract members (name, is_available, initialize, get_tool_schemas) and the optional hooks with the same
signatures, concrete no-ops as in Hermes. The plugin was also loaded once against the real module from the
hermes-agent 0.19.0 wheel (it imports only the standard library): registered, instantiated, every override's
signature accepting the base's. The plugin then runs the real `memesh` command.
"""

from __future__ import annotations

import importlib.util
import inspect
import json
import sys
import time
import types
from abc import ABC, abstractmethod
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

PLUGIN_DIR = Path(__file__).resolve().parents[2] / "extensions" / "hermes-memesh"
MEMESH_BIN = Path(sys.executable).parent / "memesh"


class MemoryProvider(ABC):
    """Hermes Agent's `agent.memory_provider.MemoryProvider`, as its documentation defines it."""

    @property
    @abstractmethod
    def name(self) -> str: ...

    @abstractmethod
    def is_available(self) -> bool: ...

    @abstractmethod
    def initialize(self, session_id: str, **kwargs: Any) -> None: ...

    def system_prompt_block(self) -> str:
        return ""

    def prefetch(self, query: str, *, session_id: str = "") -> str:
        return ""

    def queue_prefetch(self, query: str, *, session_id: str = "") -> None:
        return None

    def sync_turn(
        self,
        user_content: str,
        assistant_content: str,
        *,
        session_id: str = "",
        messages: list[dict[str, Any]] | None = None,
    ) -> None:
        return None

    @abstractmethod
    def get_tool_schemas(self) -> list[dict[str, Any]]: ...

    def handle_tool_call(self, tool_name: str, args: dict[str, Any], **kwargs: Any) -> str:
        raise NotImplementedError(tool_name)

    def shutdown(self) -> None:
        return None

    def on_turn_start(self, turn_number: int, message: str, **kwargs: Any) -> None:
        return None

    def on_session_end(self, messages: list[dict[str, Any]]) -> None:
        return None

    def on_session_switch(
        self,
        new_session_id: str,
        *,
        parent_session_id: str = "",
        reset: bool = False,
        rewound: bool = False,
        **kwargs: Any,
    ) -> None:
        return None

    def on_pre_compress(self, messages: list[dict[str, Any]]) -> str:
        return ""

    def on_delegation(self, task: str, result: str, *, child_session_id: str = "", **kwargs: Any) -> None:
        return None

    def unavailable_reason(self) -> str:
        return ""

    def backup_paths(self) -> list[str]:
        return []


# How Hermes calls each hook (run_agent.py / MemoryManager), to check the plugin's overrides accept those calls.
HERMES_CALLS: dict[str, tuple[tuple[Any, ...], dict[str, Any]]] = {
    "initialize": (("sid",), {"hermes_home": "/h", "platform": "cli", "agent_context": "primary"}),
    "system_prompt_block": ((), {}),
    "prefetch": (("query",), {"session_id": "s"}),
    "queue_prefetch": (("query",), {"session_id": "s"}),
    "backup_paths": ((), {}),
    "sync_turn": (("u", "a"), {"session_id": "s", "messages": []}),
    "get_tool_schemas": ((), {}),
    "shutdown": ((), {}),
    "on_session_end": (([],), {}),
    "on_session_switch": (("new",), {"parent_session_id": "old", "reset": True, "rewound": False}),
    "on_pre_compress": (([],), {}),
    "unavailable_reason": ((), {}),
}


class Collector:
    """The plugin context Hermes hands `register(ctx)`: it keeps the provider registered."""

    def __init__(self) -> None:
        self.provider: Any = None

    def register_memory_provider(self, provider: Any) -> None:
        self.provider = provider


@pytest.fixture
def plugin(monkeypatch: pytest.MonkeyPatch) -> Iterator[types.ModuleType]:
    agent = types.ModuleType("agent")
    contract = types.ModuleType("agent.memory_provider")
    contract.MemoryProvider = MemoryProvider  # type: ignore[attr-defined]
    agent.memory_provider = contract  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "agent", agent)
    monkeypatch.setitem(sys.modules, "agent.memory_provider", contract)
    # As Hermes loads $HERMES_HOME/plugins/<name>/: a package under its own synthetic namespace.
    spec = importlib.util.spec_from_file_location(
        "_hermes_user_memory.memesh", PLUGIN_DIR / "__init__.py", submodule_search_locations=[str(PLUGIN_DIR)]
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, spec.name, module)
    spec.loader.exec_module(module)
    yield module


@pytest.fixture
def provider(plugin: types.ModuleType, memesh_env: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    monkeypatch.setenv("MEMESH_BIN", str(MEMESH_BIN))
    # The plugin skips a recall slower than 3 s rather than hold up a turn; on a loaded test machine a whole
    # `memesh` process can take that long, and these tests are about what is recalled, not how fast.
    monkeypatch.setattr(plugin, "RECALL_TIMEOUT_SECONDS", 60.0)
    collector = Collector()
    plugin.register(collector)
    collector.provider.initialize("sess-1", hermes_home="/h", platform="cli", agent_context="primary")
    yield collector.provider
    collector.provider.shutdown()


def test_the_folder_is_one_hermes_discovers_as_the_memesh_provider() -> None:
    source = (PLUGIN_DIR / "__init__.py").read_text()
    assert "register_memory_provider" in source[:8192] or "MemoryProvider" in source[:8192]
    manifest = (PLUGIN_DIR / "plugin.yaml").read_text()
    assert "name: memesh" in manifest


def test_register_gives_an_instantiated_provider_named_memesh(plugin: types.ModuleType) -> None:
    collector = Collector()
    plugin.register(collector)
    assert isinstance(collector.provider, MemoryProvider)
    assert collector.provider.name == "memesh"
    assert collector.provider.get_tool_schemas() == []


def test_every_override_accepts_the_call_hermes_makes(plugin: types.ModuleType) -> None:
    provider_class = plugin.MemeshMemoryProvider
    for method, (args, kwargs) in HERMES_CALLS.items():
        if method in vars(provider_class):
            inspect.signature(getattr(provider_class, method)).bind(None, *args, **kwargs)


def test_unavailable_without_the_memesh_command(plugin: types.ModuleType, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEMESH_BIN", "/nonexistent/memesh")
    provider = plugin.MemeshMemoryProvider()
    assert provider.is_available() is False and "memesh" in provider.unavailable_reason()


def _recalled(provider: Any, query: str, session: str = "sess-1") -> str:
    """What the next turn's prefetch gives after Hermes queued `query`: shutdown() lets the queued recall finish."""
    provider.queue_prefetch(query, session_id=session)
    provider.shutdown()
    answer: str = provider.prefetch(query, session_id=session)
    provider.initialize(session, hermes_home="/h", platform="cli", agent_context="primary")
    return answer


def test_a_decision_turn_is_captured_and_recalled_before_the_next_turn(provider: Any) -> None:
    assert provider.is_available()
    provider.sync_turn("which queue?", "We decided to use Redis streams.", session_id="sess-1")
    provider.sync_turn("thanks", "You're welcome.", session_id="sess-1")
    provider.shutdown()  # waits for the queued captures
    provider.initialize("sess-1", hermes_home="/h", platform="cli", agent_context="primary")
    context = _recalled(provider, "Redis streams")
    assert context.startswith("[MeMesh recall]") and "We decided to use Redis streams." in context
    assert "welcome" not in context


def test_session_end_stores_the_session_insights(provider: Any, memesh_env: Path) -> None:
    call = {"function": {"name": "write_file", "arguments": json.dumps({"path": "src/app.py"})}}
    messages = [{"role": "assistant", "tool_calls": [call, call, call]}]
    provider.on_session_end(messages)
    assert "session-sess-1-files" in _recalled(provider, "edited file app.py")
    assert provider.on_pre_compress(messages) != ""


def test_a_subagent_writes_nothing(plugin: types.ModuleType, memesh_env: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEMESH_BIN", str(MEMESH_BIN))
    provider = plugin.MemeshMemoryProvider()
    provider.initialize("child", hermes_home="/h", platform="cli", agent_context="subagent")
    provider.sync_turn("q", "We decided to use X.")
    provider.on_session_end([{"role": "assistant", "tool_calls": []}])
    provider.shutdown()
    provider.initialize("child", hermes_home="/h", platform="cli", agent_context="subagent")
    assert _recalled(provider, "decided use X", session="child") == ""


def test_prefetch_answers_at_once_while_the_recall_runs_in_the_background(
    plugin: types.ModuleType, memesh_env: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    slow = tmp_path / "slow-memesh"
    answer = json.dumps({"context": "[MeMesh recall]\n- cached"})
    slow.write_text(f"#!/bin/sh\nsleep 3\nprintf '%s\\n' '{answer}'\n", encoding="utf-8")
    slow.chmod(0o755)
    monkeypatch.setenv("MEMESH_BIN", str(slow))
    provider = plugin.MemeshMemoryProvider()
    provider.initialize("s", hermes_home="/h", platform="cli", agent_context="primary")
    started = time.monotonic()
    provider.queue_prefetch("what did we decide?", session_id="s")
    first = provider.prefetch("what did we decide?", session_id="s")
    assert time.monotonic() - started < 1.0 and first == ""
    provider.shutdown()  # the queued recall finishes
    assert provider.prefetch("next question", session_id="s") == "[MeMesh recall]\n- cached"
    assert provider.prefetch("and the next", session_id="s") == ""  # each answer is given once


@pytest.mark.one_engine("the recall answers come from a stand-in memesh: no store is read")
@pytest.mark.parametrize("flag", ["reset", "rewound"])
def test_a_reset_drops_the_recall_made_for_the_conversation_before(
    plugin: types.ModuleType, memesh_env: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, flag: str
) -> None:
    slow = tmp_path / "slow-memesh"
    answer = json.dumps({"context": "[MeMesh recall]\n- from the conversation before"})
    slow.write_text(f"#!/bin/sh\nsleep 1\nprintf '%s\\n' '{answer}'\n", encoding="utf-8")
    slow.chmod(0o755)
    monkeypatch.setenv("MEMESH_BIN", str(slow))
    provider = plugin.MemeshMemoryProvider()
    provider.initialize("s", hermes_home="/h", platform="cli", agent_context="primary")
    provider.queue_prefetch("what did we decide?", session_id="s")
    provider.shutdown()  # that recall has answered: it waits for the next turn of "s"
    provider.initialize("s", hermes_home="/h", platform="cli", agent_context="primary")
    provider.queue_prefetch("and then?", session_id="s")  # this one is still running at the switch
    provider.on_session_switch("s", parent_session_id="s", **{flag: True})
    provider.shutdown()
    assert provider.prefetch("a new question", session_id="s") == ""
    # Without the flag (/resume, /branch, compression) the conversation goes on: its recall is kept.
    provider.initialize("s", hermes_home="/h", platform="cli", agent_context="primary")
    provider.queue_prefetch("what did we decide?", session_id="s")
    provider.on_session_switch("s", parent_session_id="s")
    provider.shutdown()
    assert provider.prefetch("next", session_id="s") == "[MeMesh recall]\n- from the conversation before"


def test_backup_paths_name_the_database_its_log_and_the_config(
    plugin: types.ModuleType, memesh_env: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = memesh_env.parent
    folder.mkdir(parents=True, exist_ok=True)
    database = folder / "store.db"
    for path in (database, folder / "store.db-wal", folder / "config.json"):
        path.write_text("x")
    monkeypatch.setenv("MEMESH_DIR", str(folder))
    monkeypatch.setenv("MEMESH_DB_PATH", str(database))
    assert plugin.MemeshMemoryProvider().backup_paths() == [
        str(database),
        str(folder / "store.db-wal"),
        str(folder / "config.json"),
    ]
    (folder / "store.db-wal").unlink()
    assert plugin.MemeshMemoryProvider().backup_paths() == [str(database), str(folder / "config.json")]


def test_a_session_id_hermes_may_use_is_made_acceptable(plugin: types.ModuleType) -> None:
    assert plugin.session_arg("2026/01/01 12:00") == "2026-01-01-12:00"
    assert plugin.session_arg("") == "hermes"
    assert len(plugin.session_arg("x" * 300)) == 128
