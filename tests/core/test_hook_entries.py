"""memesh.core.hook_entries: the one merge both installers use, over groups of entries and over flat entries."""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from memesh.core import hook_entries

OURS = {"type": "command", "command": "/venv/bin/memesh-hook stop"}
NEWER = {"type": "command", "command": '"/new path/memesh-hook" stop'}

foreign = st.fixed_dictionaries({"command": st.text(max_size=30).filter(lambda c: "memesh-hook" not in c)})
# An event holds at least one item: one the user left empty and MeMesh then filled cannot be told from one MeMesh
# made, and goes with MeMesh's entries.
flat = st.lists(foreign, min_size=1, max_size=3)
grouped = st.lists(st.fixed_dictionaries({"matcher": st.text(max_size=5), "hooks": flat}), min_size=1, max_size=3)
hooks = st.dictionaries(st.sampled_from(["Stop", "agentStop", "other"]), flat | grouped, max_size=3)


@given(hooks=hooks)
def test_merging_in_twice_is_merging_in_once_and_merging_nothing_gives_back_the_users_own(
    hooks: dict[str, Any],
) -> None:
    wanted: dict[str, list[Any]] = {"Stop": [{"hooks": [OURS]}], "agentStop": [OURS]}
    once = hook_entries.merged(hooks, wanted)
    assert hook_entries.merged(once, wanted) == once
    assert hook_entries.merged(once, {}) == hooks
    for event, items in hooks.items():
        assert once[event][: len(items)] == items


def test_a_newer_path_replaces_the_older_entry_and_a_group_of_only_ours_goes_with_it() -> None:
    hooks = {"Stop": [{"hooks": [OURS]}, {"matcher": "x", "hooks": [{"command": "mine"}, OURS]}], "agentStop": [OURS]}
    assert hook_entries.merged(hooks, {"agentStop": [NEWER]}) == {
        "Stop": [{"matcher": "x", "hooks": [{"command": "mine"}]}],
        "agentStop": [NEWER],
    }


def test_an_event_the_user_left_empty_stays_and_one_emptied_of_ours_goes() -> None:
    assert hook_entries.merged({"Notification": [], "Stop": [OURS], "odd": 3}, {}) == {"Notification": [], "odd": 3}


def test_an_entry_is_ours_by_the_event_its_command_ends_with() -> None:
    assert hook_entries.ours({"bash": "memesh-hook pre-tool-use", "env": {}}) == "pre-tool-use"
    assert hook_entries.ours({"command": "'/a b/memesh-hook' stop-gate "}) == "stop-gate"
    assert hook_entries.ours({"command": "memesh-hook stop && rm -rf /"}) is None
    assert hook_entries.ours({"command": 3}) is None
    assert hook_entries.quote("/a b/memesh-hook") == '"/a b/memesh-hook"'
