"""How the CLI ends: the code table, usage errors, the command list, and failures that are not tracebacks."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from memesh.errors import ErrorCode, MemeshError
from memesh.transports.cli.actions import memory
from memesh.transports.cli.app import main
from memesh.transports.cli.exits import EXIT_STATUS, FAILED, USAGE, failure_body

if TYPE_CHECKING:
    from memesh.settings import Settings
    from tests.transports.cli.conftest import Cli


def test_every_error_code_has_an_exit_status() -> None:
    assert set(EXIT_STATUS) == set(ErrorCode)


def test_every_tool_failure_exits_1_whatever_its_code() -> None:
    assert set(EXIT_STATUS.values()) == {FAILED}


def test_the_json_failure_body_is_the_data_with_the_message_and_code() -> None:
    error = MemeshError.not_found("gone", name="x", archived=False)
    assert failure_body(error) == {"name": "x", "archived": False, "error": "gone", "errorCode": "resource.not-found"}


def test_bare_memesh_lists_the_commands(cli: Cli) -> None:
    out = cli.ok()
    commands = ("remember", "recall", "forget", "export-schema", "serve", "export", "import", "learn", "task")
    for command in (*commands, "pin", "unpin", "config", "reindex"):
        assert command in out.out


def test_an_unknown_command_is_a_usage_error(cli: Cli) -> None:
    out = cli("remmeber", "x")
    assert out.code == USAGE
    assert "remmeber" in out.err


def test_an_unknown_option_is_a_usage_error(cli: Cli) -> None:
    assert cli("recall", "--fuzzy").code == USAGE


@pytest.mark.sqlite_only  # a file that is not a database: PostgreSQL has no such file
def test_a_database_that_cannot_be_opened_is_one_message_and_exit_1(
    cli: Cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    monkeypatch.setenv("MEMESH_DB_PATH", str(blocker / "knowledge-graph.db"))
    out = cli("recall", "x", "--json")
    assert out.code == FAILED
    body = out.json()  # under --json a failure is a JSON body on stdout, this one too
    assert body["errorCode"] == "operation.failed"
    assert body["error"].startswith("memesh cannot open its database: cannot open the database at ")
    human = cli("recall", "x")
    assert human.code == FAILED
    assert human.err.startswith("Error: memesh cannot open its database: ")
    assert "Traceback" not in out.err + human.err


def test_an_unexpected_failure_is_one_line_without_a_traceback(
    memesh_env: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def explode(*_: object, **__: object) -> None:
        raise RuntimeError("/secret/path/inside")

    monkeypatch.setattr(memory, "call_tool", explode)
    assert main(["recall", "x"]) == FAILED
    err = capsys.readouterr().err
    assert err == "Error: memesh failed unexpectedly (RuntimeError).\n"


def test_serve_passes_host_port_allow_remote_and_tls_to_the_server(monkeypatch: pytest.MonkeyPatch) -> None:
    from memesh.transports.http import serve

    seen: dict[str, object] = {}

    def fake(
        host: str = "127.0.0.1",
        port: int = 3737,
        allow_remote: bool = False,
        tls_cert: str | None = None,
        tls_key: str | None = None,
        *,
        settings: Settings | None = None,
    ) -> int:
        seen.update(host=host, port=port, allow_remote=allow_remote, tls=(tls_cert, tls_key), settings=settings)
        return 0

    monkeypatch.setattr(serve, "serve", fake)
    assert main(["serve"]) == 0
    expected = {"host": "127.0.0.1", "port": 3737, "allow_remote": False, "tls": (None, None), "settings": None}
    assert seen == expected
    argv = ["serve", "--host", "0.0.0.0", "--port", "8080", "--allow-remote", "--tls-cert", "c.pem", "--tls-key", "k"]
    assert main(argv) == 0
    assert seen == {"host": "0.0.0.0", "port": 8080, "allow_remote": True, "tls": ("c.pem", "k"), "settings": None}


def test_serve_hands_its_database_to_the_server_as_settings_not_through_the_environment(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from memesh.transports.http import serve

    seen: list[Settings | None] = []
    environment: list[str | None] = []

    def fake(*_: object, settings: Settings | None = None, **__: object) -> int:
        seen.append(settings)
        environment.append(os.environ.get("MEMESH_DB_PATH"))
        return 0

    monkeypatch.delenv("MEMESH_DB_PATH", raising=False)
    monkeypatch.setattr(serve, "serve", fake)
    assert main(["serve", "--database", str(tmp_path / "other.db")]) == 0
    assert main(["serve", "--database", "postgresql://u@h/db"]) == 0
    first, second = seen
    assert first is not None and first.database_file == tmp_path / "other.db" and first.database_url() is None
    assert second is not None and second.database_url() == "postgresql://u@h/db"
    assert environment == [None, None]


def test_an_integer_flag_written_as_a_fraction_is_refused_not_rounded(cli: Cli) -> None:
    refused = cli("recall", "--limit", "2.9")
    assert refused.code == 2
    assert "expected a whole number, got '2.9'" in refused.err


def test_consolidate_is_retired_and_says_where_to_go(cli: Cli) -> None:
    out = cli("consolidate", "--name", "x")
    assert out.code == 1
    assert "memesh consolidate is retired" in out.err
    assert "work_package" in out.err


def test_an_empty_import_path_is_refused_not_read_as_the_current_folder(cli: Cli) -> None:
    for argv in (("import", ""), ("import", "--notes", "")):
        out = cli(*argv)
        assert out.code == 1
        assert "the path is empty" in out.err


def test_a_required_flag_left_out_is_named_with_the_value_it_was_perhaps_meant_for(cli: Cli) -> None:
    out = cli("forget", "auth-notes")
    assert out.code == 2
    assert out.err.splitlines()[0] == "Error: --name is required (to give it 'auth-notes', write --name auth-notes)."


def test_a_stray_word_is_named(cli: Cli) -> None:
    out = cli("remember", "text", "second")
    assert out.code == 2
    assert out.err.startswith("Error: unexpected argument 'second'")


def test_remember_with_a_name_and_no_type_says_so_in_the_flags_words(cli: Cli) -> None:
    out = cli("remember", "--name", "n", "--obs", "o")
    assert out.code == 1
    assert out.err.startswith("Error: type: --type is required with --name")
