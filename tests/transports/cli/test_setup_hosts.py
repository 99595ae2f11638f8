"""memesh setup --host copilot-cli|cursor, as a person types it in a repository with a temp HOME: the files README
shows are written, a second run changes nothing, foreign entries stay, a file that is not JSON is refused untouched,
and memesh doctor reports each host (not configured, configured here, stale)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tests.transports.cli.conftest import Process

ROOT = Path(__file__).resolve().parents[3]


def _repo(process: Process) -> Path:
    (process.cwd / ".git").mkdir(exist_ok=True)  # the repository setup writes into: the folder it is typed in
    return process.cwd


def _home(process: Process) -> Path:
    return Path(process.env["HOME"])


def _readme_block(mark: str, hook: str) -> dict[str, Any]:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    opening = readme.index("```json\n", readme.index(f"<!-- {mark} -->")) + len("```json\n")
    found: dict[str, Any] = json.loads(readme[opening : readme.index("```", opening)].replace(
        "/path/to/.venv/bin/memesh-hook", hook
    ))  # fmt: skip
    return found


def _hook_path(text: str) -> str:
    match = re.search(r'"(?:bash|command)": "([^"]*memesh-hook) ', text)
    assert match is not None, text
    return match.group(1)


def _doctor_row(process: Process, host: str) -> dict[str, Any]:
    done = process("doctor", "--json")
    rows = {row["id"]: row for row in json.loads(done.out)["checks"]}
    row: dict[str, Any] = rows[f"host-{host}"]
    return row


def test_copilot_cli_setup_writes_the_readme_files_once(memesh_process: Process) -> None:
    repo, home = _repo(memesh_process), _home(memesh_process)
    assert _doctor_row(memesh_process, "copilot-cli")["status"] == "pass"
    assert "not configured" in _doctor_row(memesh_process, "copilot-cli")["detail"]
    first = memesh_process("setup", "--host", "copilot-cli", "--yes")
    assert first.code == 0, first.err
    hooks_file, mcp_file = repo / ".github" / "hooks" / "memesh.json", home / ".copilot" / "mcp-config.json"
    hooks_text, mcp_text = hooks_file.read_text(), mcp_file.read_text()
    hook = _hook_path(hooks_text)
    assert json.loads(hooks_text) == _readme_block("copilot-hooks", hook)
    assert json.loads(mcp_text)["mcpServers"]["memesh"]["command"] == str(Path(hook).with_name("memesh-mcp"))
    again = memesh_process("setup", "--host", "copilot-cli", "--yes", "--json")
    assert again.code == 0 and json.loads(again.out)["changed"] is False
    assert "nothing changed" in memesh_process("setup", "--host", "copilot-cli", "--yes").out
    assert (hooks_file.read_text(), mcp_file.read_text()) == (hooks_text, mcp_text)
    # Copilot CLI loads no repository hooks from a folder it does not trust: setup says so, and doctor warns.
    assert json.loads(again.out)["trusted"] is False
    assert "--trust" in first.out and not (home / ".copilot" / "config.json").exists()
    row = _doctor_row(memesh_process, "copilot-cli")
    assert row["status"] == "warn" and "trusted folders" in row["detail"] and "--trust" in row["detail"]
    trusted = memesh_process("setup", "--host", "copilot-cli", "--trust", "--yes", "--json")
    assert trusted.code == 0, trusted.err
    assert json.loads(trusted.out)["trusted"] is True and json.loads(trusted.out)["changed"] is True
    assert json.loads((home / ".copilot" / "config.json").read_text()) == {"trustedFolders": [str(repo)]}
    assert (
        json.loads(memesh_process("setup", "--host", "copilot-cli", "--trust", "--yes", "--json").out)["changed"]
        is False
    )
    row = _doctor_row(memesh_process, "copilot-cli")
    assert (row["status"], row["detail"].startswith("configured")) == ("pass", True)


def test_copilot_cli_files_live_in_copilot_home_and_its_config_keeps_its_comments_and_keys(
    memesh_process: Process, tmp_path: Path
) -> None:
    repo, home = _repo(memesh_process), _home(memesh_process)
    copilot_home = tmp_path / "copilot-home"
    copilot_home.mkdir()
    memesh_process.env["COPILOT_HOME"] = str(copilot_home)
    # As Copilot CLI 1.0.102 leaves its config.json: comment lines first, the list under its camelCase name.
    managed = "// User settings belong in settings.json.\n// This file is managed automatically.\n"
    (copilot_home / "config.json").write_text(managed + json.dumps({"trustedFolders": ["/elsewhere"], "x": 1}))
    done = memesh_process("setup", "--host", "copilot-cli", "--trust", "--yes", "--json")
    assert done.code == 0, done.err
    paths = [each["path"] for each in json.loads(done.out)["files"]]
    assert paths[1:] == [str(copilot_home / "mcp-config.json"), str(copilot_home / "config.json")]
    assert "memesh" in json.loads((copilot_home / "mcp-config.json").read_text())["mcpServers"]
    written = (copilot_home / "config.json").read_text()
    assert written.startswith(managed)
    body = json.loads("".join(line for line in written.splitlines(keepends=True) if not line.startswith("//")))
    assert body == {"trustedFolders": ["/elsewhere", str(repo)], "x": 1}
    assert not (home / ".copilot").exists()
    row = _doctor_row(memesh_process, "copilot-cli")
    assert (row["status"], row["detail"].startswith("configured")) == ("pass", True)
    # Uninstalling takes MeMesh's entries out and leaves the trusted folders as the person has them.
    assert memesh_process("setup", "--host", "copilot-cli", "--uninstall", "--yes").code == 0
    assert (copilot_home / "config.json").read_text() == written
    assert memesh_process("setup", "--host", "cursor", "--trust", "--yes").code == 1


def test_cursor_setup_keeps_foreign_entries_and_replaces_a_stale_path(memesh_process: Process) -> None:
    repo = _repo(memesh_process)
    (repo / ".cursor").mkdir()
    foreign_hook = {"command": "./audit.sh"}
    stale = {"command": "/old/venv/bin/memesh-hook session-start"}
    hooks_file, mcp_file = repo / ".cursor" / "hooks.json", repo / ".cursor" / "mcp.json"
    hooks_file.write_text(json.dumps({"version": 1, "hooks": {"sessionStart": [foreign_hook, stale]}, "x": 1}))
    mcp_file.write_text(json.dumps({"mcpServers": {"other": {"command": "other-mcp"}}}))
    row = _doctor_row(memesh_process, "cursor")
    assert row["status"] == "warn" and "stale" in row["detail"] and "memesh setup --host cursor" in row["detail"]
    done = memesh_process("setup", "--host", "cursor", "--yes", "--json")
    assert done.code == 0, done.err
    written = json.loads(hooks_file.read_text())
    hook = _hook_path(hooks_file.read_text())
    assert written["x"] == 1 and written["hooks"]["sessionStart"][0] == foreign_hook
    assert stale not in written["hooks"]["sessionStart"]
    ours = _readme_block("cursor-hooks", hook)["hooks"]
    assert written["hooks"] == {**ours, "sessionStart": [foreign_hook, *ours["sessionStart"]]}
    servers = json.loads(mcp_file.read_text())["mcpServers"]
    assert servers == {
        "other": {"command": "other-mcp"},
        "memesh": {"command": str(Path(hook).with_name("memesh-mcp"))},
    }
    assert _doctor_row(memesh_process, "cursor")["status"] == "pass"
    memesh_process("setup", "--host", "cursor", "--uninstall", "--yes")
    assert json.loads(hooks_file.read_text())["hooks"] == {"sessionStart": [foreign_hook]}
    assert json.loads(mcp_file.read_text())["mcpServers"] == {"other": {"command": "other-mcp"}}


def test_cursor_user_level_writes_under_home(memesh_process: Process) -> None:
    repo, home = _repo(memesh_process), _home(memesh_process)
    assert memesh_process("setup", "--host", "cursor", "--user", "--yes").code == 0
    assert "afterAgentResponse" in json.loads((home / ".cursor" / "hooks.json").read_text())["hooks"]
    assert "memesh" in json.loads((home / ".cursor" / "mcp.json").read_text())["mcpServers"]
    assert not (repo / ".cursor").exists()
    assert _doctor_row(memesh_process, "cursor")["status"] == "pass"


def test_a_file_that_is_not_json_is_refused_and_nothing_is_written(memesh_process: Process) -> None:
    repo, home = _repo(memesh_process), _home(memesh_process)
    (home / ".copilot").mkdir(parents=True)
    broken = '{"mcpServers": {"other": '
    (home / ".copilot" / "mcp-config.json").write_text(broken)
    done = memesh_process("setup", "--host", "copilot-cli", "--yes")
    assert done.code == 1 and "not valid JSON" in done.err
    assert (home / ".copilot" / "mcp-config.json").read_text() == broken
    assert not (repo / ".github").exists()  # the other file is not written either
    assert [p.name for p in (home / ".copilot").iterdir()] == ["mcp-config.json"]  # no temporary left
    row = _doctor_row(memesh_process, "copilot-cli")
    assert row["status"] == "warn" and "not valid JSON" in row["detail"]


def test_an_unknown_host_is_a_clear_error(memesh_process: Process) -> None:
    done = memesh_process("setup", "--host", "vscode", "--yes")
    assert done.code != 0 and "host" in done.err and "copilot-cli" in done.err
