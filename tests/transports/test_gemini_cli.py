"""The real Gemini CLI, set up as the README tells a user: `gemini mcp add` for MeMesh's MCP server, `gemini mcp list`,
and a scripted session against a stand-in Gemini API on 127.0.0.1 with MeMesh's SessionStart hook in its settings.

Gemini CLI (pinned in tools/gemini-cli/package-lock.json, installed by `make gemini-cli`, a prerequisite of
`make test`; the test never downloads it, and is skipped where it is not installed) runs with HOME in the test's
folder, usage statistics off and a dummy API key; it was seen (strace, in a network namespace with only loopback) to
connect nowhere but 127.0.0.1 this way.
What 0.61.0 was seen to do:
- MCP servers connect only in a trusted folder (`~/.gemini/trustedFolders.json`, what its trust dialog writes);
  `gemini mcp list` then says "Connected". MeMesh's tools reach the model as `mcp_memesh_<tool>`, and the server's
  initialize instructions are part of the session context.
- A SessionStart hook's `hookSpecificOutput.additionalContext` (MeMesh's briefing) is put in front of the prompt.
- Hooks get Gemini's tool names (`run_shell_command`, `read_file`, `replace`, `write_file`) and events (BeforeTool,
  AfterTool, AfterAgent), and run with GEMINI_SESSION_ID, GEMINI_CWD and also CLAUDE_PROJECT_DIR set. A BeforeTool
  answer `{"decision": "deny", "reason": …}` stops the call before it runs, and the model reads
  `Tool execution blocked: <reason>` as its result; BeforeTool context is dropped, AfterTool context is appended to
  the tool's result; AfterAgent carries the turn's reply as `prompt_response`.
- With the README's hooks block, the session below shows each: the guarded push stopped once with the lesson in
  front of the model and run on the retry, a file's memory arriving with `read_file`'s content, the last reply
  stored as the session handoff, every outcome recorded under host `gemini-cli`.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from memesh.adapters.project_git import project_for
from memesh.store.sqlite import open_store

from .gemini_stand_in import Reply, StandIn, call, serving, text

pytestmark = pytest.mark.node

REPO = Path(__file__).resolve().parents[2]
GEMINI = REPO / "tools" / "gemini-cli" / "node_modules" / ".bin" / "gemini"
BIN = Path(sys.executable).parent
RUN_SECONDS = 180
TOOLS = [
    "remember", "recall", "forget", "export", "import", "learn", "task_state", "work_package", "improvement",
    "message", "briefing", "user_patterns",
]  # fmt: skip
LESSON = "Force-pushing main lost a day of work: push a branch and open a pull request"
PUSH = "touch pushed.marker && git push origin main --force"
FINAL = "Pushed after the lesson's warning and read auth.py: next, move the push to a branch with a pull request."


def readme_hooks_block() -> dict[str, Any]:
    """The hooks block the README gives for Gemini CLI, with this checkout's memesh-hook in place of the path."""
    readme = (REPO / "README.md").read_text()
    opening = readme.index("```json\n", readme.index("<!-- gemini-hooks -->")) + len("```json\n")
    block = readme[opening : readme.index("```", opening)]
    found: dict[str, Any] = json.loads(block.replace("/path/to/.venv/bin/memesh-hook", str(BIN / "memesh-hook")))
    return found


