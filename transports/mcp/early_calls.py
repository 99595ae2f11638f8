"""The tool calls the early front answers while the SDK loads (see early.py): each on a worker thread of its own, side
by side as the SDK runs them, through the same door as the SDK's handler (`calls.Caller`: the gate, `dispatch`, the
one result mapping), with the SDK's wrapping of a result in that era (recorded with the opening's answers).

Standard library only until the first call: MeMesh's application modules are imported then, on the caller's thread.
"""

from __future__ import annotations

import _thread
import time

TYPE_CHECKING = False  # not typing's (see early.py)
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any


class Workers:
    """Threads that run one job at a time and then wait for the next (a call's store connection is its thread's:
    a thread per call would open a connection per call)."""

    def __init__(self) -> None:
        self._lock = _thread.allocate_lock()
        self._idle: list[tuple[Any, list[Callable[[], None]]]] = []  # (its wake-up lock, its job slot)

    def run(self, job: Callable[[], None]) -> None:
        with self._lock:
            if self._idle:
                wake, slot = self._idle.pop()
                slot.append(job)
                wake.release()
                return
        _thread.start_new_thread(self._loop, (job,))

    def _loop(self, job: Callable[[], None]) -> None:
        wake = _thread.allocate_lock()
        wake.acquire()
        slot: list[Callable[[], None]] = []
        while True:
            try:  # noqa: SIM105 (contextlib is one more import before the first answer)
                job()
            except Exception:  # a job answers its own failures; what escapes one must not end the worker
                pass
            with self._lock:
                self._idle.append((wake, slot))
            wake.acquire()
            job = slot.pop()


class EarlyCalls:
    """The calls answered early: started, answered (unless cancelled meanwhile), and waited for at end of input."""

    def __init__(self, lock: Any, write: Callable[[bytes], None], dumps: Callable[[Any], str]) -> None:
        self._lock = lock  # the front's: it guards this state and every write to the wire
        self._write = write
        self._dumps = dumps
        self._workers = Workers()
        self.caller: Any = None  # calls.Caller, made for the first call
        self._answered: set[Any] = set()  # ids of every call started here: a cancellation of one is no one else's
        self._running: set[Any] = set()
        self._cancelled: set[Any] = set()
        self._none_running = _thread.allocate_lock()  # held while a call runs
        self.last = time.monotonic()  # when a call last ended

    @property
    def running(self) -> bool:
        return bool(self._running)

    def owns(self, request_id: Any) -> bool:
        return request_id in self._answered

    def cancel(self, request_id: Any) -> None:
        """A cancellation of a call started here (under the lock): a call still running then is not answered."""
        if request_id in self._running:
            self._cancelled.add(request_id)

    def start(self, message: dict[str, Any], client_name: str | None, wrapping: dict[str, Any]) -> None:
        """Start answering this call (under the lock), on a worker thread."""
        request_id = message["id"]
        caller = self.caller_for_calls()
        self._answered.add(request_id)
        if not self._running:
            self._none_running.acquire()
        self._running.add(request_id)
        self._workers.run(lambda: self._answer(message, client_name, wrapping, caller))

    def wait(self) -> None:
        """Return once no call started here is running."""
        with self._none_running:
            pass

    def close(self) -> None:
        if self.caller is not None:
            self.caller.close()

    def _answer(self, message: dict[str, Any], client_name: str | None, wrapping: dict[str, Any], caller: Any) -> None:
        params = message["params"]
        name = params["name"]
        try:
            if isinstance(caller, Exception):
                raise caller
            result = caller.wire_call(name, params.get("arguments"), self._context(caller, client_name))
            answer = self._dumps({"jsonrpc": "2.0", "id": message["id"], "result": {**result, **wrapping}}).encode()
        except Exception as exc:  # what the SDK's handler answers when a call raises there
            try:
                from memesh.transports.mcp import calls

                failed = {**calls.unexpected_failure(name, exc), **wrapping}
                answer = self._dumps({"jsonrpc": "2.0", "id": message["id"], "result": failed}).encode()
            except Exception:  # even the failure's answer could not be made: JSON-RPC's own, so the call is answered
                internal = {"code": -32603, "message": "Internal error"}
                answer = self._dumps({"jsonrpc": "2.0", "id": message["id"], "error": internal}).encode()
        with self._lock:
            try:
                if message["id"] not in self._cancelled:  # a cancelled request gets no reply, as from the SDK
                    self._write(answer + b"\n")
            except OSError:
                pass  # the client stopped reading
            finally:
                self._running.discard(message["id"])
                self.last = time.monotonic()
                if not self._running:
                    self._none_running.release()
        if not isinstance(caller, Exception):
            caller.start_updates()  # not before: its thread would slow the call a client is waiting for

    def caller_for_calls(self) -> Any:
        """The caller every call answered here runs on (made for the first, under the lock: hand_over gives it to the
        SDK's handler); the exception instead when it cannot be made, for the call to answer with."""
        if self.caller is None:
            try:
                from memesh.transports.mcp import calls

                calls.configure_logging()
                caller = calls.process_caller()  # its update check starts once the first answer is out
            except Exception as exc:
                return exc
            self.caller = caller
        return self.caller

    @staticmethod
    def _context(caller: Any, client_name: str | None) -> Any:
        """The call's context, as the SDK's handler builds it (server.build_server)."""
        from memesh.core.provenance import clean_host
        from memesh.hosts import session_from_environment
        from memesh.transports.mcp.calls import DEFAULT_HOST

        return caller.resources.context(
            clean_host(client_name, DEFAULT_HOST),
            True,
            caller_session=session_from_environment(),
            # roots/list is never asked from here: a client offering roots has work_package answered by the SDK.
            workspace_roots=lambda: None,
        )
