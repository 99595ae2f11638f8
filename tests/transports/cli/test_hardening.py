"""CLI edges the hostile probe found: export -o onto an existing file, learn's answer, NFC names."""

from __future__ import annotations

import stat
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tests.transports.cli.conftest import Cli


def test_export_onto_an_existing_world_readable_file_leaves_it_owner_only(cli: Cli, tmp_path: Path) -> None:
    cli.ok("remember", "--name", "n", "--type", "t", "--obs", "x")
    target = tmp_path / "backup.json"
    target.write_text("old", encoding="utf-8")
    target.chmod(0o644)
    cli.ok("export", "-o", str(target))
    assert stat.S_IMODE(target.stat().st_mode) == 0o600
    assert '"n"' in target.read_text(encoding="utf-8")


def test_learn_answers_with_the_name_it_stored(cli: Cli) -> None:
    learned = cli.ok("learn", "--error", "boom", "--fix", "restart", "--project", "  my\tproj\u0065\u0301  ", "--json")
    name = learned.json()["name"]
    stored = [e["name"] for e in cli.ok("export").json()["entities"]]
    assert stored == [name]
    assert name.startswith("lesson-my proj\u00e9-")


def test_a_name_typed_in_nfd_and_in_nfc_is_one_memory(cli: Cli) -> None:
    cli.ok("remember", "--name", "cafe\u0301", "--type", "t", "--obs", "one")
    cli.ok("remember", "--name", "caf\u00e9", "--type", "t", "--obs", "two")
    [entity] = cli.ok("export").json()["entities"]
    assert entity["name"] == "caf\u00e9"
    assert entity["observations"] == ["one", "two"]
    assert cli.ok("forget", "--name", "cafe\u0301", "--json").json()["archived"] is True