class Gemini:
    """A throwaway home with Gemini CLI's settings, a database and a git repository, and the CLI run in them."""

    def __init__(self, root: Path) -> None:
        if not GEMINI.exists():  # `make test` installs it first; a bare pytest run may not have it
            pytest.skip(f"Gemini CLI is not installed at {GEMINI}: `make gemini-cli` installs the pinned one")
        self.home = root / "home"
        self.repo = root / "repo"
        self.db = self.home / ".memesh" / "knowledge-graph.db"
        self.repo.mkdir(parents=True)
        self.home.mkdir()
        subprocess.run(["git", "init", "-q", "-b", "main"], cwd=self.repo, check=True)
        self.project = project_for(str(self.repo))
        self.env = {
            "MEMESH_DAEMON": "0",
            "PATH": f"{BIN}{os.pathsep}/usr/bin:/bin",
            "HOME": str(self.home),
            "MEMESH_UPDATE_CHECK": "0",
            "GIT_AUTHOR_NAME": "t",
            "GIT_AUTHOR_EMAIL": "t@e",
            "GIT_COMMITTER_NAME": "t",
            "GIT_COMMITTER_EMAIL": "t@e",
        }

    def run(self, *argv: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [str(GEMINI), *argv],
            env={**self.env, **(env or {})},
            cwd=self.repo,
            capture_output=True,
            text=True,
            timeout=RUN_SECONDS,
            stdin=subprocess.DEVNULL,
            check=False,
        )

    def memesh(self, *argv: str, stdin: str | None = None) -> Any:
        done = subprocess.run(
            [str(BIN / "memesh"), *argv, "--json"],
            input=stdin,
            env=self.env,
            cwd=self.repo,
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        assert done.returncode == 0, done.stdout + done.stderr
        return json.loads(done.stdout)

    def settings(self) -> Path:
        return self.home / ".gemini" / "settings.json"

    def outcomes(self, hook: str) -> list[dict[str, Any]]:
        lines = (self.db.parent / "hook-outcomes.jsonl").read_text().splitlines()
        return [record for record in map(json.loads, lines) if record["hook"] == hook]


def test_gemini_cli_connects_lists_and_calls_memesh_and_the_readme_hooks_brief_guard_recall_and_hand_off(
    tmp_path: Path,
) -> None:
    gemini = Gemini(tmp_path)
    lesson = gemini.memesh("remember", "--name", "lesson-force-push", "--type", "lesson_learned", "--obs", LESSON)
    decision = gemini.memesh(
        "remember", "--name", "use-wal", "--type", "decision", "--obs", "Readers no longer wait for the writer",
        "--tags", f"project:{gemini.project}",
    )  # fmt: skip
    guard = {
        "project": gemini.project,
        "lesson": "lesson-force-push",
        "pattern": r"git\s+push\b.*\s--force\b",
        "message": LESSON,
        "should_match": ["git push origin main --force", "git push -u origin x --force"],
        "should_not_match": ["git push origin main", "git pull --force"],
    }
    staged = gemini.memesh("kg", "propose", "guard", stdin=json.dumps(guard))
    gemini.memesh("dream", "accept", str(staged["proposal_id"]))

    # The README's steps: the server added with Gemini's own command, the folder trusted, the hook in settings.
    added = gemini.run("mcp", "add", "--scope", "user", "memesh", str(BIN / "memesh-mcp"))
    assert added.returncode == 0, added.stdout + added.stderr
    settings = json.loads(gemini.settings().read_text())
    assert settings["mcpServers"] == {"memesh": {"command": str(BIN / "memesh-mcp"), "args": []}}
    untrusted = gemini.run("mcp", "list")
    # (it prints the list on stderr) an untrusted folder starts no server:
    assert f"○ memesh: {BIN / 'memesh-mcp'}  (stdio) - Disabled" in untrusted.stderr
    (gemini.home / ".gemini" / "trustedFolders.json").write_text(json.dumps({str(gemini.repo): "TRUST_FOLDER"}))
    settings |= readme_hooks_block() | {
        "privacy": {"usageStatisticsEnabled": False},
        "security": {"auth": {"selectedType": "gemini-api-key"}},
    }
    gemini.settings().write_text(json.dumps(settings, indent=2))
    listed = gemini.run("mcp", "list")
    assert listed.returncode == 0, listed.stdout + listed.stderr
    assert f"✓ memesh: {BIN / 'memesh-mcp'}  (stdio) - Connected" in listed.stderr

    auth = gemini.repo / "src" / "auth.py"
    auth.parent.mkdir()
    auth.write_text("TOKEN_TTL = 3600\n")
    about = gemini.memesh(
        "remember", "--name", "auth-token-ttl", "--type", "decision", "--obs", "Tokens live one hour, not a day",
        "--tags", f"project:{gemini.project}", "file:auth.py",
    )  # fmt: skip
    marker = gemini.repo / "pushed.marker"
    push = call("run_shell_command", {"command": PUSH, "description": "push"})
    script = [
        Reply([call("mcp_memesh_recall", {"query": "force push"})]),
        Reply([push]),
        Reply([push]),  # the retry, after reading the lesson
        Reply([call("read_file", {"file_path": str(auth)})]),
        Reply([text(FINAL)]),
    ]
    with serving(StandIn(script, observe=marker.exists)) as api:
        env = {"GOOGLE_GEMINI_BASE_URL": api.url, "GEMINI_API_KEY": "stand-in"}
        prompt = ["-p", "force-push main", "--output-format", "json", "--yolo"]
        done = gemini.run("-m", "gemini-2.5-flash", *prompt, env=env)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    first, after_recall, after_push, after_retry, after_read, *_ = api.turns
    # The twelve tools, under Gemini's names, and the server's instructions in the session context.
    assert [name for name in first.declared() if name.startswith("mcp_memesh_")] == [f"mcp_memesh_{t}" for t in TOOLS]
    assert "instructions provided by the tool server 'memesh'" in first.texts()
    # The SessionStart hook's briefing is in front of the prompt, before any tool ran.
    assert f"[mem:{decision['entityId']}]" in first.texts() and "Readers no longer wait for the writer" in first.texts()
    assert gemini.outcomes("session-start")[-1]["outcome"] == "notified"
    # recall ran through Gemini CLI and its answer is what the model read next.
    recalled = after_recall.function_response("mcp_memesh_recall")["output"]
    assert '"name":"lesson-force-push"' in recalled and LESSON in recalled
    # BeforeTool stopped the guarded push before it ran, and the model read the lesson as the call's result.
    stopped = after_push.function_response("run_shell_command")["error"]  # Gemini gives a refused call as an error
    assert after_push.observed is False
    assert stopped.startswith("Tool execution blocked: MeMesh stopped this command once, before it ran")
    assert LESSON in stopped and f"[mem:{lesson['entityId']}]" in stopped
    # The retry ran.
    assert after_retry.observed is True
    assert "error" not in after_retry.function_response("run_shell_command")
    # read_file's result carried the file's memory (AfterTool context, appended to the content).
    read = json.dumps(after_read.function_response("read_file"))
    assert "TOKEN_TTL = 3600" in read and f"[mem:{about['entityId']}]" in read and "Tokens live one hour" in read
    # AfterAgent's reply became the session handoff.
    store = open_store(gemini.db)
    try:
        handoff = store.find(f"session-handoff:{gemini.project}")
    finally:
        store.close()
    assert handoff is not None and FINAL in "\n".join(handoff.observations)
    # Every outcome is recorded as Gemini CLI's.
    records = [json.loads(line) for line in (gemini.db.parent / "hook-outcomes.jsonl").read_text().splitlines()]
    assert {record["host"] for record in records} == {"gemini-cli"}
    assert [(r["outcome"], r["reason"]) for r in gemini.outcomes("guard")] == [
        ("notified", "1 guards matched; stopped the first attempt"),
        ("skipped", "1 guards matched; already stopped once in this session"),
    ]
    assert gemini.outcomes("pre-edit")[-1]["reason"] == "1 memories about the file (on Read)"
    assert gemini.outcomes("handoff-capture")[-1]["outcome"] == "wrote"


# What Gemini CLI 0.61.0 withholds from the MCP servers (and hooks) it starts, of memesh.launchers'
# DATABASE_ENVIRONMENT: any name that looks like a secret to it (…PASSWORD, …KEY, …CERT…, …AUTH). The README's team
# section says so and what to use instead (~/.pgpass through PGPASSFILE; TLS files in the URL or a service file).
GEMINI_WITHHOLDS = {"PGPASSWORD", "PGSSLCERT", "PGSSLKEY", "PGSSLCERTMODE", "PGSSLROOTCERT", "PGREQUIREAUTH"}


def test_gemini_cli_gives_its_mcp_server_the_database_environment_but_the_names_it_takes_for_secrets(
    tmp_path: Path,
) -> None:
    from memesh.launchers import DATABASE_ENVIRONMENT

    gemini = Gemini(tmp_path)
    out = tmp_path / "env.json"
    server = tmp_path / "server"
    # The server Gemini starts writes down its environment, then is memesh-mcp (so that Gemini sees it connect).
    server.write_text(
        f"#!{sys.executable}\nimport json, os\nopen({str(out)!r}, 'w').write(json.dumps(dict(os.environ)))\n"
        f"os.execv({str(BIN / 'memesh-mcp')!r}, [{str(BIN / 'memesh-mcp')!r}])\n"
    )
    server.chmod(0o755)
    assert gemini.run("mcp", "add", "--scope", "user", "memesh", str(server)).returncode == 0
    (gemini.home / ".gemini" / "trustedFolders.json").write_text(json.dumps({str(gemini.repo): "TRUST_FOLDER"}))
    values = {name: f"value-of-{name.lower()}" for name in DATABASE_ENVIRONMENT}
    values |= {"MEMESH_DIR": str(gemini.home / ".memesh"), "MEMESH_DB_PATH": str(gemini.db)}
    values["MEMESH_DATABASE_URL"] = "postgresql://alice:pw@db.invalid/memesh"  # a password in a URL passes
    listed = gemini.run("mcp", "list", env=values)
    assert listed.returncode == 0, listed.stdout + listed.stderr
    arrived = json.loads(out.read_text())
    assert {name for name in values if arrived.get(name) != values[name]} == GEMINI_WITHHOLDS
