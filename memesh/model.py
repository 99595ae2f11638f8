"""The memory as the core sees it: plain values, no storage or transport concerns."""

from __future__ import annotations

from dataclasses import field
from datetime import UTC, datetime
from typing import Any, Final, Literal

from memesh.records import dataclass
from memesh.schema import facts

Namespace = Literal["personal", "team", "global"]  # the type checker's copy; tests/test_schema_facts.py pins it
NAMESPACES: Final = facts.enum("tools/remember.input", "namespace")
# The schema lists the default first ("personal"); no `default` keyword there, since a client that sends it would
# move an existing memory (supplying a namespace moves one).
DEFAULT_NAMESPACE: Final[Namespace] = NAMESPACES[0]  # type: ignore[assignment]
ACTIVE: Final = "active"
ARCHIVED: Final = "archived"

# Types whose repeated observations are kept (a lesson learned twice is evidence), and the spellings of them.
LESSON_TYPES: Final = frozenset({"lesson_learned", "lesson", "mistake"})
TYPE_ALIASES: Final = {"lesson": "lesson_learned", "mistake": "lesson_learned"}


def canonical_type(entity_type: str) -> str:
    """The stored spelling of a type: `lesson` and `mistake` are stored as `lesson_learned`."""
    return TYPE_ALIASES.get(entity_type, entity_type)


def sqlite_time(moment: datetime) -> str:
    """`YYYY-MM-DD HH:MM:SS` in UTC: the form created_at is stored and returned in."""
    return moment.astimezone(UTC).strftime("%Y-%m-%d %H:%M:%S")


def iso_time(moment: datetime) -> str:
    """ISO-8601 UTC with milliseconds and `Z`, the form metadata timestamps use."""
    return moment.astimezone(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


@dataclass(frozen=True)
class Relation:
    from_name: str
    to_name: str
    type: str


@dataclass
class Entity:
    """One stored memory with everything attached to it."""

    id: int
    name: str
    type: str
    title: str | None
    namespace: str
    status: str
    created_at: str
    metadata: dict[str, Any] = field(default_factory=dict)
    observations: list[str] = field(default_factory=list)
    tags: list[str] = field(default_factory=list)
    relations: list[Relation] = field(default_factory=list)
    access_count: int = 0
    last_accessed_at: str | None = None
    confidence: float = 1.0
    recall_hits: int = 0
    recall_misses: int = 0

    @property
    def archived(self) -> bool:
        return self.status == ARCHIVED


@dataclass(frozen=True)
class EntityWrite:
    """The whole state one memory should have after a write; the store makes the rows match it.

    `entity_id` None inserts a new memory. `confidence` None keeps the stored value. Observations and tags are
    the complete lists: the store appends when the stored ones are a prefix, and rewrites them otherwise.
    """

    entity_id: int | None
    name: str
    type: str
    title: str | None
    namespace: str
    status: str
    metadata: dict[str, Any]
    observations: tuple[str, ...]
    tags: tuple[str, ...]
    created_at: str | None = None
    confidence: float | None = None
    # Who writes now (issue 32): recorded on a new memory and on the observations this write adds; None takes the
    # memory's `metadata.provenance.author`.
    author: str | None = None


@dataclass(frozen=True)
class Filters:
    """Which memories a recall or listing may return."""

    tag: str | None = None
    namespace: str | None = None
    include_archived: bool = False
    # Issue 32. `author`: only what this author wrote. `projects`: only memories tagged `project:<id>` with one of
    # these (None: any). `viewer`: a member is reading, so `personal` memories are shown only when it wrote them
    # (the owner also sees those written before authors were recorded).
    author: str | None = None
    projects: tuple[str, ...] | None = None
    viewer: str | None = None
    viewer_is_owner: bool = False
    # Issue 38: recall's `since` / `until`, as stored created_at text (`YYYY-MM-DD HH:MM:SS`, UTC): created at or
    # after `created_since`, and before `created_until`.
    created_since: str | None = None
    created_until: str | None = None


@dataclass(frozen=True)
class Listed:
    """One active memory in a namespace listing (the memory tool's directory view): no observations, no access."""

    name: str
    type: str
    size: int  # characters of its rendered file (observations joined by newlines)
    tags: tuple[str, ...]


@dataclass(frozen=True)
class MemberRow:
    """One member as stored (never its token; its hash stays in the database)."""

    name: str
    role: str
    projects: tuple[str, ...] | None
    created_at: str
    expires_at: str | None
    revoked_at: str | None
    last_used_at: str | None


@dataclass(frozen=True)
class OAuthRequestRow:
    """One OAuth authorization request as stored (issue 32): its parameters (JSON), and how far it has come."""

    client_id: str
    params: str
    nonce_hash: str | None
    expires_at: int
    member_id: int | None
    owner_key: str | None
    identified: bool
    code_hash: str | None
    used_at: int | None


@dataclass(frozen=True)
class OAuthTokenRow:
    """One OAuth access or refresh token as stored, with the member it is bound to (None: the owner approved)."""

    kind: str
    client_id: str
    grant_id: str
    member_id: int | None
    owner_key: str | None
    scopes: str
    resource: str | None
    expires_at: int
    revoked_at: int | None
    member: MemberRow | None


@dataclass(frozen=True)
class AuditRow:
    id: int
    at: str
    actor: str
    action: str
    target: str | None
    detail: dict[str, Any]
