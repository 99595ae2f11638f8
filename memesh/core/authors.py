"""How an author's name is written down (issue 32): one line, printable characters only, at most 128 of them. The
local `author` setting, an imported bundle's author and the CLI's `--author` all pass through this one rule."""

from __future__ import annotations

AUTHOR_MAX = 128


def shown_author(value: str) -> str | None:
    """`value` as an author is recorded; None when nothing of it is left to name anyone."""
    shown = "".join(ch for ch in " ".join(value.split()) if ch.isprintable())[:AUTHOR_MAX].strip()
    return shown or None


def author_problem(value: str) -> str | None:
    """Why a name a person typed (`--author`) cannot be an author, or None: blank, or over the length."""
    shown = shown_author(value)
    if shown is None:
        return "--author must name someone (it is blank)"
    if len(" ".join(value.split())) > AUTHOR_MAX:
        return f"--author is at most {AUTHOR_MAX} characters"
    return None
