"""MeMesh as Hermes Agent's memory provider (a MemoryProvider plugin).

Install: copy this folder to `$HERMES_HOME/plugins/memesh` (default `~/.hermes/plugins/memesh`) and set
`memory.provider: memesh` in Hermes's config.yaml. It needs the `memesh` command (`pip install memesh`, or set
MEMESH_BIN to its path); the database is the one `memesh` uses (MEMESH_DB_PATH, else ~/.memesh).

After each turn Hermes queues a prefetch (`queue_prefetch`): a background recall of what MeMesh knows about the
user's message, kept for the next turn, whose `prefetch` answers from that cache at once and never waits on a
recall (a turn with nothing cached yet gets no block, and starts the recall for the one after). After each turn it
also hands the turn to
`memesh hermes capture-turn` (kept only when the reply states a decision or a lesson); at a session end or before
context compression it hands the message list to `memesh hermes capture-session` (the Claude Code Stop hook's
rules: edited files, errors fixed, a heavy session's commands). Every payload goes to `memesh` on stdin, never on
its command line, where any local process could read it. It talks to no server: there is no HTTP bridge.
"""

from __future__ import annotations

import json
import logging
import os
import queue
import re
import shutil
import subprocess
import threading
from pathlib import Path
from typing import Any

from agent.memory_provider import MemoryProvider

logger = logging.getLogger(__name__)

RECALL_TIMEOUT_SECONDS = 10.0  # a background recall slower than this is dropped (it never holds up a turn)
TURN_TIMEOUT_SECONDS = 30.0
SESSION_TIMEOUT_SECONDS = 20.0  # session capture runs synchronously at a boundary, just before shutdown
TURN_QUEUE_MAX = 8  # turns waiting for capture; a full queue drops the turn (logged), never blocks Hermes
RECALL_LIMIT = 5
RECALL_QUERY_CHARS = 2000  # the user's message is the query; its opening is what recall needs
_SESSION_UNSAFE = re.compile(r"[^A-Za-z0-9._:-]")


def memesh_command() -> str | None:
    """The `memesh` executable: MEMESH_BIN when set, else the one on PATH."""
    configured = os.environ.get("MEMESH_BIN", "").strip()
    if configured:
        return configured if os.access(configured, os.X_OK) else None
    return shutil.which("memesh")


def memesh_files() -> list[str]:
    """The files a backup of MeMesh's memory needs, as `memesh` finds them: the database (MEMESH_DB_PATH, else
    knowledge-graph.db in MEMESH_DIR, default ~/.memesh), its write-ahead log while one is there, and config.json."""
    folder_setting = os.environ.get("MEMESH_DIR", "").strip()
    folder = Path(folder_setting).expanduser() if folder_setting else Path.home() / ".memesh"
    db_setting = os.environ.get("MEMESH_DB_PATH", "").strip()
    database = Path(db_setting).expanduser() if db_setting else folder / "knowledge-graph.db"
    candidates = [database, database.with_name(database.name + "-wal"), folder / "config.json"]
    return [str(path) for path in candidates if path.is_file()]


def session_arg(session_id: str) -> str:
    """A Hermes session id in the form `memesh hermes --session` accepts (1-128 of A-Z a-z 0-9 . _ : -)."""
    return (_SESSION_UNSAFE.sub("-", session_id) or "hermes")[:128]


