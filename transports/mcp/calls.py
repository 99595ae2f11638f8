"""A tool call over MCP without the SDK: the one table that turns a dispatch Result into a tools/call result (as the
JSON the wire carries), and the caller that runs a call on the store through the one door.

Both ways of answering a call use it: the SDK's handler (`backend.Backend`, which makes a CallToolResult of it) and
the early front (`early.py`), which answers calls while the SDK is still loading. Nothing here imports the SDK or
pydantic, so the front can answer without waiting for them.
"""

from __future__ import annotations

import json
import logging
import os
import re
import sys
import threading
from collections.abc import Callable
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING, Any

from returns.result import Failure, Result, Success

from memesh import paths
from memesh.app import dispatch
from memesh.app.database import StoreError
from memesh.app.resources import Resources
from memesh.app.waiting import HighWater
from memesh.context import CallContext
from memesh.errors import ErrorCode, MemeshError
from memesh.transports.mcp.presenters import PRESENTERS

if TYPE_CHECKING:
    from memesh.app.updates import Notifier, StaleCheck

log = logging.getLogger("memesh.mcp")

DEFAULT_HOST = "mcp"  # the provenance stamp when the client declares no name
REASON_MAX = 200
# An absolute or home-relative path not glued to a word ("read/write" stays): it may name the user's files.
_PATH = re.compile(r"(?<![\w.])(?:[A-Za-z]:)?[\\/~][^\s'\"(),;]*")
# A quoted path (as OSError prints it) may hold spaces: blanked whole, quotes kept, before the unquoted ones.
_QUOTED_PATH = re.compile(r"(['\"])(?:[A-Za-z]:)?[\\/~][^'\"]*\1")

Wire = dict[str, Any]  # a tools/call result as JSON: content, isError, structuredContent


class Delivery(Enum):
    """How a failed call reaches the client."""

    # An isError result: the model reads the message and can correct the call. A protocol error is left for
    # requests the SDK itself refuses (malformed JSON-RPC, unknown method), so no MeMesh failure becomes one.
    TOOL_ERROR = "tool-error"


# One row per code, written out (not derived from ErrorCode) so a new code fails the coverage test until someone
# decides how MCP delivers it.
DELIVERY: dict[ErrorCode, Delivery] = {
    ErrorCode.AUTH_MISSING_BEARER: Delivery.TOOL_ERROR,
    ErrorCode.AUTH_INVALID_TOKEN: Delivery.TOOL_ERROR,
    ErrorCode.AUTH_NOT_CONFIGURED: Delivery.TOOL_ERROR,
    ErrorCode.AUTH_CROSS_ORIGIN: Delivery.TOOL_ERROR,
    ErrorCode.AUTH_FORBIDDEN: Delivery.TOOL_ERROR,
    ErrorCode.BAD_BODY: Delivery.TOOL_ERROR,
    ErrorCode.BAD_PARAM: Delivery.TOOL_ERROR,
    ErrorCode.ROUTE_RETIRED: Delivery.TOOL_ERROR,
    ErrorCode.ROUTE_NOT_FOUND: Delivery.TOOL_ERROR,
    ErrorCode.NOT_FOUND: Delivery.TOOL_ERROR,
    ErrorCode.PAYLOAD_TOO_LARGE: Delivery.TOOL_ERROR,
    ErrorCode.OPERATION_FAILED: Delivery.TOOL_ERROR,
    ErrorCode.PERMISSION_DENIED: Delivery.TOOL_ERROR,
    ErrorCode.INTERNAL: Delivery.TOOL_ERROR,
    ErrorCode.STORE_UNAVAILABLE: Delivery.TOOL_ERROR,
    ErrorCode.RECIPIENT_UNAVAILABLE: Delivery.TOOL_ERROR,
    ErrorCode.ROUTER_UNREACHABLE: Delivery.TOOL_ERROR,
    ErrorCode.NATIVE_MESSAGE_TOO_LARGE: Delivery.TOOL_ERROR,
    ErrorCode.INTENDED_FOR_OTHER_SESSION: Delivery.TOOL_ERROR,
    ErrorCode.STORAGE_QUOTA_EXCEEDED: Delivery.TOOL_ERROR,
    ErrorCode.IDEMPOTENCY_CONFLICT: Delivery.TOOL_ERROR,
}


def compact_json(value: Any) -> str:
    """The text form of a structured result: compact, and non-ASCII kept as written."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def text_content(text: str) -> dict[str, Any]:
    return {"type": "text", "text": text}


def tool_error(message: str) -> Wire:
    """A failure the model reads as the tool's answer."""
    return {"content": [text_content(message)], "isError": True}


def to_wire(result: Result[Any, MemeshError], tool: str | None = None) -> Wire:
    """Success → the output as text (markdown for a tool with a presenter) and as structuredContent; Failure →
    delivered as DELIVERY says for its code."""
    match result:
        case Success(data):
            present = PRESENTERS.get(tool or "")
            text = present(data) if present is not None else compact_json(data)
            return {"content": [text_content(text)], "isError": False, "structuredContent": data}
        case Failure(error):
            match DELIVERY[error.code]:
                case Delivery.TOOL_ERROR:
                    return tool_error(error.message)
    raise TypeError(f"not a Result: {type(result).__name__}")


def short_reason(exc: BaseException) -> str:
    """One line about an unexpected exception for the client: its type and first line, paths blanked out."""
    lines = str(exc).strip().splitlines()
    text = _PATH.sub("<path>", _QUOTED_PATH.sub(r"\1<path>\1", lines[0])).strip() if lines else ""
    reason = f"{type(exc).__name__}: {text}" if text else type(exc).__name__
    return reason if len(reason) <= REASON_MAX else reason[: REASON_MAX - 1] + "…"


