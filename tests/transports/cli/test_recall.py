"""memesh recall: the human listing (display caps, notes, conflicts) and the size-capped --json envelope."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tests.transports.cli.conftest import Cli

CAP_NOTE = " (search limit reached — more may match; raise --limit)"


def test_each_memory_shows_name_type_and_at_most_three_observations(cli: Cli) -> None:
    cli.ok("remember", "--name", "auth", "--type", "decision", "--obs", "one", "two", "three", "four", "five")
    out = cli.ok("recall", "auth")
    assert out.out.splitlines() == [
        "  auth (decision)",
        "    - one",
        "    - two",
        "    - three",
        "    ... +2 more",
        "",
        "1 result(s)",
    ]


def test_an_archived_memory_is_badged(cli: Cli) -> None:
    cli.ok("remember", "--name", "old", "--type", "decision", "--obs", "x")
    cli.ok("forget", "--name", "old")
    assert cli.ok("recall", "--include-archived").out.splitlines()[0] == "  old [archived] (decision)"


def test_an_observation_over_500_characters_is_cut_on_display_with_the_count_left(cli: Cli) -> None:
    cli.ok("remember", "--name", "long", "--type", "t", "--obs", "a" * 620)
    line = cli.ok("recall", "long").out.splitlines()[1]
    assert line == f"    - {'a' * 500} … (+120 more chars)"


def test_an_observation_of_exactly_500_characters_is_shown_whole(cli: Cli) -> None:
    cli.ok("remember", "--name", "long", "--type", "t", "--obs", "b" * 500)
    assert cli.ok("recall", "long").out.splitlines()[1] == f"    - {'b' * 500}"


def test_an_observation_the_size_cap_cut_points_to_the_dashboard(cli: Cli) -> None:
    cli.ok("remember", "--name", "huge", "--type", "t", "--obs", "c" * 9000, "second")
    envelope = cli.ok("recall", "huge", "--json").json()
    assert envelope["entities"][0]["truncated"]["observations"] == {"shown": 1, "total": 2}
    lines = cli.ok("recall", "huge").out.splitlines()
    assert lines[1] == f"    - {'c' * 500} … (cut; full text in the dashboard)"
    assert lines[2] == "    ... +1 more"  # counted from the full total, not from what the cap kept


def test_a_full_limit_window_says_more_may_match(cli: Cli) -> None:
    for name in ("a", "b", "c"):
        cli.ok("remember", "--name", f"jwt-{name}", "--type", "t", "--obs", "jwt rotation")
    assert cli.ok("recall", "jwt", "--limit", "2").out.splitlines()[-1] == f"2 result(s){CAP_NOTE}"
    assert cli.ok("recall", "jwt", "--limit", "5").out.splitlines()[-1] == "3 result(s)"


def test_entities_left_out_for_size_are_counted(cli: Cli) -> None:
    for index in range(6):
        cli.ok("remember", "--name", f"big-{index}", "--type", "t", "--obs", f"big {'d' * 9000}")
    envelope = cli.ok("recall", "big", "--json").json()
    omitted = envelope["entities_omitted"]
    assert omitted["total"] == 6
    assert omitted["shown"] < 6
    lines = cli.ok("recall", "big").out.splitlines()
    assert lines[-1] == (
        f"({6 - omitted['shown']} more result(s) omitted to keep the response under size — narrow the query, "
        "or open the dashboard for the full text)"
    )
    assert lines[-2] == f"{omitted['shown']} result(s)"


def test_conflicts_are_warned_about_below_the_results(cli: Cli) -> None:
    cli.ok("remember", "--name", "use-jwt", "--type", "decision", "--obs", "JWT everywhere")
    cli.ok("remember", "--name", "no-jwt", "--type", "decision", "--obs", "JWT is out", "--contradicts", "use-jwt")
    lines = cli.ok("recall", "jwt").out.splitlines()
    assert lines[-2:] == ["", 'Warning: Conflicts detected: "no-jwt" contradicts "use-jwt"']
    assert cli.ok("recall", "jwt", "--json").json()["conflicts"] == ['"no-jwt" contradicts "use-jwt"']


def test_no_results_says_whether_a_query_was_searched(cli: Cli) -> None:
    assert cli.ok("recall").out == "No results found.\n"
    assert cli.ok("recall", "nothing").out == "No results found in the keyword index.\n"


def test_json_is_the_capped_envelope_without_file_tags(cli: Cli) -> None:
    cli.ok("remember", "--name", "huge", "--type", "t", "--obs", "e" * 9000, "--tags", "file:auth.ts", "topic:auth")
    envelope = cli.ok("recall", "--json").json()
    assert envelope["retrieval"] == {"mode": "fts", "truncated": False}
    assert envelope["truncated"] is True
    entity = envelope["entities"][0]
    assert entity["tags"] == ["topic:auth"]
    assert entity["observations"][0].endswith("more bytes)")
    assert len(entity["observations"][0].encode()) < 8 * 1024


def test_filters_pass_through_to_recall(cli: Cli) -> None:
    cli.ok("remember", "--name", "a", "--type", "t", "--obs", "alpha", "--tags", "project:x", "--namespace", "team")
    cli.ok("remember", "--name", "b", "--type", "t", "--obs", "alpha", "--tags", "project:y")

    def names(*flags: str) -> list[str]:
        return [e["name"] for e in cli.ok("recall", "alpha", "--json", *flags).json()["entities"]]

    assert names("--tag", "project:x") == ["a"]
    assert names("--namespace", "personal") == ["b"]
    assert sorted(names("--tag", "project:x", "--cross-project")) == ["a", "b"]


def test_a_bad_limit_is_refused_with_the_field_named(cli: Cli) -> None:
    out = cli("recall", "x", "--limit", "0")
    assert out.code == 1
    assert out.err.startswith("Error: limit: ")
    assert cli("recall", "x", "--limit", "many").code == 2


def test_a_titled_memory_shows_its_title_then_the_name_to_address_it_by(cli: Cli) -> None:
    cli.ok("remember", "--name", "auth", "--type", "decision", "--title", "Why we chose PKCE", "--obs", "pkce")
    assert cli.ok("recall", "pkce").out.splitlines()[0] == "  Why we chose PKCE — auth (decision)"


def test_unquoted_words_are_one_query(cli: Cli) -> None:
    cli.ok("remember", "--name", "a", "--type", "fact", "--obs", "apple pie")
    cli.ok("remember", "--name", "b", "--type", "fact", "--obs", "banana split")
    names = {entity["name"] for entity in cli.ok("recall", "apple", "banana", "--json").json()["entities"]}
    assert names == {"a", "b"}
