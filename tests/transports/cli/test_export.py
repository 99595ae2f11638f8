"""memesh export: the bundle on stdout or in a file, and a loud warning when it is not the whole graph."""

from __future__ import annotations

import json
import stat
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tests.transports.cli.conftest import Cli


def _store(cli: Cli, *names: str, namespace: str = "personal", tag: str = "topic:x") -> None:
    for name in names:
        flags = ["--tags", tag, "--namespace", namespace]
        cli.ok("remember", "--name", name, "--type", "t", "--obs", f"about {name}", *flags)


def test_the_bundle_is_printed_as_indented_json_on_stdout(cli: Cli) -> None:
    _store(cli, "a", "b")
    out = cli.ok("export")
    assert out.out.startswith('{\n  "version": "3.1.0",')
    bundle = out.json()
    assert (bundle["entity_count"], bundle["truncated"]) == (2, False)
    assert {entity["name"] for entity in bundle["entities"]} == {"a", "b"}
    assert out.err == ""


def test_json_prints_the_bundle_compact_on_one_line(cli: Cli) -> None:
    _store(cli, "a")
    out = cli.ok("export", "--json")
    assert out.out.count("\n") == 1
    assert out.json()["entities"][0]["name"] == "a"


def test_archived_memories_are_part_of_the_bundle(cli: Cli) -> None:
    _store(cli, "kept", "gone")
    cli.ok("forget", "--name", "gone")
    statuses = {e["name"]: e.get("status") for e in cli.ok("export").json()["entities"]}
    assert statuses == {"kept": None, "gone": "archived"}


def test_tag_and_namespace_narrow_the_bundle(cli: Cli) -> None:
    _store(cli, "mine", tag="project:x")
    _store(cli, "ours", namespace="team", tag="project:y")
    assert [e["name"] for e in cli.ok("export", "--tag", "project:x").json()["entities"]] == ["mine"]
    assert [e["name"] for e in cli.ok("export", "--namespace", "team").json()["entities"]] == ["ours"]


def test_a_limit_below_the_graph_size_warns_on_stderr_that_it_is_not_a_backup(cli: Cli) -> None:
    _store(cli, "a", "b", "c")
    out = cli.ok("export", "--limit", "2")
    assert out.json()["truncated"] is True
    assert out.err.splitlines() == [
        "⚠️  This is NOT the whole graph — 2 entities is the --limit, and there are more.",
        "   For a full backup, raise it: memesh export --limit 100000",
    ]


def test_out_writes_the_file_with_a_trailing_newline_and_reports_on_stderr(cli: Cli, tmp_path: Path) -> None:
    _store(cli, "a")
    target = tmp_path / "backup.json"
    out = cli.ok("export", "-o", str(target))
    assert out.out == ""
    assert out.err == f"✅ Exported 1 entities to {target}\n"
    text = target.read_text(encoding="utf-8")
    assert text.endswith("}\n")
    assert json.loads(text)["entities"][0]["name"] == "a"
    assert stat.S_IMODE(target.stat().st_mode) == 0o600


def test_out_onto_an_existing_file_is_refused_without_force(cli: Cli, tmp_path: Path) -> None:
    _store(cli, "a")
    target = tmp_path / "backup.json"
    target.write_text("my older backup", encoding="utf-8")
    refused = cli("export", "-o", str(target))
    assert refused.code == 1
    assert refused.err.splitlines() == [
        f"Error: {target} already exists — nothing was written.",
        "       Add --force to overwrite it, or choose another file.",
    ]
    assert target.read_text(encoding="utf-8") == "my older backup"
    assert cli("export", "-o", str(target), "--json").json()["errorCode"] == "operation.failed"


def test_out_with_force_overwrites_and_leaves_the_file_owner_only(cli: Cli, tmp_path: Path) -> None:
    _store(cli, "a")
    target = tmp_path / "backup.json"
    target.write_text("my older backup", encoding="utf-8")
    target.chmod(0o644)
    cli.ok("export", "--out", str(target), "--force")
    assert json.loads(target.read_text(encoding="utf-8"))["entities"][0]["name"] == "a"
    assert stat.S_IMODE(target.stat().st_mode) == 0o600


def test_force_without_out_is_refused(cli: Cli) -> None:
    assert cli("export", "--force").code == 1


def test_out_with_json_prints_a_summary_of_what_was_written(cli: Cli, tmp_path: Path) -> None:
    _store(cli, "a", "b")
    target = tmp_path / "backup.json"
    out = cli.ok("export", "-o", str(target), "--limit", "1", "--json")
    assert out.json() == {"out": str(target), "entity_count": 1, "truncated": True}
    assert json.loads(target.read_text(encoding="utf-8"))["entity_count"] == 1


def test_the_truncation_hint_repeats_the_quoted_output_file(cli: Cli, tmp_path: Path) -> None:
    _store(cli, "a", "b")
    target = tmp_path / "my backup.json"
    out = cli.ok("export", "-o", str(target), "--limit", "1")
    assert out.err.splitlines()[-1] == f"   For a full backup, raise it: memesh export --limit 100000 -o '{target}'"


def test_a_missing_output_folder_is_named_with_how_to_create_it(cli: Cli, tmp_path: Path) -> None:
    target = tmp_path / "nope" / "backup.json"
    out = cli("export", "-o", str(target))
    assert out.code == 1
    assert out.err.splitlines() == [
        f"Error: cannot write {target} — the directory {tmp_path / 'nope'} does not exist.",
        f'       Create it first (mkdir -p "{tmp_path / "nope"}"), or drop -o to write to stdout.',
    ]
    assert not target.exists()


def test_an_output_path_that_is_a_folder_fails_with_one_message(cli: Cli, tmp_path: Path) -> None:
    out = cli("export", "-o", str(tmp_path))
    assert out.code == 1
    assert out.err.startswith(f"Error: cannot write {tmp_path} — ")
    assert "Traceback" not in out.err


def test_a_bad_limit_or_namespace_is_refused_by_the_schema(cli: Cli) -> None:
    limit = cli("export", "--limit", "0")
    assert limit.code == 1
    assert limit.err.startswith("Error: limit: ")
    namespace = cli("export", "--namespace", "everywhere", "--json")
    assert namespace.code == 1
    assert namespace.json()["errorCode"] == "validation.bad-body"


def test_the_bundle_on_stdout_and_in_a_file_is_the_text_json_dump_with_indent_2_writes(
    cli: Cli, tmp_path: Path
) -> None:
    from memesh.transports.cli.terminal import safe

    cli.ok("remember", "--name", "ü-名前", "--type", "t", "--obs", 'quote " back\\slash\ttab', "--tags", "a:b")
    cli.ok("remember", "--name", "plain", "--type", "t", "--obs", "one", "two", "--obs", "three")
    cli.ok("remember", "a note in free text: emoji 😀, a line\nbreak")
    printed = cli.ok("export").out
    bundle = json.loads(printed)
    # The same text as today's json.dump, through the terminal filter (which keeps it the same JSON).
    assert printed == safe(json.dumps(bundle, indent=2, ensure_ascii=False)) + "\n"
    cli.ok("export", "-o", str(tmp_path / "b.json"))
    written = (tmp_path / "b.json").read_text(encoding="utf-8")
    assert written == json.dumps(json.loads(written), indent=2, ensure_ascii=False) + "\n"
    assert json.loads(written)["entities"] == bundle["entities"]
