"""memesh learn and memesh task: one tool call each, a line for people, the tool's output under --json."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from tests.transports.cli.conftest import Cli, Process

PROJECT = "shop~" + "1" * 32


def test_learn_records_a_lesson_and_prints_its_name(cli: Cli) -> None:
    out = cli.ok(
        "learn", "--error", "TypeError on null", "--fix", "optional chaining", "--root-cause", "timeouts",
        "--prevention", "validate responses", "--severity", "major", "--project", "shop",
    )  # fmt: skip
    (line,) = out.out.splitlines()
    assert line.startswith("Lesson recorded: lesson-shop-")
    name = line.removeprefix("Lesson recorded: ")
    entity = cli.ok("recall", "--json").json()["entities"][0]
    assert entity["name"] == name
    assert entity["type"] == "lesson_learned"
    assert "severity:major" in entity["tags"]
    assert "project:shop" in entity["tags"]


def test_learn_json_is_the_learn_output(cli: Cli) -> None:
    out = cli.ok("learn", "--error", "boom", "--fix", "defuse", "--project", "shop", "--json").json()
    assert out["learned"] is True
    assert out["type"] == "lesson_learned"


def test_learn_needs_error_and_fix(cli: Cli) -> None:
    assert cli("learn", "--error", "boom").code == 2
    assert cli("learn", "--fix", "x").code == 2


def test_learn_refuses_a_bad_severity_by_the_schema(cli: Cli) -> None:
    out = cli("learn", "--error", "boom", "--fix", "x", "--severity", "huge", "--json")
    assert out.code == 1
    assert out.json()["errorCode"] == "validation.bad-body"


def test_a_task_never_stated_says_how_to_set_it(cli: Cli) -> None:
    out = cli.ok("task", "--project", PROJECT)
    assert out.out.splitlines() == [
        'Nothing recorded for "shop" yet.',
        'Set it with:  memesh task --goal "…" --next "…"',
        f"Project id: {PROJECT}",
    ]


def test_a_write_names_what_changed_and_shows_the_state(cli: Cli) -> None:
    out = cli.ok("task", "--project", PROJECT, "--goal", "Ship v2", "--next", "Write the migration")
    assert out.out.splitlines() == ['Updated goal, next for "shop".', "- Goal: Ship v2", "- Next: Write the migration"]


def test_restating_the_same_value_is_no_change(cli: Cli) -> None:
    cli.ok("task", "--project", PROJECT, "--goal", "Ship v2")
    out = cli.ok("task", "--project", PROJECT, "--goal", "Ship v2")
    assert out.out == 'No change — "shop" already said exactly that.\n'


def test_a_read_shows_every_stated_field_under_when_it_was_updated(cli: Cli) -> None:
    cli.ok("task", "--project", PROJECT, "--goal", "g", "--next", "n", "--blocked", "b", "--done", "d")
    lines = cli.ok("task", "--project", PROJECT).out.splitlines()
    assert lines[0].startswith('Stated about "shop" (updated ')
    assert lines[0].endswith("Z):")
    assert lines[1:] == ["- Goal: g", "- Next: n", "- Blocked: b", "- Had just finished: d", f"Project id: {PROJECT}"]


def test_an_empty_value_clears_a_field(cli: Cli) -> None:
    cli.ok("task", "--project", PROJECT, "--goal", "g", "--blocked", "waiting on review")
    out = cli.ok("task", "--project", PROJECT, "--blocked", "")
    assert out.out.splitlines() == ['Updated blocked for "shop".', "- Goal: g"]


def test_task_json_is_project_and_state_and_on_a_write_changed(cli: Cli) -> None:
    assert cli.ok("task", "--project", PROJECT, "--json").json() == {"project": PROJECT, "state": {}}
    written = cli.ok("task", "--project", PROJECT, "--next", "n", "--json").json()
    assert written["changed"] == ["next"]
    assert written["state"]["next"] == "n"
    read = cli.ok("task", "--project", PROJECT, "--json").json()
    assert set(read) == {"project", "state"}


def test_task_defaults_to_the_current_directory_project(
    cli: Cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    here = tmp_path / "my-app"
    here.mkdir()
    monkeypatch.chdir(here)
    out = cli.ok("task", "--goal", "g")
    assert out.out.splitlines()[0] == 'Updated goal for "my-app".'
    assert cli.ok("task", "--json").json()["project"].startswith("my-app~")


def test_a_read_ends_with_the_project_id_the_http_route_takes(cli: Cli) -> None:
    assert cli.ok("task", "--project", PROJECT).out.splitlines()[-1] == f"Project id: {PROJECT}"


def test_task_refuses_an_over_long_value_by_the_schema(cli: Cli) -> None:
    out = cli("task", "--project", PROJECT, "--goal", "x" * 1001)
    assert out.code == 1
    assert out.err.startswith("Error: goal: ")


def test_learn_repeated_as_typed_stores_each_stated_line_once_and_nothing_unstated(cli: Cli) -> None:
    for _ in range(2):
        cli.ok("learn", "--error", "Deploy timed out", "--fix", "Raise the budget", "--project", "shop")
    [entity] = cli.ok("export").json()["entities"]
    assert entity["observations"] == ["Error: Deploy timed out", "Fix: Raise the budget"]


def test_task_given_the_folders_label_reads_and_writes_the_folders_project(memesh_process: Process) -> None:
    repo = memesh_process.cwd / "myapp"
    repo.mkdir()
    subprocess.run(["git", "init", "-q"], cwd=repo, check=True)
    memesh_process.cwd = repo
    written = memesh_process("task", "--project", "myapp", "--goal", "Ship v2", "--json")
    assert written.code == 0, written.err
    here = memesh_process("task", "--json")
    assert json.loads(here.out)["project"] == json.loads(written.out)["project"]
    assert json.loads(here.out)["project"].startswith("myapp~")
    assert json.loads(here.out)["state"]["goal"] == "Ship v2"
