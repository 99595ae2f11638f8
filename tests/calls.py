"""Calls through the one door (`dispatch.run`) on a database a test already opened."""

from __future__ import annotations

from typing import Any

from returns.result import Result

from memesh.app import dispatch
from memesh.app.registry import Op
from memesh.app.resources import Resources
from memesh.context import CallContext
from memesh.core.query import MatchPlan
from memesh.errors import MemeshError
from memesh.store.open import Store


def call(
    name: str, store: Store, arguments: Any, ctx: CallContext, *, nulls_mean_absent: bool = False
) -> Result[Any, MemeshError]:
    """The tool called `name`, as every transport calls it, on `store` (left open)."""
    return dispatch.call(name, Resources.over(store), arguments, ctx, nulls_mean_absent=nulls_mean_absent)


def run(op: Op[Any, Any, Any], store: Store, arguments: Any, ctx: CallContext) -> Result[Any, MemeshError]:
    """`op` through the door on `store` (left open)."""
    return dispatch.run(op, Resources.over(store), arguments, ctx)


def match(*terms: str) -> MatchPlan:
    """A plan that matches any of `terms` (as a recall of one or two words is planned), for a store's search."""
    return MatchPlan(terms=terms, dropped=(), modes=("any",))
