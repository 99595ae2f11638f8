"""Which of the router's live registrations a request reaches: pure rules over what the router holds in memory
(docs/adr/0004-message-router.md). Exact-session delivery needs no rule: it goes to that session id or nowhere.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Protocol, TypeVar

from memesh.core.messages import DISCOVER_DEFAULT_LIMIT

DISCOVER_MAX = 100


class Registration(Protocol):
    """What the rules read of one registration the router holds."""

    @property
    def session_id(self) -> str: ...
    @property
    def principal_id(self) -> str: ...
    @property
    def project(self) -> str: ...
    @property
    def activated(self) -> bool: ...
    @property
    def order(self) -> int: ...
    def live(self) -> bool: ...


R = TypeVar("R", bound=Registration)


def push_target(registrations: Iterable[R], project: Any, principal: Any, intended: Any) -> R | None:
    """The one session a principal message is pushed to, or None: of the live, activated registrations in `project`
    under `principal` (only `intended` when it is given), the newest to register."""
    eligible = [
        each
        for each in registrations
        if each.project == project
        and each.principal_id == principal
        and each.activated
        and each.live()
        and (intended is None or each.session_id == intended)
    ]
    return max(eligible, key=lambda each: each.order) if eligible else None


def discovered(registrations: Iterable[R], project: Any, asked_limit: Any) -> list[R]:
    """What discover lists: the live registrations in `project` by principal then session id, at most the limit
    asked for (1..100; 50 when none is asked)."""
    limit = asked_limit if isinstance(asked_limit, int) else DISCOVER_DEFAULT_LIMIT
    found = sorted(
        (each for each in registrations if each.project == project and each.live()),
        key=lambda each: (each.principal_id, each.session_id),
    )
    return found[: max(1, min(DISCOVER_MAX, limit))]
