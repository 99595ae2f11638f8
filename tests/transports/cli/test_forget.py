"""memesh forget: exit 0 only when something was archived or removed, with --json as much as without."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tests.transports.cli.conftest import Cli


def _store(cli: Cli) -> None:
    cli.ok("remember", "--name", "auth", "--type", "decision", "--obs", "one", "two")


def test_forgetting_a_memory_archives_it(cli: Cli) -> None:
    _store(cli)
    assert cli.ok("forget", "--name", "auth").out == '📦 Archived "auth"\n'
    assert cli.ok("recall", "--json").json()["entities"] == []


def test_removing_an_observation_says_how_many_remain(cli: Cli) -> None:
    _store(cli)
    assert cli.ok("forget", "--name", "auth", "--observation", "one").out == "✂️  Removed observation (1 remaining)\n"
    assert cli.ok("recall", "--json").json()["entities"][0]["observations"] == ["two"]


def test_json_success_is_the_forget_output(cli: Cli) -> None:
    _store(cli)
    assert cli.ok("forget", "--name", "auth", "--json").json() == {"archived": True, "name": "auth"}


def test_a_missing_memory_exits_1_with_the_message_on_stderr(cli: Cli) -> None:
    out = cli("forget", "--name", "ghost")
    assert out.code == 1
    assert out.out == ""
    assert "ghost" in out.err


def test_a_missing_memory_exits_1_under_json_with_the_failure_body(cli: Cli) -> None:
    out = cli("forget", "--name", "ghost", "--json")
    assert out.code == 1
    body = out.json()
    assert body["archived"] is False
    assert body["errorCode"] == "resource.not-found"
    assert "ghost" in body["error"]


def test_an_observation_that_matches_nothing_exits_1_and_reports_what_is_there(cli: Cli) -> None:
    _store(cli)
    out = cli("forget", "--name", "auth", "--observation", "three", "--json")
    assert out.code == 1
    body = out.json()
    assert (body["observation_removed"], body["entity_found"], body["remaining_observations"]) == (False, True, 2)
    human = cli("forget", "--name", "auth", "--observation", "three")
    assert human.code == 1
    assert "2 observation(s) present" in human.err


def test_name_is_required(cli: Cli) -> None:
    assert cli("forget").code == 2


def test_an_empty_observation_is_refused_by_the_schema(cli: Cli) -> None:
    _store(cli)
    out = cli("forget", "--name", "auth", "--observation", "")
    assert out.code == 1
    assert out.err.startswith("Error: observation: ")


def test_forgetting_an_archived_memory_changes_nothing_and_exits_1(cli: Cli) -> None:
    _store(cli)
    cli.ok("forget", "--name", "auth")
    again = cli("forget", "--name", "auth")
    assert again.code == 1
    assert again.err == 'Error: "auth" was already archived: nothing changed\n'
    as_json = cli("forget", "--name", "auth", "--json")
    assert as_json.code == 1
    assert as_json.json() == {"archived": True, "already_archived": True, "name": "auth"}
