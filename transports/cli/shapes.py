"""The flag shapes as Cyclopts reads them (`params` hands these out when Cyclopts evaluates a declaration)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated

from cyclopts import Parameter, Token

from memesh.transports.cli.params import whole_number

# `--tags x y` and `--tags x --tags y` both work: a list option takes every value up to the next flag. No
# generated `--empty-…` / `--no-…` twins: each flag is spelled once, as the spec spells it.
Many = Annotated[list[str] | None, Parameter(consume_multiple=True, negative=())]
Switch = Annotated[bool, Parameter(negative=(), show_default=False)]
# Free text may begin with a hyphen (a Markdown list: "- first item"): it is taken as the text, not as a flag.
# Something spelled like a flag (`--bogus`) is still refused as one, by the command.
Text = Annotated[str | None, Parameter(allow_leading_hyphen=True)]


def _whole_number(_type: object, tokens: Sequence[Token]) -> int:
    return whole_number(tokens[-1].value)


# An integer flag (--limit, --port).
Int = Annotated[int, Parameter(converter=_whole_number)]
OptionalInt = Annotated[int | None, Parameter(converter=_whole_number)]
