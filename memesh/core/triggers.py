"""Whether a hook's trigger applies at all, told from what the runner has at hand (the canonical input its host's
module made, with what that host can do): the runner asks before it imports anything else, so the common cases — a
shell command that is not a commit, a prompt in a session that declares no recipient — cost a hook process next to
nothing (docs/adr/0002-hook-startup.md). Only `re`: this module is on every such process's path."""

from __future__ import annotations

import re

TYPE_CHECKING = False  # not typing's: this module is on the path of hooks that import nothing else
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping

# The variable a session declares the recipient its message hooks speak for with.
RECIPIENT_ENV = "MEMESH_RECIPIENT"
# A skip where the post-commit hook's trigger did not apply; doctor leaves such skips out of triggeredRuns.
NOT_A_COMMIT = "not a git commit"
# `git commit`, also after options (`git -C x commit`) or chained (`git add . && git commit -m …`).
_GIT_COMMIT = re.compile(r"(?:^|[;&|(\s])git(?:\s+-[Cc]\s+\S+|\s+--?[\w-]+(?:=\S+)?)*\s+commit(?![\w-])")


def is_git_commit(command: str) -> bool:
    return bool(_GIT_COMMIT.search(command))


def ran_a_commit(kind: object, command: object) -> bool:
    """Whether a tool call was a shell command running `git commit`."""
    return kind == "shell" and isinstance(command, str) and is_git_commit(command)


def plainly_not_a_commit(canonical: dict[str, object]) -> bool:
    """Whether a canonical tool input, not yet checked against its schema, is well-formed enough to read and names
    a tool call that was not a commit (one that is not goes on to the gate, which says what is wrong)."""
    tool = canonical.get("tool")
    if not isinstance(tool, dict) or not isinstance(tool.get("kind"), str) or not tool.get("name"):
        return False
    return not ran_a_commit(tool["kind"], tool.get("command"))


def gate_applies(host: Mapping[str, object]) -> bool:
    """Whether the Stop gate may hold a turn under the host: one whose turn a block holds (another host may load the
    same hooks file, and it must not block)."""
    return bool(host.get("holds_turn"))


def may_name_a_recipient(
    environment: Mapping[str, str], host: Mapping[str, object], channel: Callable[[], bool]
) -> bool:
    """Whether the session can name a recipient at all: MEMESH_RECIPIENT is set, or the host is one the
    memesh-channel names a recipient for and the channel is set up (`channel()`: its host config is there). Without
    one the message hooks have nothing to say, and most sessions have none."""
    if environment.get(RECIPIENT_ENV, "").strip():
        return True
    return bool(host.get("channel")) and channel()
