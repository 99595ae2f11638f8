"""update_status: this installation's version against the newest release, and how to update (GET /v1/update-status).

The lookup is handed in (`update_fetch`), so tests and offline machines never reach the network; without one, or
with `cached`, the answer is built from the cache alone.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Protocol, cast

from returns.result import Result, Success

import memesh
from memesh.context import CallContext
from memesh.core import update as rules
from memesh.errors import MemeshError
from memesh.generated.http.update_status_input import UpdateStatusInput
from memesh.generated.http.update_status_output import UpdateStatus

CHECKS_OFF = "update checks are turned off (MEMESH_UPDATE_CHECK=0)"


class UpdateCache(Protocol):
    def read(self) -> rules.CheckRecord: ...
    def write(self, record: rules.CheckRecord) -> None: ...


class UpdateSource(Protocol):
    """Where the answer comes from: the cache of the last check, the package-index lookup (None: never asked), and
    how this copy was installed."""

    @property
    def update_cache(self) -> UpdateCache: ...
    @property
    def update_fetch(self) -> Callable[[], str | None] | None: ...
    def install_channel(self) -> rules.Channel: ...


def check(
    cache: UpdateCache, fetch: Callable[[], str | None] | None, *, cached_only: bool, ctx: CallContext
) -> tuple[rules.CheckRecord, bool]:
    """The record to answer from, and whether it came live from the index now (a lookup's outcome is cached)."""
    record = cache.read()
    if cached_only:
        return record, False
    if fetch is None:
        # Nothing is asked, so nothing is recorded: the answer says why it has no fresh knowledge.
        return rules.after_failure(record, CHECKS_OFF, ctx.now), False
    try:
        latest = fetch()
    except rules.CheckFailed as exc:
        record = rules.after_failure(record, str(exc), ctx.now)
        cache.write(record)
        return record, False
    record = rules.after_success(record, latest, ctx.now)
    cache.write(record)
    return record, True


def update_status(
    source: UpdateSource, request: UpdateStatusInput, /, *, ctx: CallContext
) -> Result[UpdateStatus, MemeshError]:
    """The status, preferring a fresh lookup unless `cached`; a failed lookup answers from the cache with
    checkSucceeded false and lastError, never a failure."""
    record, live = check(source.update_cache, source.update_fetch, cached_only=bool(request.get("cached")), ctx=ctx)
    current, channel = memesh.__version__, source.install_channel()
    return Success(cast(UpdateStatus, rules.status(record, current=current, channel=channel, now=ctx.now, live=live)))


def session_notice(
    cache: UpdateCache,
    fetch: Callable[[], str | None] | None,
    *,
    current: str,
    channel: rules.Channel,
    limit: str,
    ctx: CallContext,
) -> str | None:
    """The update notice for one MCP session (None when there is nothing to say), remembering this version as seen.

    A cached answer younger than a day is reused rather than asking the index again at every server start.
    """
    record = cache.read()
    fresh_enough = rules.freshness(record, ctx.now, live=False) == "cached"
    record, live = check(cache, fetch, cached_only=fresh_enough or fetch is None, ctx=ctx)
    answer = rules.status(record, current=current, channel=channel, now=ctx.now, live=live)
    text = rules.notice(answer, previous_version=record.last_seen_version, limit=limit)
    if record.last_seen_version != current:
        cache.write(replace(cache.read(), last_seen_version=current))
    return text
