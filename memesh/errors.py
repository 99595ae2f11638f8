"""The one error value every operation fails with, and the closed set of stable codes the spec defines."""

from __future__ import annotations

import errno
from dataclasses import field
from enum import StrEnum
from typing import Any

from memesh.records import dataclass


class ErrorCode(StrEnum):
    """The spec's stable `errorCode` values. Code branches on these, never on message text."""

    AUTH_MISSING_BEARER = "auth.missing-bearer"
    AUTH_INVALID_TOKEN = "auth.invalid-token"
    AUTH_NOT_CONFIGURED = "auth.not-configured"
    AUTH_CROSS_ORIGIN = "auth.cross-origin"
    # A member whose role or project scope does not admit the call (issue 32): a reader's write, another project.
    AUTH_FORBIDDEN = "auth.forbidden"
    BAD_BODY = "validation.bad-body"
    BAD_PARAM = "validation.bad-param"
    ROUTE_RETIRED = "route.retired"
    ROUTE_NOT_FOUND = "route.not-found"
    NOT_FOUND = "resource.not-found"
    PAYLOAD_TOO_LARGE = "payload.too-large"
    OPERATION_FAILED = "operation.failed"
    PERMISSION_DENIED = "operation.permission-denied"
    INTERNAL = "server.internal"
    # The database cannot serve now (cannot be reached, refused the connection, restarting, its schema behind this
    # MeMesh): data["store"] says why. Issue 39: PostgreSQL's connection-level failures; SQLite's keep INTERNAL.
    STORE_UNAVAILABLE = "store.unavailable"
    # The message tool's delivery codes (spec: message). Bare snake_case, as the spec spells them.
    RECIPIENT_UNAVAILABLE = "recipient_unavailable"
    ROUTER_UNREACHABLE = "router_unreachable"
    NATIVE_MESSAGE_TOO_LARGE = "native_message_too_large"
    INTENDED_FOR_OTHER_SESSION = "intended_for_other_session"
    STORAGE_QUOTA_EXCEEDED = "storage_quota_exceeded"
    IDEMPOTENCY_CONFLICT = "idempotency_conflict"


# The kinds of database failure (MemeshError.data["store"]) that mean "unavailable now" rather than a bug: HTTP
# answers them 503, as the spec's server.internal 500/503.
STORE_UNAVAILABLE = frozenset({"locked", "corrupt", "not-a-database", "disk-full", "cannot-open", "descriptors"})
# Issue 35: every descriptor of the process taken (by a storm of connections): nothing is wrong, retry shortly.
OUT_OF_DESCRIPTORS = (
    "the server has no free file descriptors right now (too many connections at once); retry in a moment"
)
_NO_DESCRIPTOR = frozenset({errno.EMFILE, errno.ENFILE})


def out_of_descriptors(exc: BaseException | None) -> bool:
    """Whether `exc`, or an exception it was raised from or while handling, is EMFILE or ENFILE."""
    seen: set[int] = set()
    while exc is not None and id(exc) not in seen:
        if isinstance(exc, OSError) and exc.errno in _NO_DESCRIPTOR:
            return True
        seen.add(id(exc))
        exc = exc.__cause__ or exc.__context__
    return False


@dataclass(frozen=True)
class MemeshError:
    """A failure a caller can act on: a stable code, a sentence for people, and optional structured detail."""

    code: ErrorCode
    message: str
    data: dict[str, Any] = field(default_factory=dict)

    @property
    def unavailable(self) -> bool:
        """Whether this is a database that cannot serve now (unreachable, locked, damaged, full, …), not a bug."""
        if self.code is ErrorCode.STORE_UNAVAILABLE:
            return True
        return self.code is ErrorCode.INTERNAL and self.data.get("store") in STORE_UNAVAILABLE

    @classmethod
    def no_descriptors(cls) -> MemeshError:
        """The process is out of file descriptors: unavailable now (503 with Retry-After over HTTP), not a bug."""
        return cls(ErrorCode.INTERNAL, OUT_OF_DESCRIPTORS, {"store": "descriptors"})

    @classmethod
    def bad_body(cls, message: str) -> MemeshError:
        return cls(ErrorCode.BAD_BODY, message)

    @classmethod
    def failed(cls, message: str, **data: Any) -> MemeshError:
        return cls(ErrorCode.OPERATION_FAILED, message, dict(data))

    @classmethod
    def not_found(cls, message: str, **data: Any) -> MemeshError:
        return cls(ErrorCode.NOT_FOUND, message, dict(data))


class BrokenFile(Exception):
    """A file MeMesh keeps (config.json, …) exists but cannot be used as it is: writing would lose what is in it.

    str() may name the file's path (for the person at this machine); `problem` says what is wrong without it, for
    anything that leaves this machine's process.
    """

    def __init__(self, message: str, problem: str) -> None:
        super().__init__(message)
        self.problem = problem
