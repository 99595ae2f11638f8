"""Every credential shape, through every CLI write command (note files included), never reaches the database."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

from tests.secret_shapes import (
    ORDINARY_TEXT,
    SHAPES,
    assert_nothing_leaked,
    bundle,
    format_batches,
    learn_body,
    remember_body,
    stored_verbatim_misses,
    task_body,
)

if TYPE_CHECKING:
    from tests.transports.cli.conftest import Cli


def _remember_argv(kind: str) -> list[str]:
    body = remember_body(kind)
    return [
        "remember",
        "--name",
        body["name"],
        "--type",
        body["type"],
        "--title",
        body["title"],
        "--obs",
        body["observations"][0],
        "--tags",
        body["tags"][0],
    ]


def test_no_shape_reaches_the_database_through_any_cli_write_command(
    cli: Cli, memesh_env: Path, tmp_path: Path
) -> None:
    for kind, (secret, _) in SHAPES.items():
        cli.ok(*_remember_argv(kind))
        cli.ok("remember", f"A note about {secret}\n\nand more text")
        lesson = learn_body(kind)
        cli.ok("learn", "--error", lesson["error"], "--fix", lesson["fix"], "--root-cause", lesson["root_cause"])
        task = task_body(kind)
        cli.ok("task", "--project", task["project"], "--goal", task["goal"], f"--blocked={task['blocked']}")
    bundle_file = tmp_path / "bundle.json"
    bundle_file.write_text(json.dumps(bundle(keep_metadata=True)), encoding="utf-8")
    cli.ok("import", str(bundle_file), "--merge", "overwrite")
    notes = tmp_path / "notes"
    notes.mkdir()
    for index, (secret, _) in enumerate(SHAPES.values()):
        # The file name holds the shape too, where a file name can (no `/`, no newline).
        file_name = f"{index}.md" if "/" in secret or "\n" in secret else f"{index} {secret}.md"
        (notes / file_name).write_text(
            f"---\nname: note-{index}\ndescription: about {secret.splitlines()[0]}\n---\n{secret}\n", encoding="utf-8"
        )
    cli.ok("import", "--notes", str(notes), "--project", "demo")
    assert_nothing_leaked(memesh_env)


def test_no_catalogued_format_reaches_the_database_through_remember(cli: Cli, memesh_env: Path) -> None:
    for index, texts in enumerate(format_batches()):
        cli.ok("remember", "--name", f"formats-{index}", "--type", "note", *[f"--obs={text}" for text in texts])
        cli.ok("remember", f"Formats {index}\n\n" + "\n".join(texts))
    assert_nothing_leaked(memesh_env)


def test_a_task_project_holding_a_credential_is_refused(cli: Cli, memesh_env: Path) -> None:
    secret, _ = SHAPES["url-userinfo"]
    out = cli("task", "--project", secret, "--goal", "ship", "--json")
    assert out.code == 1
    assert out.json()["errorCode"] == "validation.bad-body"
    assert out.json()["error"].startswith("project: ")


def test_ordinary_code_and_text_are_stored_byte_for_byte_through_remember(cli: Cli, memesh_env: Path) -> None:
    half = len(ORDINARY_TEXT) // 2
    for index, texts in enumerate((ORDINARY_TEXT[:half], ORDINARY_TEXT[half:])):
        cli.ok("remember", "--name", f"ordinary-{index}", "--type", "note", *[f"--obs={text}" for text in texts])
    assert stored_verbatim_misses(memesh_env, ORDINARY_TEXT) == []
