"""What a hook process loads (structure, not timing: the figures are benchmarks/hooks.py's), and the project id a
hook keeps with the stamps of what git's answer depends on."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path

import pytest

from memesh.adapters import project_git
from memesh.core import briefing_text, notes

from .conftest import HookEnv
from .helpers import remember


def _modules_after(env: HookEnv, event: str, payload: Mapping[str, object]) -> set[str]:
    """The modules a cold hook process had loaded when it finished (printed from an exit handler)."""
    code = (
        "import atexit, sys\n"
        "atexit.register(lambda: print('\\n' + ' '.join(sorted(sys.modules)), file=sys.stderr))\n"
        f"sys.argv = ['memesh-hook', {event!r}]\n"
        "from memesh.transports.hooks.main import main\n"
        "main()\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        input=json.dumps(payload).encode(),
        capture_output=True,
        env={**env.env, "MEMESH_HOOK_SERVER": "0"},
        cwd=env.project_dir,
        timeout=60,
        check=True,
    )
    return set(done.stderr.decode().strip().splitlines()[-1].split())


def test_a_cold_pre_edit_loads_only_the_store_it_uses(hook_env: HookEnv) -> None:
    subprocess.run(["git", "init", "-q", str(hook_env.project_dir)], check=True)
    remember(hook_env, "wal-mode", tags=[f"project:{hook_env.project}", "file:store.py"])
    payload = {
        "session_id": "s1",
        "cwd": str(hook_env.project_dir),
        "tool_name": "Edit",
        "tool_input": {"file_path": str(hook_env.project_dir / "store.py"), "old_string": "a", "new_string": "b"},
    }
    loaded = _modules_after(hook_env, "pre-tool-use", payload)
    lean = "memesh.store.postgres_hooks" if hook_env.backend.postgres else "memesh.store.sqlite_hooks"
    assert lean in loaded and "memesh.ops.session_memory" in loaded
    unused = {
        "memesh.store.sqlite",  # the whole store: every mixin
        "memesh.store.postgres",  # the whole PostgreSQL store
        "memesh.store.postgres_search",
        "memesh.store.sqlite_messages",
        "memesh.store.messages",
        "memesh.store.proposals",
        "memesh.store.sqlite_search",
        "memesh.store.insights",
        "memesh.core.notes",
        "memesh.core.work_package",
        "uuid",
        "subprocess",  # the project id was kept from the first run (remember's), or git is asked
    }
    assert loaded & unused <= {"subprocess"}
    # The second run finds the project id it kept: no git, so no subprocess module (on SQLite: psycopg's own import
    # loads subprocess, through ctypes.util, so on PostgreSQL the module says nothing about git).
    again = _modules_after(hook_env, "pre-tool-use", payload)
    assert "subprocess" not in again or hook_env.backend.postgres


def test_a_bash_call_that_is_not_a_commit_loads_no_store_and_no_returns(hook_env: HookEnv) -> None:
    payload = {
        "session_id": "s1",
        "cwd": str(hook_env.project_dir),
        "tool_name": "Bash",
        "tool_input": {"command": "ls"},
    }
    loaded = _modules_after(hook_env, "post-tool-use", payload)
    assert not {name for name in loaded if name.startswith(("memesh.store", "returns", "sqlite3"))}
    # It leaves before the door: no gate, no schema, no operation (of memesh.app only the seam that records the
    # outcome, memesh.app.hook_outcomes); and no subprocess, dataclasses or secret patterns.
    recording = {"memesh.app", "memesh.app.hook_outcomes"}
    assert not {name for name in loaded if name.startswith(("memesh.app", "memesh.ops", "memesh.schema"))} - recording
    assert not loaded & {"subprocess", "dataclasses", "memesh.core.clean", "memesh.core.commits"}


def test_a_prompt_in_a_session_that_names_no_recipient_leaves_before_the_door(hook_env: HookEnv) -> None:
    payload = {"session_id": "s1", "cwd": str(hook_env.project_dir), "prompt": "go on"}
    loaded = _modules_after(hook_env, "user-prompt-submit", payload)
    unused = ("memesh.store", "memesh.ops", "memesh.schema", "memesh.app.dispatch", "returns", "sqlite3")
    assert not {name for name in loaded if name.startswith(unused)}
    assert "dataclasses" not in loaded and hook_env.outcomes() == []  # quiet: nothing printed, nothing recorded


def test_cleaning_text_compiles_no_secret_pattern_it_does_not_need() -> None:
    code = (
        "from memesh.core import clean\n"
        "from memesh.core.secret_formats import CATALOGUE\n"
        "compiled = lambda: sum('pattern' in rule.__dict__ for rule in CATALOGUE.rules)\n"
        "assert clean.redact('plain words') == 'plain words'\n"
        "assert compiled() == 0\n"
        "assert clean.REDACTED in clean.redact('token=abcdef123456')\n"
        "assert 0 < compiled() < len(CATALOGUE.rules)\n"
        "import sys; assert 'returns' not in sys.modules\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=60)


def test_the_displayed_ellipsis_is_the_notes_one() -> None:
    assert briefing_text.ELLIPSIS == notes.ELLIPSIS


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    folder = tmp_path / "repo"
    folder.mkdir()
    subprocess.run(["git", "init", "-q", str(folder)], check=True)
    project_git.clear()
    return folder


def test_the_project_id_is_kept_with_its_stamps_and_asked_again_when_they_change(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cache = tmp_path / "m" / project_git.CACHE_FILE
    cache.parent.mkdir()
    first = project_git.project_for(str(repo), cache)
    assert json.loads(cache.read_text())[str(repo)][1] == first
    assert cache.stat().st_mode & 0o777 == 0o600

    asked: list[str] = []
    real = project_git._git

    def counted(cwd: str, *args: str) -> str | None:
        asked.append(args[0])
        return real(cwd, *args)

    monkeypatch.setattr(project_git, "_git", counted)
    project_git.clear()  # a new process: the file answers
    assert project_git.project_for(str(repo), cache) == first and asked == []

    subprocess.run(["git", "-C", str(repo), "remote", "add", "origin", "https://github.com/acme/widgets"], check=True)
    project_git.clear()
    moved = project_git.project_for(str(repo), cache)
    assert asked and moved != first and moved.startswith("widgets~")
    asked.clear()
    assert project_git.project_for(str(repo), cache) == moved and asked == []  # this process remembers too


def test_a_folder_outside_any_repository_is_not_kept_in_the_file(tmp_path: Path) -> None:
    folder = tmp_path / "plain"
    folder.mkdir()
    cache = tmp_path / project_git.CACHE_FILE
    project_git.clear()
    if project_git.stamps(str(folder)) is not None:
        pytest.skip("a .git above the test's temporary folder")
    assert project_git.project_for(str(folder), cache) == project_git._ask_git(str(folder))
    assert not cache.exists()


def test_a_cold_session_start_loads_no_hashlib(hook_env: HookEnv) -> None:
    """hashlib loads OpenSSL (~5-10 ms): a briefing hashes nothing, so neither notes nor messages may import it."""
    subprocess.run(["git", "init", "-q", str(hook_env.project_dir)], check=True)
    remember(hook_env, "wal-mode", tags=[f"project:{hook_env.project}"])
    payload = {"session_id": "s1", "cwd": str(hook_env.project_dir), "source": "startup"}
    _modules_after(hook_env, "session-start", payload)  # the first run keeps the project id (git, hashing)
    loaded = _modules_after(hook_env, "session-start", payload)
    assert "memesh.ops.briefing" in loaded and "memesh.core.notes" in loaded
    assert not loaded & {"hashlib", "_hashlib"}


REPO = Path(__file__).resolve().parents[3]
INSTALLED_HOOK = Path(sys.executable).parent / "memesh-hook"
# What the warm path may load beyond the interpreter's own start-up before it has its answer: the socket client.
CLIENT = {
    "__future__",
    "_socket",
    "memesh",
    "memesh.transports",
    "memesh.transports.hooks",
    "memesh.transports.hooks.main",
    "memesh.transports.hooks.client",
    "memesh.transports.hooks.wire",
    # How the process ends without the interpreter's teardown (issue 36): two built-in modules and a small one.
    "gc",
    "atexit",
    "memesh.quick_exit",
}


def _imported(stderr: str) -> set[str]:
    return {line.rsplit("|", 1)[1].strip() for line in stderr.splitlines() if line.startswith("import time:")} - {
        "imported package"
    }


def test_the_installed_memesh_hook_is_the_packages_own_launcher() -> None:
    """Not pip's generated console script (older pips' imports `re` first): the file the package ships, whose only
    line of code past its shebang imports the hook's main."""
    installed = INSTALLED_HOOK.read_text().splitlines()
    shipped = (REPO / "transports" / "hooks" / "memesh-hook").read_text().splitlines()
    assert installed[0].startswith("#!") and "python" in installed[0]
    assert installed[1:] == shipped[1:]


