"""The front reads a command line exactly as Cyclopts would, or leaves it to Cyclopts.

Generated command lines (flags, values, hyphens, `--`, repeats, stray words) go to both: whatever the front binds,
Cyclopts binds to the same call; whatever Cyclopts refuses, the front does not take.
"""

from __future__ import annotations

import inspect
import random
from collections.abc import Callable, Sequence
from importlib import import_module
from typing import Any

import pytest
from cyclopts import CycloptsError

from memesh.transports.cli import front, tree
from memesh.transports.cli.commands import DECLARED, WITHOUT_CYCLOPTS

APP = tree.build(lazy=True)
VALUES = ("auth", "two words", "3", "0", "+2", " 4 ", "2.5", "3e0", "", "x=y", "é", "decision", "-3", "- item")
ODD = ("--", "-", "--bogus", "-x", "-h", "--no-json", "--json=true", "--limit=2", "--tag=", "--name=n", "--tags=a")


def _arguments(function: Callable[..., Any], args: Sequence[Any], kwargs: dict[str, Any]) -> dict[str, Any]:
    bound = inspect.signature(function).bind(*args, **kwargs)
    bound.apply_defaults()
    return dict(bound.arguments)


def _cyclopts(argv: list[str]) -> tuple[Callable[..., Any], dict[str, Any]] | None:
    try:
        function, bound, _ = APP.parse_args(argv, exit_on_error=False, print_error=False, help_on_error=False)
    except CycloptsError:
        return None
    return function, _arguments(function, bound.args, bound.kwargs)


def _signature(command: str) -> Any:
    module, _, attribute = DECLARED[command].partition(":")
    signature = front._signature(getattr(import_module(module), attribute))
    assert signature is not None, f"{command} is not readable by the front"
    return signature


def _lines(command: str, count: int, seed: int) -> list[list[str]]:
    """Command lines made of pieces: a flag and values for it, a flag alone, a bare word, an odd token; the
    required flags usually among them."""
    signature = _signature(command)
    chooser = random.Random(seed)

    def piece(flag: str) -> list[str]:
        shape = signature.flags[flag][1]
        if shape == "switch":
            return [flag]
        values = chooser.choices(VALUES, k=chooser.randint(1, 3) if shape == "many" else 1)
        return [flag, *values] if chooser.random() > 0.1 else [flag]

    lines = []
    flags = sorted(signature.flags)
    required = [flag for flag, (name, _) in signature.flags.items() if name in signature.required]
    for _ in range(count):
        pieces = [piece(flag) for flag in required if chooser.random() < 0.85]
        for _ in range(chooser.randint(0, 4)):
            roll = chooser.random()
            if roll < 0.55 and flags:
                pieces.append(piece(chooser.choice(flags)))
            elif roll < 0.8:
                pieces.append([chooser.choice(VALUES)])
            else:
                pieces.append([chooser.choice(ODD)])
        chooser.shuffle(pieces)
        lines.append([command, *(token for part in pieces for token in part)])
    return lines


@pytest.mark.parametrize("command", sorted(WITHOUT_CYCLOPTS))
def test_every_line_the_front_reads_binds_the_call_cyclopts_binds(command: str) -> None:
    read = 0
    for argv in _lines(command, 500, seed=sum(map(ord, command))):
        ours = front.read(argv)
        if ours is None:
            continue
        read += 1
        theirs = _cyclopts(argv)
        assert theirs is not None, f"Cyclopts refuses {argv}, the front read it"
        function, arguments = theirs
        assert (ours.function, _arguments(ours.function, ours.args, ours.kwargs)) == (function, arguments), argv
    assert read > 0


@pytest.mark.parametrize(
    "argv",
    [
        ["recall", "auth", "--json"],
        ["recall", "auth", "flow", "--limit", "5", "--tag", "project:x", "--json"],
        ["remember", "a note about the cache", "--json"],
        ["remember", "--name", "n", "--type", "decision", "--obs", "one", "two", "--tags", "a:b", "--json"],
        ["briefing"],
        ["briefing", "--project", "p", "--json"],
        ["forget", "--name", "n"],
        ["task", "--goal", "g"],
        ["why", "file.py", "--line", "3"],
    ],
)
def test_the_hot_command_lines_are_read_by_the_front(argv: list[str]) -> None:
    assert front.read(argv) is not None


@pytest.mark.parametrize(
    "argv",
    [
        ["recall", "--", "--json"],
        ["recall", "auth", "--limit", "2.5"],
        ["recall", "--json", "--json"],
        ["remember", "- a list item"],
        ["remember", "--bogus"],
        ["remember", "one", "two"],
        ["forget"],
        ["export", "--limit", "3"],
        ["message", "send"],
        [],
    ],
)
def test_what_the_front_cannot_read_plainly_goes_to_cyclopts(argv: list[str]) -> None:
    assert front.read(argv) is None
