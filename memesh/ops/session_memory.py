"""What the hooks read for the agent and record about its session: a file's memories before an edit, the lesson
guards a command matches, which memories reached the session, and credit for the ones it cited."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Protocol

from returns.result import Result, Success

from memesh.core.briefing_text import MemoryLine
from memesh.model import iso_time

if TYPE_CHECKING:
    from memesh.context import CallContext
    from memesh.errors import MemeshError
    from memesh.values import CandidateRow

FILE_MEMORIES = 5
GUARDS_READ = 200


class SessionStore(Protocol):
    def file_candidates(self, project_tag: str, file_tag: str, limit: int) -> list[CandidateRow]: ...
    def first_observations(self, ids: Sequence[int]) -> dict[int, str]: ...
    def record_session_memories(self, session_id: str, ids: Sequence[int], source: str, when: str) -> None: ...
    def credit_citations(self, session_id: str, ids: Sequence[int]) -> list[int]: ...
    def count_misses(self, session_id: str) -> list[int]: ...
    def guards(self, limit: int) -> list[tuple[int, str, str, str]]: ...


def file_memories(
    store: SessionStore, project: str, path: str, *, session_id: str | None, ctx: CallContext
) -> Result[list[MemoryLine], MemeshError]:
    """The project's newest memories tagged with the file's name; recorded as recalled in the session."""
    from memesh.core.commits import file_tag  # each hook imports the rules of its own part only (ADR 0002)

    rows = store.file_candidates(f"project:{project}", file_tag(path), FILE_MEMORIES)
    snippets = store.first_observations([r.id for r in rows])
    if session_id and rows:
        store.record_session_memories(session_id, [r.id for r in rows], "recalled", iso_time(ctx.now))
    return Success([MemoryLine(r.id, r.type, r.title or r.name, snippets.get(r.id)) for r in rows])


def record_injected(
    store: SessionStore, session_id: str, ids: Sequence[int], *, ctx: CallContext
) -> Result[int, MemeshError]:
    """Record what SessionStart injected, so a later [mem:id] citation in the session credits it."""
    if ids:
        store.record_session_memories(session_id, ids, "injected", iso_time(ctx.now))
    return Success(len(ids))


def credit(store: SessionStore, session_id: str, replies: Sequence[str]) -> Result[list[int], MemeshError]:
    """Credit each memory the replies cite that reached this session (once per session); the ids credited now."""
    from memesh.core import transcript

    cited = transcript.citations(replies)
    return Success(store.credit_citations(session_id, cited) if cited else [])


def count_misses(store: SessionStore, session_id: str) -> Result[list[int], MemeshError]:
    """After crediting a turn's citations: one recall miss for each memory that reached the session and is still
    uncited (once per session; a later citation turns it into the hit); the ids counted now."""
    return Success(store.count_misses(session_id))


def guard_warnings(store: SessionStore, command: str) -> Result[list[str], MemeshError]:
    """The warning lines of the lessons whose guard the command matches."""
    from memesh.core import guards

    parsed = [g for g in (guards.parse(*row) for row in store.guards(GUARDS_READ)) if g is not None]
    return Success(guards.warnings(parsed, command))
