"""Flag shapes shared by the `memesh` command declarations (imported at start-up: Cyclopts only)."""

from __future__ import annotations

from typing import Annotated

from cyclopts import Parameter

# `--tags x y` and `--tags x --tags y` both work: a list option takes every value up to the next flag. No
# generated `--empty-…` / `--no-…` twins: each flag is spelled once, as the spec spells it.
Many = Annotated[list[str] | None, Parameter(consume_multiple=True, negative=())]
Switch = Annotated[bool, Parameter(negative=(), show_default=False)]
