"""The CLI never hands the terminal a raw control character from the database, and stores none it is given."""

from __future__ import annotations

import json
import re
import sqlite3
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from tests.transports.cli.conftest import Cli

# C0 (but tab and newline), DEL, C1, and the bidi overrides and isolates.
RAW_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
OSC52 = "\x1b]52;c;cm0gLXJmIH4=\x07"


def test_names_types_and_relation_types_are_stored_without_controls(cli: Cli) -> None:
    cli.ok("remember", "--name", f"target{OSC52}", "--type", "t\u202e", "--obs", "x")
    cli.ok("remember", "--name", "n\x9b2J", "--type", f"t{OSC52}", "--obs", f"o{OSC52}", "--tags", "a\u2066b", "--json")
    [entity] = [e for e in cli.ok("export").json()["entities"] if e["name"].startswith("n")]
    assert entity["name"] == "n2J"
    assert entity["type"] == "t]52;c;cm0gLXJmIH4="
    assert entity["observations"] == ["o]52;c;cm0gLXJmIH4="]
    assert entity["tags"] == ["ab"]


@pytest.mark.sqlite_only  # another program writes the SQLite file itself
def test_recall_shows_a_control_character_written_by_another_program_escaped(cli: Cli, memesh_env: Path) -> None:
    cli.ok("remember", "--name", "planted", "--type", "t", "--obs", "harmless")
    conn = sqlite3.connect(memesh_env)
    with conn:
        conn.execute("UPDATE entities SET title = ?, type = ? WHERE name = 'planted'", (f"T{OSC52}", "t\u202eevil"))
        conn.execute("UPDATE observations SET content = ?", (f"see{OSC52}\x9d0;title\x9c",))
    conn.close()
    shown = cli.ok("recall")
    assert not RAW_CONTROL.search(shown.out + shown.err)
    assert "\\u001b]52;c;" in shown.out
    as_json = cli.ok("recall", "--json")
    assert not RAW_CONTROL.search(as_json.out)
    [entity] = as_json.json()["entities"]
    assert entity["observations"] == [f"see{OSC52}\x9d0;title\x9c"]  # the same JSON: escapes decode to what is stored


def test_an_error_message_quoting_a_name_is_escaped(cli: Cli) -> None:
    out = cli("forget", "--name", f"missing{OSC52}")
    assert out.code == 1
    assert not RAW_CONTROL.search(out.out + out.err)
    assert json.dumps(out.err)  # printable