class MemeshMemoryProvider(MemoryProvider):
    """Recall before each turn, capture after it; writes go through the `memesh hermes` commands."""

    def __init__(self) -> None:
        self._session_id = "hermes"
        self._primary = True
        self._turns: queue.Queue[tuple[str, str, str] | None] = queue.Queue(maxsize=TURN_QUEUE_MAX)
        self._worker: threading.Thread | None = None
        self._lock = threading.Lock()
        # Prefetch: the one recall waiting to run (only the newest query matters), the answers kept per session,
        # and the thread that runs them.
        self._wanted: tuple[str, str] | None = None
        self._prefetched: dict[str, str] = {}
        self._recaller: threading.Thread | None = None
        self._recall_ready = threading.Condition(self._lock)
        self._closed = False
        self._epoch = 0  # grows on each reset: a recall started before one is not kept

    @property
    def name(self) -> str:
        return "memesh"

    def is_available(self) -> bool:
        return memesh_command() is not None

    def unavailable_reason(self) -> str:
        return "the `memesh` command was not found: `pip install memesh`, or set MEMESH_BIN to its path"

    def initialize(self, session_id: str, **kwargs: Any) -> None:
        self._session_id = session_id or "hermes"
        with self._lock:
            self._closed = False  # a provider Hermes starts again after shutdown() prefetches again
        # Cron, subagent and flush contexts are not the user's conversation: only the primary agent writes.
        self._primary = kwargs.get("agent_context", "primary") == "primary"

    def system_prompt_block(self) -> str:
        return (
            "MeMesh recalls relevant memories before each turn (shown as a [MeMesh recall] block) and keeps the "
            "decisions and lessons stated in your replies. Say a decision or lesson plainly when you make one."
        )

    def get_tool_schemas(self) -> list[dict[str, Any]]:
        return []  # context-only: recall is injected, capture is automatic

    # -- recall -----------------------------------------------------------------------------------------------

    def prefetch(self, query: str, *, session_id: str = "") -> str:
        """What the background recall left for this session (once), at once; with nothing there yet, start one for
        `query` and answer "" rather than make the turn wait for a `memesh` process."""
        session = session_arg(session_id or self._session_id)
        with self._lock:
            cached = self._prefetched.pop(session, None)
        if cached is None:
            self.queue_prefetch(query, session_id=session_id)
        return cached or ""

    def queue_prefetch(self, query: str, *, session_id: str = "") -> None:
        """Recall `query` in the background for the session's next turn; a newer query replaces one still waiting."""
        if not query or not query.strip():
            return
        with self._lock:
            if self._closed:
                return
            self._wanted = (session_arg(session_id or self._session_id), query[:RECALL_QUERY_CHARS])
            self._recall_ready.notify()
            if self._recaller is None or not self._recaller.is_alive():
                self._recaller = threading.Thread(target=self._recall_loop, name="memesh-prefetch", daemon=True)
                self._recaller.start()

    def _recall_loop(self) -> None:
        while True:
            with self._lock:
                while self._wanted is None and not self._closed:
                    self._recall_ready.wait()
                if self._wanted is None:
                    return
                session, query = self._wanted
                self._wanted = None
                epoch = self._epoch
            answer = self._run(
                ["recall", "--session", session], {"query": query, "limit": RECALL_LIMIT}, RECALL_TIMEOUT_SECONDS
            )
            context = answer.get("context") if answer else None
            with self._lock:
                if epoch == self._epoch:
                    self._prefetched[session] = context if isinstance(context, str) else ""

    def backup_paths(self) -> list[str]:
        """The files Hermes should include in a backup: MeMesh's database (and its write-ahead log) and config."""
        return memesh_files()

    # -- capture ----------------------------------------------------------------------------------------------

    def sync_turn(
        self,
        user_content: str,
        assistant_content: str,
        *,
        session_id: str = "",
        messages: list[dict[str, Any]] | None = None,
    ) -> None:
        if not self._primary:
            return
        item = (session_arg(session_id or self._session_id), user_content or "", assistant_content or "")
        try:
            # sync_turn runs on Hermes's main thread every turn: hand the turn over and return at once.
            self._turns.put_nowait(item)
        except queue.Full:
            logger.warning("MeMesh turn capture skipped: %s turns already waiting", TURN_QUEUE_MAX)
            return
        with self._lock:
            if self._worker is None or not self._worker.is_alive():
                self._worker = threading.Thread(target=self._drain, name="memesh-capture", daemon=True)
                self._worker.start()

    def _drain(self) -> None:
        # One worker, in order: captures never pile up as concurrent writers of one database.
        while True:
            item = self._turns.get()
            try:
                if item is None:
                    return
                session, user, assistant = item
                self._run(
                    ["capture-turn", "--session", session], {"user": user, "assistant": assistant}, TURN_TIMEOUT_SECONDS
                )
            finally:
                self._turns.task_done()

    def _capture_session(self, messages: list[dict[str, Any]] | None) -> dict[str, Any] | None:
        if not self._primary or not messages:
            return None
        return self._run(
            ["capture-session", "--session", session_arg(self._session_id)],
            {"messages": messages},
            SESSION_TIMEOUT_SECONDS,
        )

    def on_session_end(self, messages: list[dict[str, Any]]) -> None:
        # Synchronous on purpose: shutdown() follows at once, and a detached write racing it would be lost.
        self._capture_session(messages)

    def on_pre_compress(self, messages: list[dict[str, Any]]) -> str:
        if self._capture_session(messages) is None:
            return ""
        return "The files edited and errors fixed so far are kept in MeMesh; the summary need not list them all."

    def on_session_switch(
        self,
        new_session_id: str,
        *,
        parent_session_id: str = "",
        reset: bool = False,
        rewound: bool = False,
        **kwargs: Any,
    ) -> None:
        """Follow the new session id; on `reset` (/new, /reset: a new conversation) or `rewound` (the transcript was
        cut back) start its state afresh, as Hermes asks: no recall made for the conversation before is injected
        into it, whether it is waiting, running or answered. /resume, /branch and compression (neither flag) keep
        it: the conversation goes on. Turns already handed over are still captured, under their own session."""
        previous = self._session_id
        self._session_id = new_session_id or self._session_id
        if not (reset or rewound):
            return
        with self._lock:
            for session in {session_arg(previous), session_arg(self._session_id)}:
                self._prefetched.pop(session, None)
            self._wanted = None
            self._epoch += 1  # a recall running now answers for the conversation before: it is dropped

    def shutdown(self) -> None:
        """Let the queued recall finish and the waiting turns be captured (bounded), then stop both workers."""
        with self._lock:
            worker, recaller = self._worker, self._recaller
            self._closed = True
            self._recall_ready.notify()
        if recaller is not None:
            recaller.join(timeout=RECALL_TIMEOUT_SECONDS * 2)
        if worker is None or not worker.is_alive():
            return
        try:
            self._turns.put(None, timeout=TURN_TIMEOUT_SECONDS)
        except queue.Full:
            return
        worker.join(timeout=TURN_TIMEOUT_SECONDS * 2)

    # -- the one way to memesh --------------------------------------------------------------------------------

    def _run(self, args: list[str], payload: dict[str, Any], timeout: float) -> dict[str, Any] | None:
        """`memesh hermes <args>` with `payload` as JSON on stdin; its one-line JSON answer, or None (logged)."""
        binary = memesh_command()
        if binary is None:
            logger.warning("MeMesh skipped: %s", self.unavailable_reason())
            return None
        try:
            done = subprocess.run(
                [binary, "hermes", *args],
                input=json.dumps(payload),
                capture_output=True,
                encoding="utf-8",
                errors="replace",
                env={**os.environ, "PYTHONIOENCODING": "utf-8"},
                timeout=timeout,
                check=False,
            )
        except (OSError, subprocess.SubprocessError) as exc:
            logger.warning("MeMesh %s failed to run: %s", args[0], exc)
            return None
        if done.returncode != 0:
            logger.warning("MeMesh %s failed (exit %s): %s", args[0], done.returncode, done.stderr.strip()[:500])
            return None
        try:
            answer = json.loads(done.stdout.strip().splitlines()[-1])
        except (ValueError, IndexError):
            logger.warning("MeMesh %s answered something that is not JSON", args[0])
            return None
        if not isinstance(answer, dict):
            return None
        if answer.get("toolResultsNonJson"):
            logger.info(
                "MeMesh: %s tool result(s) were not JSON, so their errors were not counted",
                answer["toolResultsNonJson"],
            )
        if answer.get("unrecognizedTools"):
            logger.info("MeMesh: tool names without a capture rule: %s", answer["unrecognizedTools"])
        logger.debug("MeMesh %s: %s", args[0], answer.get("outcome", "ok"))
        return answer


def register(ctx: Any) -> None:
    """Hermes's plugin entry: `ctx.register_memory_provider` activates the provider by name (`memesh`)."""
    ctx.register_memory_provider(MemeshMemoryProvider())
