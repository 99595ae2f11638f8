"""What the hooks read for the agent and record about its session: a file's memories before an edit, the lesson
guards a command matches, which memories reached the session, and credit for the ones it cited."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Protocol

from returns.result import Result, Success

from memesh.core.briefing_text import MemoryLine
from memesh.model import iso_time
from memesh.records import dataclass

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
    def memories_given(self, session_id: str, ids: Sequence[int], sources: Sequence[str]) -> set[int]: ...
    def record_read_memories(self, session_id: str, ids: Sequence[int], when: str) -> None: ...
    def credit_citations(self, session_id: str, ids: Sequence[int]) -> list[int]: ...
    def count_misses(self, session_id: str) -> list[int]: ...
    def guards(self, project_tag: str, limit: int) -> list[tuple[int, str, str, str, bool]]: ...
    def guards_stopped(self, session_id: str, ids: Sequence[int]) -> set[int]: ...
    def record_guard_stops(self, session_id: str, ids: Sequence[int], when: str) -> None: ...


@dataclass(frozen=True)
class FileMemories:
    """A file's memories to give now, and how many others this session already had for a file."""

    lines: list[MemoryLine]
    already_given: int


def file_memories(
    store: SessionStore, project: str, path: str, *, session_id: str | None, reading: bool = False, ctx: CallContext
) -> Result[FileMemories, MemeshError]:
    """The project's newest memories tagged with the file's name, less those this session already had for a file
    (ADR 0009): a Read gives those no Read and no recall gave before, recorded as `read`; an edit gives those no
    Read gave, recorded as recalled (an edit without a Read before it gives them each time, as it always did)."""
    from memesh.core.commits import file_tag  # each hook imports the rules of its own part only (ADR 0002)

    rows = store.file_candidates(f"project:{project}", file_tag(path), FILE_MEMORIES)
    given: set[int] = set()
    if session_id and rows:
        given = store.memories_given(session_id, [r.id for r in rows], ("read", "recalled") if reading else ("read",))
        rows = [r for r in rows if r.id not in given]
        if reading:
            store.record_read_memories(session_id, [r.id for r in rows], iso_time(ctx.now))
        elif rows:
            store.record_session_memories(session_id, [r.id for r in rows], "recalled", iso_time(ctx.now))
    snippets = store.first_observations([r.id for r in rows])
    lines = [MemoryLine(r.id, r.type, r.title or r.name, snippets.get(r.id)) for r in rows]
    return Success(FileMemories(lines, len(given)))


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


@dataclass(frozen=True)
class GuardCheck:
    """What the project's guards say about a command: the matching lessons' lines, and whether to stop it (the first
    time one of them matches in the session) or let it run (each of them already stopped it once)."""

    lines: list[str]
    stop: bool


def check_guards(
    store: SessionStore, project: str, command: str, *, session_id: str | None, ctx: CallContext
) -> Result[GuardCheck, MemeshError]:
    """The warning lines of the project's lessons whose guard the command matches, and whether this is the
    session's first meeting with one of them (recorded, so the same command tried again runs). Without a session id
    nothing can tell a retry apart, so the command is never stopped and the lines are only a warning."""
    from memesh.core import guards

    rows = store.guards(f"project:{project}", GUARDS_READ)
    parsed = [g for g in (guards.parse(*row) for row in rows) if g is not None]
    hits = guards.matching(parsed, project, command)
    lines = [guards.warning_line(g) for g in hits]
    if not hits or not session_id:
        return Success(GuardCheck(lines, stop=False))
    ids = [g.id for g in hits]
    fresh = [i for i in ids if i not in store.guards_stopped(session_id, ids)]
    if fresh:
        store.record_guard_stops(session_id, fresh, iso_time(ctx.now))
    return Success(GuardCheck(lines, stop=bool(fresh)))