def unexpected_failure(name: str, exc: BaseException) -> Wire:
    """The answer when a tool raised instead of returning a Result (the traceback goes to the log, not the wire)."""
    return tool_error(f'Tool "{name}" failed: {short_reason(exc)}')


class Caller:
    """Runs tool calls on the worker thread's own connection to the store (a connection per thread: one shared
    connection behind a lock made a message send waiting up to 10 s for a host hold up every recall), and maps their
    Results to the wire."""

    def __init__(
        self,
        path: Path | str | None = None,
        notifier: Notifier | None = None,
        stale: StaleCheck | None = None,
        resources: Resources | None = None,
        *,
        updates: Callable[[], tuple[Notifier | None, StaleCheck | None]] | None = None,
    ) -> None:
        self._path = path
        # The once-per-process update notice, computed off the call path (None: no update checks), and the check
        # that this process still runs the version installed on disk; or what makes both when the check starts.
        self._notifier = notifier
        self._stale = stale
        self._updates = updates
        self._started = False
        self._starting = threading.Lock()
        # `resources`: the process's own, when the server shares them (memesh serve's HTTP API and /mcp).
        self.resources = resources if resources is not None else Resources.pooled(path)
        self._open_error = ""
        self._high_water: HighWater | None = None

    @property
    def high_water(self) -> HighWater:
        """What a waiting message poll watches: it looks again only when the newest event id grows (made on first
        use: it needs anyio, which the early front does not load)."""
        if self._high_water is None:
            self._high_water = HighWater(self._newest_event, self.resources.message_wakeups)
        return self._high_water

    def serves(self, database: str) -> bool:
        """Whether this caller's database is `database` (a resolved path, or a PostgreSQL URL: hooks.wire.served): a
        caller handed another database (a test, the answer recorder) must not run hook events for the one the
        environment names."""
        if self._path is None:
            return True
        if isinstance(self._path, str) and self._path.startswith(paths.URL_SCHEMES):
            return self._path.strip() == database
        return os.path.realpath(self._path) == database

    def open(self) -> None:
        """Open the store now, so a bad database path shows in the log at start; a failure is kept, not raised.
        The update check starts here too, on its own thread."""
        self.start_updates()
        self._ensure_store()

    def start_updates(self) -> None:
        """Start the update check (once; a later call does nothing)."""
        with self._starting:
            if self._started:
                return
            self._started = True
            if self._updates is not None:
                self._notifier, self._stale = self._updates()
        if self._notifier is not None:
            self._notifier.start()

    def _ensure_store(self) -> object | None:
        """This thread's connection, opened on first use. A failed open is retried on the next call: the folder may
        only have been missing for a moment."""
        try:
            return self.resources.store
        except StoreError as exc:  # the log (stderr, this machine) names the file; the client is told why only
            self._open_error = exc.reason
            log.error("%s", exc)
            return None
        except Exception as exc:  # whatever else goes wrong opening it, the server stays up to say so
            self._open_error = short_reason(exc)
            log.exception("cannot open the database")
            return None

    def wire_call(self, name: str, arguments: dict[str, Any] | None, ctx: CallContext) -> Wire:
        """Run tool `name` and map its Result; never raises (a failure of any kind is an isError result)."""
        return self.wire_answer(name, self.run(name, arguments, ctx))

    def run(self, name: str, arguments: dict[str, Any] | None, ctx: CallContext) -> Result[Any, MemeshError] | Wire:
        """The tool's Result, or the isError answer when the store or the tool itself broke."""
        store = self._ensure_store()
        if store is None:
            return tool_error(f"MeMesh cannot use its database: {self._open_error}")
        try:
            return dispatch.call(name, self.resources, arguments, ctx, nulls_mean_absent=True)
        except Exception as exc:
            log.exception("tool %r raised", name)
            return unexpected_failure(name, exc)

    def wire_answer(self, name: str, outcome: Result[Any, MemeshError] | Wire) -> Wire:
        if isinstance(outcome, dict):
            return outcome
        try:
            answer = to_wire(outcome, name)
        except Exception as exc:
            log.exception("tool %r returned a result that cannot be sent", name)
            return unexpected_failure(name, exc)
        # The notice rides as a second content item on a successful result: content[0] stays the tool's payload.
        if not answer["isError"]:
            notice = self._notifier.take() if self._notifier is not None else None
            notice = notice or (self._stale.notice() if self._stale is not None else None)
            if notice:
                answer["content"].append(text_content(notice))
        return answer

    def _newest_event(self) -> int:
        if self._ensure_store() is None:
            return 0
        try:
            return self.resources.store.message_high_water()
        except Exception:  # a database that broke meanwhile: the poll itself reports why
            return 0

    def close(self) -> None:
        """Close every connection opened (a later call opens a fresh one)."""
        self.resources.close()


def _server_updates() -> tuple[Notifier | None, StaleCheck | None]:
    from memesh.app.updates import server_updates

    return server_updates()


def process_caller() -> Caller:
    """The caller of a memesh-mcp process, with the update notice riding on successful calls when update checks are
    on (the update machinery is loaded when the check starts, not before the first call is answered)."""
    return Caller(updates=_server_updates)


def configure_logging() -> None:
    """memesh-mcp logs to stderr (stdout is the wire), warnings and worse."""
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr, format="memesh-mcp: %(levelname)s: %(message)s")
