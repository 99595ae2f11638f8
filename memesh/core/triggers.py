"""Whether a hook's trigger applies at all, told from the host's payload alone: the hook runner asks before it
imports anything else, so the common case — a Bash call that is not a commit — costs a hook process next to nothing
(docs/adr/0002-hook-startup.md). Only `re`: this module is on every such process's path."""

from __future__ import annotations

import re

# A skip where the post-commit hook's trigger did not apply; doctor leaves such skips out of triggeredRuns.
NOT_A_COMMIT = "not a git commit"
# `git commit`, also after options (`git -C x commit`) or chained (`git add . && git commit -m …`).
_GIT_COMMIT = re.compile(r"(?:^|[;&|(\s])git(?:\s+-[Cc]\s+\S+|\s+--?[\w-]+(?:=\S+)?)*\s+commit(?![\w-])")


def is_git_commit(command: str) -> bool:
    return bool(_GIT_COMMIT.search(command))


def ran_a_commit(tool_name: object, command: object) -> bool:
    """Whether a tool call was a Bash command running `git commit`."""
    return tool_name == "Bash" and isinstance(command, str) and is_git_commit(command)


def plainly_not_a_commit(payload: dict[str, object]) -> bool:
    """Whether a PostToolUse payload, not yet checked against its schema, is well-formed enough to read and names
    a tool call that was not a commit (a payload that is not goes on to the gate, which says what is wrong)."""
    tool_name, tool_input = payload.get("tool_name"), payload.get("tool_input")
    if not isinstance(tool_name, str) or not tool_name or not isinstance(tool_input, dict):
        return False
    return not ran_a_commit(tool_name, tool_input.get("command"))
