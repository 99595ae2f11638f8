"""The suite runs in a home of its own (tests/isolation.py): no test, and no process a test starts, reaches the real
home; the session's end checks that the real ~/.memesh is as the session found it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from memesh import paths
from memesh.adapters import claude_settings_file, transcripts
from tests import isolation

SESSION = Path(os.environ[isolation.SESSION_ROOT])
REAL_HOME = Path(os.environ[isolation.REAL_HOME])

# Every place MeMesh writes or reads under a home, as a process started now would see them.
WHERE = """
import json
from pathlib import Path
from memesh import paths
from memesh.adapters import claude_settings_file, transcripts
print(json.dumps({
    "home": str(Path.home()),
    "memesh": str(paths.memesh_dir()),
    "db": str(paths.db_path()),
    "router": str(paths.router_socket()),
    "claude settings": str(claude_settings_file.settings_path()),
    "transcripts": str(transcripts.projects_dir()),
}))
"""


def _inside_the_session(found: dict[str, str]) -> None:
    for name, where in found.items():
        assert Path(where).is_relative_to(SESSION), (name, where)
        assert not Path(where).is_relative_to(REAL_HOME / ".memesh"), (name, where)


def test_home_and_every_memesh_path_are_the_sessions_own() -> None:
    assert SESSION.is_dir()
    assert Path.home() != REAL_HOME
    _inside_the_session(
        {
            "home": str(Path.home()),
            "memesh": str(paths.memesh_dir()),
            "db": str(paths.db_path()),
            "claude settings": str(claude_settings_file.settings_path()),
            "transcripts": str(transcripts.projects_dir()),
        }
    )


def test_a_process_a_test_starts_sees_the_same_home() -> None:
    done = subprocess.run([sys.executable, "-c", WHERE], capture_output=True, text=True, check=True)
    found = json.loads(done.stdout)
    assert found["home"] == str(Path.home())
    _inside_the_session(found)


def test_none_of_the_callers_own_settings_reach_a_test() -> None:
    leaked = [
        name
        for name in os.environ
        if name.startswith(isolation.CLEARED_PREFIXES)
        and name not in ("MEMESH_DIR", "MEMESH_UPDATE_CHECK", "MEMESH_AUTHOR")
    ]
    assert leaked == []
    assert not set(isolation.CLEARED) & set(os.environ)


def test_git_has_an_identity_of_the_sessions_own() -> None:
    done = subprocess.run(["git", "config", "--global", "user.email"], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "tests@memesh.invalid"


def test_a_listing_tells_every_entry_added_removed_or_changed(tmp_path: Path) -> None:
    folder = tmp_path / ".memesh"
    folder.mkdir()
    (folder / "kept").write_text("same")
    (folder / "changed").write_text("before")
    (folder / "removed").write_text("x")
    before = isolation.listing(folder)
    (folder / "changed").write_text("after, longer")
    (folder / "removed").unlink()
    (folder / "added.sock.lock").write_text("")
    found = isolation.changes(before, isolation.listing(folder))
    assert "added added.sock.lock" in found
    assert "removed removed" in found
    assert "changed changed" in found
    assert not any(line.endswith(" kept") for line in found)


def test_a_folder_that_is_absent_lists_empty_and_its_appearance_is_a_change(tmp_path: Path) -> None:
    folder = tmp_path / ".memesh"
    before = isolation.listing(folder)
    assert before == {}
    folder.mkdir()
    assert isolation.changes(before, isolation.listing(folder)) == ["added ."]
