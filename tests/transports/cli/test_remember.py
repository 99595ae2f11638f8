"""memesh remember: the note form, the structured form, text with flags, relations, and how each one reports."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tests.transports.cli.conftest import Cli


def test_text_alone_is_a_note_and_the_output_echoes_its_derived_title(cli: Cli) -> None:
    out = cli.ok("remember", "Use PKCE for the public client")
    first, second = out.out.splitlines()
    assert first.startswith('✅ Stored "use-pkce-for-the-public-client-')
    assert first.endswith('" (1 observations, 0 tags)')
    assert second == "   title: Use PKCE for the public client"


def test_note_form_with_json_prints_the_remember_output_with_what_it_derived(cli: Cli) -> None:
    out = cli.ok(
        "remember", "Why sessions\n\nNo refresh dance.\n\n- revocable\n- simple", "--type", "decision", "--json"
    )
    body = out.json()
    assert body["type"] == "decision"
    assert body["title"] == "Why sessions"
    assert body["derived"]["observations"] == ["No refresh dance.", "revocable", "simple"]
    assert "\n" not in out.out.strip()  # compact: one line


def test_note_form_keeps_type_tags_and_namespace(cli: Cli) -> None:
    cli.ok("remember", "Team rule", "--tags", "a", "b", "--namespace", "team")
    entity = cli.ok("recall", "--json").json()["entities"][0]
    assert entity["tags"] == ["a", "b"]
    assert entity["namespace"] == "team"
    assert entity["type"] == "note"


def test_structured_form_stores_name_type_title_and_observations(cli: Cli) -> None:
    out = cli.ok(
        "remember", "--name", "auth", "--type", "decision", "--title", "Auth", "--obs", "PKCE", "no implicit", "--json"
    ).json()
    assert (out["name"], out["type"], out["title"], out["observations"]) == ("auth", "decision", "Auth", 2)
    assert cli.ok("recall", "auth", "--json").json()["entities"][0]["observations"] == ["PKCE", "no implicit"]


def test_structured_human_output_prints_no_title_line(cli: Cli) -> None:
    out = cli.ok("remember", "--name", "auth", "--type", "decision", "--title", "Auth", "--obs", "PKCE")
    assert out.out.splitlines() == ['✅ Stored "auth" (1 observations, 0 tags)']


def test_list_flags_take_several_values_after_one_flag_or_one_per_repeated_flag(cli: Cli) -> None:
    cli.ok("remember", "--name", "one", "--type", "t", "--obs", "a", "b", "--tags", "x", "y")
    cli.ok("remember", "--name", "two", "--type", "t", "--obs", "a", "--obs", "b", "--tags", "x", "--tags", "y")
    entities = {e["name"]: e for e in cli.ok("recall", "--json").json()["entities"]}
    for name in ("one", "two"):
        assert entities[name]["observations"] == ["a", "b"]
        assert entities[name]["tags"] == ["x", "y"]


def test_text_with_obs_keeps_the_text_observations_first_and_derives_title_and_name(cli: Cli) -> None:
    text = "Auth choice\n\nWe use PKCE.\n\n- no implicit\n- rotate refresh tokens"
    out = cli.ok("remember", text, "--obs", "extra one", "--json").json()
    assert out["title"] == "Auth choice"
    assert out["type"] == "note"
    assert out["name"].startswith("auth-choice-")
    assert "derived" not in out  # the structured path, not the note form
    entity = cli.ok("recall", "--json").json()["entities"][0]
    assert entity["observations"] == ["We use PKCE.", "no implicit", "rotate refresh tokens", "extra one"]


def test_text_with_obs_echoes_the_derived_title(cli: Cli) -> None:
    out = cli.ok("remember", "Auth choice\n\nWe use PKCE.", "--obs", "extra")
    assert "   title: Auth choice" in out.out.splitlines()


def test_an_explicit_title_wins_and_the_first_line_is_kept_as_an_observation(cli: Cli) -> None:
    out = cli.ok("remember", "Auth choice\n\nWe use PKCE.", "--title", "Auth", "--json").json()
    assert out["title"] == "Auth"
    entity = cli.ok("recall", "--json").json()["entities"][0]
    assert entity["observations"] == ["Auth choice", "We use PKCE."]


def test_text_under_a_new_name_is_a_note_of_type_note_without_type(cli: Cli) -> None:
    out = cli.ok("remember", "--name", "notey", "some note text", "--json").json()
    assert (out["name"], out["type"], out["title"]) == ("notey", "note", "some note text")
    out = cli.ok("remember", "Some text", "--name", "n", "--type", "fact", "--json").json()
    assert (out["name"], out["type"], out["title"]) == ("n", "fact", "Some text")


def test_obs_or_title_under_a_name_still_need_a_type(cli: Cli) -> None:
    for extra in (["--obs", "o"], ["--title", "t"]):
        refused = cli("remember", "Some text", "--name", "n", *extra)
        assert refused.code == 1
        assert "type:" in refused.err
    assert cli("remember", "--name", "n", "--obs", "o").code == 1


def test_text_with_obs_is_refused_over_100_observations_counting_both(cli: Cli) -> None:
    text = "\n".join(f"- item {i}" for i in range(103))  # one line becomes the title, 102 remain
    alone = cli("remember", "--", text)  # `--`: the text starts with "-", which would read as an option
    assert alone.code == 1
    assert "note yields 102 observations; at most 100 are stored per memory" in alone.err
    combined = cli("remember", "--obs", "extra one", "--", text)
    assert combined.code == 1
    assert "that is 103 observations; at most 100 are stored per memory." in combined.err
    assert cli.ok("recall", "--json").json()["entities"] == []


def test_the_cap_refusal_under_json_is_a_json_body_with_its_code(cli: Cli) -> None:
    text = "\n".join(f"- item {i}" for i in range(103))
    out = cli("remember", "--obs", "x", "--json", "--", text)
    assert out.code == 1
    assert out.json()["errorCode"] == "validation.bad-body"


def test_replace_requires_name(cli: Cli) -> None:
    out = cli("remember", "text", "--obs", "x", "--replace")
    assert out.code == 2
    assert "--replace requires --name" in out.err


def test_replace_without_type_keeps_the_stored_type_and_rewrites_observations(cli: Cli) -> None:
    cli.ok("remember", "--name", "auth", "--type", "decision", "--obs", "implicit flow")
    out = cli.ok("remember", "--name", "auth", "--obs", "PKCE, not implicit", "--replace", "--json").json()
    assert out["type"] == "decision"
    assert out["replaced"] is True
    assert cli.ok("recall", "--json").json()["entities"][0]["observations"] == ["PKCE, not implicit"]


def test_replace_with_a_type_reclassifies(cli: Cli) -> None:
    cli.ok("remember", "--name", "auth", "--type", "decision", "--obs", "x")
    out = cli.ok("remember", "--name", "auth", "--type", "pattern", "--obs", "y", "--replace", "--json").json()
    assert out["type"] == "pattern"


def test_a_relation_to_a_missing_target_is_reported_on_stderr_and_exits_1(cli: Cli) -> None:
    out = cli("remember", "--name", "new", "--type", "decision", "--obs", "x", "--supersedes", "ghost")
    assert out.code == 1
    assert out.out.startswith('✅ Stored "new"')  # the memory itself is stored
    assert out.err.splitlines() == ['   ⚠️  Relation to "ghost" failed: Entity not found: ghost']


def test_a_missing_relation_target_exits_1_with_json_too(cli: Cli) -> None:
    out = cli("remember", "--name", "new", "--type", "decision", "--obs", "x", "--contradicts", "ghost", "--json")
    assert out.code == 1
    assert out.json()["relationErrors"] == ['Relation to "ghost" failed: Entity not found: ghost']


def test_supersedes_archives_its_targets_and_says_so(cli: Cli) -> None:
    cli.ok("remember", "--name", "v1", "--type", "decision", "--obs", "one")
    cli.ok("remember", "--name", "v0", "--type", "decision", "--obs", "zero")
    out = cli.ok("remember", "--name", "v2", "--type", "decision", "--obs", "two", "--supersedes", "v1", "v0")
    assert "   archived as superseded: v1, v0" in out.out.splitlines()
    names = [e["name"] for e in cli.ok("recall", "--json").json()["entities"]]
    assert names == ["v2"]


def test_relations_are_supersedes_then_contradicts(cli: Cli) -> None:
    for name in ("a", "b", "c"):
        cli.ok("remember", "--name", name, "--type", "t", "--obs", name)
    out = cli.ok(
        "remember", "--name", "d", "--type", "t", "--obs", "d", "--contradicts", "a", "--supersedes", "b", "c", "--json"
    ).json()
    assert out["relationsCreated"] == [
        {"to": "b", "type": "supersedes"},
        {"to": "c", "type": "supersedes"},
        {"to": "a", "type": "contradicts"},
    ]


def test_contradicts_names_the_conflicts_created_and_not_the_failed_ones(cli: Cli) -> None:
    cli.ok("remember", "--name", "use-jwt", "--type", "decision", "--obs", "JWT")
    out = cli("remember", "--name", "no-jwt", "--type", "decision", "--obs", "no", "--contradicts", "use-jwt", "ghost")
    assert out.code == 1
    assert "   conflicts stated: use-jwt" in out.out.splitlines()


def test_moving_a_memory_says_where_it_was_and_how_to_put_it_back(cli: Cli) -> None:
    cli.ok("remember", "--name", "m", "--type", "t", "--obs", "x")
    out = cli.ok("remember", "--name", "m", "--type", "t", "--obs", "y", "--namespace", "team")
    assert (
        "   moved: personal → team (was in personal; re-run with --namespace personal to put it back)"
        in out.out.splitlines()
    )


def test_a_validation_failure_prints_the_field_and_message_on_stderr(cli: Cli) -> None:
    out = cli("remember", "--name", "m", "--type", "t", "--obs", "x", "--namespace", "everywhere")
    assert out.code == 1
    assert out.out == ""
    assert out.err.startswith("Error: namespace: ")


def test_nothing_to_remember_is_a_usage_error(cli: Cli) -> None:
    assert cli("remember").code == 2
    assert cli("remember", "--obs", "orphan").code == 2


def test_text_under_an_existing_name_appends_and_keeps_the_stored_title(cli: Cli) -> None:
    cli.ok("remember", "--name", "m", "--type", "decision", "--title", "Original title", "--obs", "first")
    out = cli.ok("remember", "Some appended text", "--name", "m", "--type", "decision", "--json").json()
    assert out["title"] == "Original title"
    out = cli.ok("remember", "Other appended text", "--obs", "extra", "--name", "m", "--type", "decision", "--json")
    assert out.json()["title"] == "Original title"
    [entity] = cli.ok("recall", "--json").json()["entities"]
    assert entity["observations"] == ["first", "Some appended text", "Other appended text", "extra"]


def test_text_under_a_new_name_is_titled_from_the_text_on_both_paths(cli: Cli) -> None:
    assert cli.ok("remember", "Fresh text", "--name", "a", "--type", "fact", "--json").json()["title"] == "Fresh text"
    out = cli.ok("remember", "Fresh text two", "--obs", "x", "--name", "b", "--type", "fact", "--json").json()
    assert out["title"] == "Fresh text two"


def test_text_with_replace_rewrites_the_title_too(cli: Cli) -> None:
    cli.ok("remember", "--name", "m", "--type", "decision", "--title", "Old", "--obs", "first")
    out = cli.ok("remember", "New headline", "--name", "m", "--replace", "--json").json()
    assert (out["title"], out["type"], out["replaced"]) == ("New headline", "decision", True)


def test_text_that_starts_with_a_list_marker_is_text_not_a_flag(cli: Cli) -> None:
    out = cli.ok("remember", "- use PKCE\n- no implicit flow", "--json").json()
    assert (out["title"], out["derived"]["observations"]) == ("use PKCE", ["no implicit flow"])
    assert cli.ok("remember", "-5 degrees outside", "--json").json()["title"] == "-5 degrees outside"


def test_text_that_reads_like_a_flag_is_text_after_double_dash(cli: Cli) -> None:
    assert cli.ok("remember", "--json", "--", "--looks-like-flag").json()["title"] == "--looks-like-flag"
    assert cli.ok("remember", "--name", "n", "--json", "--", "-x").json()["title"] == "-x"


def test_a_mistyped_flag_is_still_refused_as_one(cli: Cli) -> None:
    refused = cli("remember", "--bogus")
    assert refused.code == 2
    assert "Unknown option: --bogus" in refused.err


def test_a_near_miss_type_is_refused_with_the_type_it_misses_and_nothing_is_stored(cli: Cli) -> None:
    refused = cli("remember", "--name", "auth", "--type", "desicion", "--obs", "PKCE")
    assert refused.code == 2 and "decision" in refused.err
    assert cli.ok("recall", "--json").json()["entities"] == []


def test_a_type_given_to_an_existing_memory_is_said_to_keep_the_stored_one(cli: Cli) -> None:
    cli.ok("remember", "--name", "auth", "--type", "decision", "--obs", "PKCE")
    out = cli.ok("remember", "--name", "auth", "--type", "fact", "--obs", "no implicit", "--json")
    body = out.json()
    assert body["type"] == "decision" and len(body["warnings"]) == 1
    assert "decision" in body["warnings"][0]
