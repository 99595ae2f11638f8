"""memesh import FILE: reading the file, the summary and its trust lines, stderr notes, and what exits 1."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tests.transports.cli.conftest import Cli

HINTS = [
    "       memesh import expects a file produced by 'memesh export'.",
    "       Try: memesh export > my-export.json && memesh import my-export.json",
]


def _entity(name: str, **fields: Any) -> dict[str, Any]:
    return {"name": name, "type": "note", "observations": [f"about {name}"], **fields}


def _bundle_file(folder: Path, *entities: dict[str, Any], filename: str = "bundle.json") -> Path:
    path = folder / filename
    bundle = {"version": "3.1.0", "exported_at": "2026-01-01T00:00:00.000Z", "entities": list(entities)}
    path.write_text(json.dumps(bundle), encoding="utf-8")
    return path


def _metadata(cli: Cli, name: str) -> dict[str, Any]:
    entities = {e["name"]: e for e in cli.ok("export").json()["entities"]}
    metadata: dict[str, Any] = entities[name]["metadata"]
    return metadata


def test_a_plain_import_says_its_rows_are_untrusted_and_suggests_trust_for_an_own_backup(
    cli: Cli, tmp_path: Path
) -> None:
    file = _bundle_file(tmp_path, _entity("a"), _entity("b"))
    out = cli.ok("import", str(file))
    assert out.out.splitlines() == [
        "Imported: 2, Skipped: 0, Appended: 0",
        "2 memories imported as untrusted — recall works, auto-injection does not. If this file is your own "
        f"backup, run: memesh import {file} --merge overwrite --trust",
    ]
    assert _metadata(cli, "a")["trust"] == "untrusted"


def test_the_suggested_command_quotes_the_file_and_keeps_namespace_and_restore(cli: Cli, tmp_path: Path) -> None:
    file = _bundle_file(tmp_path, _entity("a"), filename="my backup.json")
    out = cli.ok("import", str(file), "--merge", "append", "--namespace", "team", "--restore-archived")
    assert out.out.splitlines()[1].endswith(
        f"run: memesh import '{file}' --merge overwrite --namespace team --restore-archived --trust"
    )


def test_one_row_is_one_memory(cli: Cli, tmp_path: Path) -> None:
    out = cli.ok("import", str(_bundle_file(tmp_path, _entity("a"))))
    assert out.out.splitlines()[1].startswith("1 memory imported as untrusted")


def test_trust_is_not_suggested_when_it_would_replace_memories_already_here(cli: Cli, tmp_path: Path) -> None:
    cli.ok("remember", "--name", "a", "--type", "note", "--obs", "mine")
    out = cli.ok("import", str(_bundle_file(tmp_path, _entity("a"), _entity("b"))))
    assert out.out.splitlines() == [
        "Imported: 1, Skipped: 1, Appended: 0",
        "1 memory imported as untrusted — recall works, auto-injection does not. (--trust --merge overwrite not "
        "suggested: it would also replace 1 memory already here.)",
    ]


def test_append_names_the_memories_it_marked_untrusted(cli: Cli, tmp_path: Path) -> None:
    cli.ok("remember", "--name", "a", "--type", "note", "--obs", "mine")
    out = cli.ok("import", str(_bundle_file(tmp_path, _entity("a"))), "--merge", "append")
    assert out.out.splitlines() == [
        "Imported: 0, Skipped: 0, Appended: 1",
        "Marked untrusted because this file added text to them: 1 memory you already had.",
    ]
    assert _metadata(cli, "a")["trust"] == "untrusted"


def test_overwrite_says_how_many_it_replaced(cli: Cli, tmp_path: Path) -> None:
    cli.ok("remember", "--name", "a", "--type", "note", "--obs", "mine")
    out = cli.ok("import", str(_bundle_file(tmp_path, _entity("a"), _entity("b"))), "--merge", "overwrite")
    assert out.out.splitlines()[0] == "Imported: 2 (1 overwritten), Skipped: 0, Appended: 0"


def test_an_archived_memory_the_file_names_is_kept_archived_and_the_flag_to_restore_it_is_named(
    cli: Cli, tmp_path: Path
) -> None:
    cli.ok("remember", "--name", "a", "--type", "note", "--obs", "mine")
    cli.ok("forget", "--name", "a")
    file = _bundle_file(tmp_path, _entity("a"))
    out = cli.ok("import", str(file), "--merge", "append")
    assert out.out.splitlines() == [
        "Imported: 0, Skipped: 0, Appended: 0",
        "Kept archived: 1 (you archived these; the file names them, so they were left untouched). "
        "Add --restore-archived to bring them back.",
    ]
    restored = cli.ok("import", str(file), "--merge", "append", "--restore-archived")
    assert restored.out.splitlines()[0] == "Imported: 0, Skipped: 0, Appended: 1"
    assert cli.ok("recall", "--json").json()["entities"][0]["name"] == "a"


def test_restore_archived_with_skip_is_refused_and_nothing_is_imported(cli: Cli, tmp_path: Path) -> None:
    out = cli("import", str(_bundle_file(tmp_path, _entity("a"))), "--restore-archived")
    assert out.code == 1
    assert out.err.startswith("Error: restore_archived (--restore-archived) only applies")
    assert cli.ok("export").json()["entities"] == []


def test_relations_pointing_outside_the_bundle_are_noted_on_stderr_but_do_not_fail(cli: Cli, tmp_path: Path) -> None:
    file = _bundle_file(tmp_path, _entity("a", relations=[{"to": "elsewhere", "type": "supersedes"}]))
    out = cli.ok("import", str(file))
    assert out.err.splitlines() == [
        "Note: 1 relation(s) not restored — the target is not in this bundle:",
        "  a -supersedes-> elsewhere",
        "       Export those entities too (widen --limit, or drop --tag/--namespace) to keep the links.",
    ]


def test_entries_that_fail_are_listed_on_stderr_and_exit_1_while_the_rest_import(cli: Cli, tmp_path: Path) -> None:
    file = _bundle_file(tmp_path, _entity("good"), {"name": "bad"})
    out = cli("import", str(file))
    assert out.code == 1
    assert out.out.splitlines()[0] == "Imported: 1, Skipped: 0, Appended: 0"
    lines = out.err.splitlines()
    assert lines[0] == "Errors:"
    assert lines[1].startswith("  entities[1]: ")
    assert [e["name"] for e in cli.ok("export").json()["entities"]] == ["good"]


def test_json_prints_the_import_result_and_still_exits_1_on_errors(cli: Cli, tmp_path: Path) -> None:
    ok = cli.ok("import", str(_bundle_file(tmp_path, _entity("a"))), "--json").json()
    assert ok == {
        "imported": 1,
        "overwritten": 0,
        "skipped": 0,
        "appended": 0,
        "kept_archived": 0,
        "errors": [],
        "skipped_relations": [],
    }
    failed = cli("import", str(_bundle_file(tmp_path, {"name": "bad"}, filename="bad.json")), "--json")
    assert failed.code == 1
    assert len(failed.json()["errors"]) == 1


def test_the_cli_keeps_descriptive_bundle_metadata_and_rebuilds_trust(cli: Cli, tmp_path: Path) -> None:
    file = _bundle_file(
        tmp_path,
        _entity("a", metadata={"kind": "adr", "pin": True, "guard": "rm -rf", "trust": "trusted", "task_state": {}}),
    )
    cli.ok("import", str(file))
    metadata = _metadata(cli, "a")
    assert (metadata["kind"], metadata["pin"], metadata["trust"]) == ("adr", True, "untrusted")
    assert "guard" not in metadata
    assert "task_state" not in metadata


def test_a_missing_file_says_what_import_expects(cli: Cli, tmp_path: Path) -> None:
    missing = tmp_path / "nope.json"
    out = cli("import", str(missing))
    assert out.code == 1
    assert out.err.splitlines() == [f"Error: file not found: {missing}", *HINTS]


def test_a_missing_file_under_json_prints_the_failure_body_on_stdout(cli: Cli, tmp_path: Path) -> None:
    missing = tmp_path / "nope.json"
    out = cli("import", str(missing), "--json")
    assert out.code == 1
    assert out.json() == {"error": f"file not found: {missing}", "errorCode": "operation.failed"}


def test_a_file_that_is_not_json_names_the_position(cli: Cli, tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text('{"entities": [', encoding="utf-8")
    out = cli("import", str(bad))
    assert out.code == 1
    assert out.err.splitlines() == [f"Error: {bad} is not valid JSON near position 14.", *HINTS]


def test_json_without_an_entities_array_is_refused_saying_so(cli: Cli, tmp_path: Path) -> None:
    other = tmp_path / "other.json"
    for content in ('{"memories": []}', "[]", '{"entities": {}}'):
        other.write_text(content, encoding="utf-8")
        out = cli("import", str(other))
        assert out.code == 1
        assert '"entities" array' in out.err.splitlines()[0]


def test_a_bundle_whose_entities_is_not_an_array_is_a_bad_body_as_over_mcp_and_http(cli: Cli, tmp_path: Path) -> None:
    other = tmp_path / "other.json"
    for content in ('{"entities": {}}', '{"entities": "x"}', '{"memories": []}', "[]"):
        other.write_text(content, encoding="utf-8")
        out = cli("import", str(other), "--json")
        assert (out.code, out.json()["errorCode"]) == (1, "validation.bad-body")


def test_a_folder_given_as_the_file_is_one_error_line(cli: Cli, tmp_path: Path) -> None:
    out = cli("import", str(tmp_path))
    assert out.code == 1
    assert out.err.startswith(f"Error: cannot read {tmp_path} (")


def test_a_bundle_naming_one_memory_twice_imports_nothing(cli: Cli, tmp_path: Path) -> None:
    out = cli("import", str(_bundle_file(tmp_path, _entity("a"), _entity("a"))), "--json")
    assert out.code == 1
    assert out.json()["errorCode"] == "operation.failed"
    assert cli.ok("export").json()["entities"] == []


def test_a_bad_merge_strategy_or_namespace_is_refused_by_the_schema(cli: Cli, tmp_path: Path) -> None:
    file = _bundle_file(tmp_path, _entity("a"))
    merge = cli("import", str(file), "--merge", "replace")
    assert merge.code == 1
    assert merge.err.startswith("Error: merge_strategy: ")
    namespace = cli("import", str(file), "--namespace", "everywhere", "--json")
    assert namespace.code == 1
    assert namespace.json()["errorCode"] == "validation.bad-body"
    assert cli.ok("export").json()["entities"] == []


def test_namespace_files_new_memories_there(cli: Cli, tmp_path: Path) -> None:
    cli.ok("import", str(_bundle_file(tmp_path, _entity("a", namespace="personal"))), "--namespace", "team")
    assert cli.ok("export").json()["entities"][0]["namespace"] == "team"


def test_a_file_and_notes_together_or_neither_are_refused(cli: Cli, tmp_path: Path) -> None:
    both = cli("import", "x.json", "--notes", str(tmp_path))
    assert (both.code, both.err) == (1, "Error: pass either a JSON export file or --notes <dir>, not both.\n")
    neither = cli("import")
    assert neither.code == 1
    assert neither.err == "Error: pass a JSON export file (memesh import my-export.json) or --notes <dir>.\n"


def test_project_is_refused_without_notes(cli: Cli, tmp_path: Path) -> None:
    out = cli("import", str(_bundle_file(tmp_path, _entity("a"))), "--project", "p")
    assert out.code == 1
    assert "--project" in out.err
    assert cli.ok("export").json()["entities"] == []


def test_append_into_team_of_a_memory_the_file_adds_nothing_to_moves_it_as_skipped_and_keeps_its_trust(
    cli: Cli, tmp_path: Path
) -> None:
    cli.ok("remember", "--name", "alpha", "--type", "note", "--obs", "one", "--tags", "x")
    before = _metadata(cli, "alpha").get("trust")
    backup = tmp_path / "backup.json"
    backup.write_text(cli.ok("export").out, encoding="utf-8")
    out = cli.ok("import", str(backup), "--merge", "append", "--namespace", "team", "--json").json()
    assert (out["appended"], out["skipped"], out["imported"]) == (0, 1, 0)
    [entity] = cli.ok("export").json()["entities"]
    assert entity["namespace"] == "team"
    assert entity["metadata"].get("trust") == before
    assert entity["metadata"]["previous_namespace"] == "personal"
    assert entity["observations"] == ["one"]
