"""The demo tour dataset: a small, believable project memory for a first look at the dashboard.

Every memory carries `metadata.demo = true`, which is the only thing reset looks at: it removes exactly these rows,
and a memory the user wrote is never one of them, even under a demo name (seeding skips a name already taken).
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Final

from memesh.model import EntityWrite, sqlite_time
from memesh.records import dataclass

PROJECT: Final = "memesh-demo"
MARK: Final = "demo"


@dataclass(frozen=True)
class DemoMemory:
    name: str
    type: str
    title: str
    observations: tuple[str, ...]
    tags: tuple[str, ...]
    days_ago: float


MEMORIES: Final[tuple[DemoMemory, ...]] = (
    DemoMemory(
        "demo-auth-decision",
        "decision",
        "Use PKCE for the public client",
        ("The web client is public: no client secret can be kept.", "PKCE replaces the implicit flow."),
        ("topic:auth",),
        20,
    ),
    DemoMemory(
        "demo-session-storage",
        "decision",
        "Sessions live in an HttpOnly cookie",
        ("Tokens never reach page script.", "The cookie is SameSite=Lax."),
        ("topic:auth",),
        12,
    ),
    DemoMemory(
        "demo-token-refresh-lesson",
        "lesson_learned",
        "Refresh tokens must rotate",
        ("A replayed refresh token went unnoticed for a day.", "Rotate on every use and revoke the family on reuse."),
        ("topic:auth", "severity:critical"),
        9,
    ),
    DemoMemory(
        "demo-migration-lesson",
        "lesson_learned",
        "Run migrations before the deploy, not after",
        ("The new code read a column that did not exist yet.",),
        ("topic:database", "severity:major"),
        30,
    ),
    DemoMemory(
        "demo-flaky-test-lesson",
        "lesson_learned",
        "A sleep in a test is a bug waiting",
        ("Wait on the event, never on the clock.",),
        ("topic:testing", "severity:minor"),
        3,
    ),
    DemoMemory(
        "demo-error-format",
        "pattern",
        "Every API error is {success:false, errorCode, error}",
        ("Clients branch on errorCode, never on the English text.",),
        ("topic:api",),
        45,
    ),
    DemoMemory(
        "demo-retry-pattern",
        "pattern",
        "Retry with jittered backoff, at most 5 tries",
        ("Applies to the payment provider and the mail relay.",),
        ("topic:reliability",),
        60,
    ),
    DemoMemory(
        "demo-db-fact",
        "fact",
        "The database is PostgreSQL 16 on the managed tier",
        ("Point-in-time recovery keeps 7 days.",),
        ("topic:database",),
        100,
    ),
    DemoMemory(
        "demo-q3-plan",
        "plan",
        "Q3: passkeys behind a flag",
        ("Ship to staff first, then 10% of users.", "Success: fewer password resets."),
        ("topic:auth",),
        40,
    ),
    DemoMemory(
        "demo-release-2-4",
        "release",
        "Release 2.4",
        ("PKCE login, rotating refresh tokens.",),
        ("topic:release",),
        6,
    ),
    DemoMemory(
        "demo-commit-pkce",
        "commit",
        "feat(auth): PKCE for the web client",
        ("Replaces the implicit flow in login.ts.",),
        ("file:login.ts",),
        19,
    ),
    DemoMemory(
        "demo-session-summary",
        "session_keypoint",
        "Session: refresh-token rotation",
        ("[SESSION] Duration: 48m, 3 commits", "[FOCUS] Top tools: Edit(14), Bash(9), Read(7)"),
        (),
        2,
    ),
)

RELATIONS: Final = (
    ("demo-session-storage", "demo-auth-decision", "related-to"),
    ("demo-commit-pkce", "demo-auth-decision", "implements"),
    ("demo-token-refresh-lesson", "demo-session-storage", "related-to"),
    ("demo-auth-decision", "demo-release-2-4", "caused"),
    ("demo-q3-plan", "demo-auth-decision", "builds-on"),
)


def writes(now: datetime, source_host: str, taken: set[str]) -> list[EntityWrite]:
    """The demo memories not yet present (by name), dated back from `now`, each marked as demo."""
    return [
        EntityWrite(
            entity_id=None,
            name=memory.name,
            type=memory.type,
            title=memory.title,
            namespace="personal",
            status="active",
            metadata={MARK: True, "provenance": {"source_host": source_host}},
            observations=memory.observations,
            tags=(f"project:{PROJECT}", *memory.tags),
            created_at=sqlite_time(now - timedelta(days=memory.days_ago)),
        )
        for memory in MEMORIES
        if memory.name not in taken
    ]
