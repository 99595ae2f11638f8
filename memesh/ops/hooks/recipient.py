"""The recipient a session's hooks speak for: the one it declares with MEMESH_RECIPIENT, or — under the host the
memesh-channel serves, with the channel set up — `principal_id` of the channel's owner-private host file. Without
one, the message hooks and SessionStart's inbox notice stay quiet (spec, `message`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from memesh.core.triggers import RECIPIENT_ENV

if TYPE_CHECKING:
    from collections.abc import Mapping

RECIPIENT_MAX = 200  # what the message tool and the briefing accept


class RecipientSources(Protocol):
    @property
    def environment(self) -> Mapping[str, str]: ...
    def channel_principal(self) -> str: ...


def declared_recipient(sources: RecipientSources, *, channel: bool) -> tuple[str | None, str | None]:
    """(the recipient, None), (None, why the declared one is refused), or (None, None) when none is declared."""
    declared = sources.environment.get(RECIPIENT_ENV, "").strip()
    if declared:
        from returns.result import Success

        from memesh.core.messages import canonical_scope

        checked = canonical_scope("recipient", declared)
        if not isinstance(checked, Success) or len(checked.unwrap()) > RECIPIENT_MAX:
            return None, f"{RECIPIENT_ENV} is not a valid recipient"
        return str(checked.unwrap()), None
    if channel:  # the host is the one the memesh-channel names a recipient for
        return sources.channel_principal() or None, None
    return None, None
