"""memesh import --notes: one memory per note file, a one-line summary, and what was left alone on stderr."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from tests.transports.cli.conftest import Cli


def _note(folder: Path, rel: str, name: str, body: str = "We use PKCE.") -> None:
    path = folder / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"---\nname: {name}\ndescription: About {name}\n---\n{body}\n", encoding="utf-8")


@pytest.fixture
def notes(tmp_path: Path) -> Path:
    folder = tmp_path / "memory"
    _note(folder, "auth.md", "auth")
    _note(folder, "db/pool.md", "pool", "Pool size 10.")
    (folder / "handoff.md").write_text("no frontmatter here\n", encoding="utf-8")
    return folder


def test_each_note_file_becomes_a_memory_tagged_with_the_project(cli: Cli, notes: Path) -> None:
    out = cli.ok("import", "--notes", str(notes), "--project", "demo")
    assert out.out == "Notes: 2 created, 0 replaced, 0 unchanged, 1 skipped, 1 newly refused (3 note files found)\n"
    assert out.err.splitlines() == [
        "  skipped handoff.md: no frontmatter — a note file needs a `---` block with a name",
    ]
    entities = {e["name"]: e for e in cli.ok("export").json()["entities"]}
    assert set(entities) == {"auth", "pool"}
    assert entities["auth"]["tags"] == ["source:note-file", "project:demo"]
    assert entities["auth"]["title"] == "About auth"


def test_a_second_run_changes_nothing(cli: Cli, notes: Path) -> None:
    cli.ok("import", "--notes", str(notes), "--project", "demo")
    out = cli.ok("import", "--notes", str(notes), "--project", "demo")
    assert out.out.startswith("Notes: 0 created, 0 replaced, 2 unchanged, 1 skipped")


def test_a_vanished_file_keeps_its_memory_tagged_missing(cli: Cli, notes: Path) -> None:
    cli.ok("import", "--notes", str(notes), "--project", "demo")
    (notes / "auth.md").unlink()
    out = cli.ok("import", "--notes", str(notes), "--project", "demo")
    assert "1 marked missing" in out.out
    assert "  file gone, memory kept and tagged source:note-file:missing: auth" in out.err.splitlines()


def test_files_past_the_per_run_cap_are_counted_for_the_next_run(
    cli: Cli, notes: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from memesh.core import note_files

    monkeypatch.setattr(note_files, "MAX_FILES_PER_RUN", 1)
    out = cli.ok("import", "--notes", str(notes), "--project", "demo")
    assert out.err.splitlines()[-1] == "  2 more file(s) past the per-run cap — run the command again to continue"


def test_json_prints_the_raw_result(cli: Cli, notes: Path) -> None:
    out = cli.ok("import", "--notes", str(notes), "--project", "demo", "--json")
    result = out.json()
    assert (result["created"], result["discovered"]) == (2, 3)
    assert result["skipped"][0]["path"] == "handoff.md"
    assert out.err == ""


def test_the_project_defaults_to_the_current_directory(
    cli: Cli, notes: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    here = tmp_path / "my-app"
    here.mkdir()
    monkeypatch.chdir(here)
    cli.ok("import", "--notes", str(notes))
    tags = cli.ok("export").json()["entities"][0]["tags"]
    assert [tag for tag in tags if tag.startswith("project:my-app~")]


def test_a_missing_directory_exits_1(cli: Cli, tmp_path: Path) -> None:
    out = cli("import", "--notes", str(tmp_path / "nope"), "--project", "demo")
    assert out.code == 1
    assert out.err.startswith("Error: ")
    assert out.out == ""


@pytest.mark.parametrize(
    ("flags", "named"),
    [
        (["--merge", "overwrite"], "--merge"),
        (["--namespace", "team"], "--namespace"),
        (["--restore-archived"], "--restore-archived"),
        (["--trust"], "--trust"),
    ],
)
def test_bundle_flags_are_refused_with_notes(cli: Cli, notes: Path, flags: list[str], named: str) -> None:
    out = cli("import", "--notes", str(notes), *flags)
    assert out.code == 1
    assert out.err.startswith(f"Error: {named} applies only to a JSON export file")
    assert cli.ok("export").json()["entities"] == []


def test_a_note_file_memory_imported_as_typed_is_stamped_with_the_cli_host(cli: Cli, notes: Path) -> None:
    cli.ok("import", "--notes", str(notes), "--project", "demo")
    entities = {e["name"]: e for e in cli.ok("export").json()["entities"]}
    provenance = entities["auth"]["metadata"]["provenance"]
    assert (provenance["source_host"], provenance["source"]) == ("cli", "note-file")