def test_the_installed_memesh_hook_answers_warm_having_loaded_only_its_socket_client(hook_env: HookEnv) -> None:
    import socket
    import threading

    from memesh import paths
    from memesh.transports.hooks import wire

    path = wire.socket_path(*wire.served(hook_env.env))
    paths.ensure_private_dir(Path(path).parent)
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    target, fd = wire.address(path)
    listener.bind(target)
    if fd is not None:
        os.close(fd)
    listener.listen(1)

    def serve() -> None:  # a server that takes the hook and answers: status 0 and these bytes
        conn, _ = listener.accept()
        with conn:
            conn.recv(1 << 20)
            conn.sendall(wire.ACCEPT + wire.framed(bytes([0]), b'{"answered": "warm"}'))

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        env = {**hook_env.env, "PYTHONPROFILEIMPORTTIME": "1"}
        done = subprocess.run(
            [str(INSTALLED_HOOK), "pre-tool-use"],
            input=b'{"session_id": "s1"}',
            capture_output=True,
            env=env,
            cwd=hook_env.project_dir,
            timeout=60,
            check=False,
        )
        floor = subprocess.run(
            [sys.executable, "-c", "pass"], capture_output=True, env=env, timeout=60, check=True
        ).stderr.decode()
    finally:
        thread.join(timeout=10)
        listener.close()
        Path(path).unlink(missing_ok=True)
    assert done.returncode == 0 and done.stdout == b'{"answered": "warm"}'
    extra = _imported(done.stderr.decode()) - _imported(floor)
    assert extra <= CLIENT, extra - CLIENT
    assert "re" not in extra


def test_the_plugins_hook_command_starts_no_process_before_it_runs_memesh_hook(hook_env: HookEnv) -> None:
    """With CLAUDE_PLUGIN_ROOT set and the checkout's .venv there, the launcher execs it at once: no command
    substitution (a fork each) for the PATH candidate it does not need."""
    done = subprocess.run(
        ["sh", "-x", str(REPO / "bin" / "memesh-hook"), "post-tool-use"],
        input=b'{"session_id": "s1", "tool_name": "Bash", "tool_input": {"command": "ls"}}',
        capture_output=True,
        env={**hook_env.env, "MEMESH_HOOK_SERVER": "0"},
        cwd=hook_env.project_dir,
        timeout=60,
        check=False,
    )
    trace = done.stderr.decode()
    assert done.returncode == 0
    assert "exec " in trace and ".venv/bin/memesh-hook" in trace, trace
    assert "command -v" not in trace and "pwd" not in trace, trace
