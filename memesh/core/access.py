"""Who may do what on a shared MeMesh (issue 32): the roles, the operations each admits, a project scope, and the
visibility of `personal` memories. Plain values in, plain values out; the store applies the filters in SQL.

A call with no caller (every local call, and a loopback listener) is admitted as it always was: these rules only
ever narrow what a member presenting its own token may do.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace

from memesh.context import Caller
from memesh.errors import ErrorCode, MemeshError
from memesh.model import Filters

ROLES = ("reader", "writer", "admin")
PROJECT_TAG = "project:"

# What a reader may run: the operations that only read (recall counts an access, which is not a write of content).
READ_OPS = frozenset(
    {
        "recall",
        "export",
        "briefing",
        "user_patterns",
        "health",
        "entities",
        "entity",
        "graph",
        "task_state_read",
        "stats",
        "analytics",
        "analytics_pm",
        "projects",
        "update_status",
        "dream_proposals",
        "dream_proposal",
        "briefing_index",
        "why",
    }
)
# What only an admin may run: the install's own settings and upkeep, and the members and their audit.
ADMIN_OPS = frozenset(
    {
        "config",
        "config_update",
        "config_list",
        "config_unset",
        "setup",
        "doctor",
        "doctor_fix",
        "demo_seed",
        "demo_reset",
        "reindex",
        "rename_project",
        "copy_database",
        "import_file",
        "import_notes",
        "backfill_relations",
        "message_storage_report",
        "message_storage_prune",
        "member_add",
        "member_list",
        "member_revoke",
        "audit",
    }
)
# Reads over the whole store that do not apply the personal-memory rule yet (they show memories' names and text):
# an admin's, not a reader's or writer's, so that another member's `personal` memory never reaches them.
# Accepting or rejecting a proposal is the review of what the listing shows (a digest's accept archives its
# sources, whoever wrote them): an admin's too, so no writer archives another member's `personal` memory that way.
WHOLE_STORE_OPS = frozenset(
    {
        "graph",
        "why",
        "briefing_index",
        "user_patterns",
        "dream_proposals",
        "dream_proposal",
        "dream_accept",
        "dream_reject",
    }
)
# What a member scoped to projects may run at all: the operations whose reads and writes the project scope is
# applied to. Anything else (a briefing, the graph, messages, …) is not scoped yet, so it is refused: fail closed.
SCOPED_OPS = frozenset({"recall", "export", "remember", "entities", "entity", "health", "update_status"})
# The calls the door records in the audit (who, what, when): every write on a remote listener. Member changes are
# recorded by their own operations, wherever they run.
AUDITED_SKIP = READ_OPS | {"audit", "member_list", "member_add", "member_revoke"}  # members audit themselves


def hash_token(token: str) -> str:
    """What the database keeps of a member's token: its SHA-256 (the token is 256 random bits, so no salt)."""
    import hashlib  # not at import: the session-start hook imports these rules and must not load hashlib

    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def forbidden(message: str) -> MemeshError:
    return MemeshError(ErrorCode.AUTH_FORBIDDEN, message)


def admit(caller: Caller | None, op_name: str) -> MemeshError | None:
    """None when `caller` may run the operation `op_name`; else auth.forbidden saying which rule refused it."""
    if caller is None or caller.owner:
        return None
    if caller.role == "admin":
        needed = None
    elif op_name in ADMIN_OPS or op_name in WHOLE_STORE_OPS:
        needed = "admin"
    elif op_name not in READ_OPS and caller.role != "writer":
        needed = "writer"
    else:
        needed = None
    if needed is not None:
        return forbidden(f'"{op_name}" needs the {needed} role; member "{caller.name}" is a {caller.role}')
    if caller.projects is not None and op_name not in SCOPED_OPS:
        return forbidden(f'"{op_name}" is not open to a member scoped to projects')
    return None


def audited(caller: Caller | None, op_name: str) -> bool:
    """Whether a successful call is recorded in the audit: every write a caller on a remote listener makes."""
    return caller is not None and op_name not in AUDITED_SKIP


def scoped(filters: Filters, caller: Caller | None) -> Filters:
    """`filters` narrowed to what `caller` may see: its projects, and `personal` memories only when its own."""
    if caller is None:
        return filters
    return replace(filters, projects=caller.projects, viewer=caller.name, viewer_is_owner=caller.owner)


def counted(caller: Caller | None) -> Filters | None:
    """The view an aggregate (stats, analytics, projects, health's count) counts for `caller`: None — the whole
    store, as before — for a local call and the owner; for a member, what its recall may show it, so no count tells
    it of another project or of another member's `personal` memories."""
    if caller is None or caller.owner:
        return None
    return scoped(Filters(), caller)


def project_tags(projects: Iterable[str]) -> list[str]:
    return [f"{PROJECT_TAG}{project}" for project in projects]


def may_write(caller: Caller | None, stored_tags: Iterable[str] | None, new_tags: Iterable[str]) -> MemeshError | None:
    """None when a scoped member may write this memory: an existing one must already belong to one of its projects
    (`stored_tags`); a new one must be tagged with one (`new_tags`)."""
    if caller is None or caller.projects is None:
        return None
    allowed = set(project_tags(caller.projects))
    tags = stored_tags if stored_tags is not None else new_tags
    if allowed.intersection(tags):
        return None
    shown = ", ".join(sorted(allowed)) or "(none)"
    return forbidden(f'member "{caller.name}" writes only memories tagged with one of its projects: {shown}')


def may_see(caller: Caller | None, namespace: str, author: str | None, tags: Iterable[str]) -> bool:
    """The rule `scoped` puts into SQL, for one memory already read (a lookup by name)."""
    if caller is None:
        return True
    if namespace == "personal" and author != caller.name and not (caller.owner and author is None):
        return False
    return caller.projects is None or bool(set(project_tags(caller.projects)).intersection(tags))
