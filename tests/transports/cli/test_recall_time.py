"""memesh recall --since / --until (issue 38), as a person types them, and the time note of a broad recall."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from tests.transports.cli.conftest import Cli


def seeded(cli: Cli, folder: Path) -> None:
    old = [
        {"name": "auth-2020", "type": "note", "observations": ["auth: sessions"], "created_at": "2020-03-03 10:00:00"}
    ]
    bundle = folder / "old.json"
    bundle.write_text(json.dumps({"version": "3.1.0", "exported_at": "2026-01-01T00:00:00Z", "entities": old}))
    cli.ok("import", str(bundle))
    cli.ok("remember", "--name", "auth-now", "--type", "note", "--obs", "auth: passkeys")


def test_since_and_until_flags_keep_what_was_created_in_that_time(cli: Cli, tmp_path: Path) -> None:
    seeded(cli, tmp_path)
    assert [e["name"] for e in cli.ok("recall", "auth", "--until", "2020-12-31", "--json").json()["entities"]] == [
        "auth-2020"
    ]
    assert cli.ok("recall", "auth", "--since", "yesterday").out.splitlines()[0] == "  auth-now (note)"
    assert [e["name"] for e in cli.ok("recall", "--since", "2019-01-01", "--json").json()["entities"]] == [
        "auth-now",
        "auth-2020",
    ]


def test_a_bad_since_exits_with_the_field_on_stderr(cli: Cli, tmp_path: Path) -> None:
    seeded(cli, tmp_path)
    outcome = cli("recall", "auth", "--since", "someday")
    assert outcome.code != 0
    assert "since: not a date or time" in outcome.err
    assert outcome.out == ""


def test_a_broad_recall_says_the_time_its_question_named(
    cli: Cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MEMESH_RECALL_MODE", "broad")
    seeded(cli, tmp_path)
    lines = cli.ok("recall", "what", "auth", "on", "3", "March", "2020").out.splitlines()
    assert lines[0] == "  auth-2020 (note)"
    assert lines[-1] == '(time in the question: "3 March 2020" → 2020-03-03 to 2020-03-11)'
