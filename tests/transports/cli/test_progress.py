"""Long CLI work at a terminal: `memesh import` shows a progress line on stderr (only on a terminal), and Ctrl-C
says in one line that nothing was half-written, which the database confirms."""

from __future__ import annotations

import json
import os
import pty
import select
import signal
import subprocess
from typing import TYPE_CHECKING

from memesh.transports.cli.app import INTERRUPTED
from tests.transports.cli.conftest import MEMESH_BIN

if TYPE_CHECKING:
    from pathlib import Path

    from tests.transports.cli.conftest import Process

WAIT_SECONDS = 60.0


def bundle(folder: Path, count: int) -> Path:
    """An export bundle of `count` small memories."""
    entities = [
        {"name": f"m-{i}", "type": "note", "title": f"Memory {i}", "observations": [f"fact {i}"], "tags": []}
        for i in range(count)
    ]
    path = folder / f"bundle-{count}.json"
    path.write_text(json.dumps({"version": "3.1.0", "entity_count": count, "entities": entities}), encoding="utf-8")
    return path


class AtTerminal:
    """`memesh` with stderr on a pseudo-terminal (stdout a pipe), read as it writes."""

    def __init__(self, memesh_process: Process, *argv: str) -> None:
        self.controller, terminal = pty.openpty()
        self.process = subprocess.Popen(
            [str(MEMESH_BIN), *argv],
            cwd=memesh_process.cwd,
            env=memesh_process.env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=terminal,
        )
        os.close(terminal)
        self.seen = b""

    def read_until(self, text: str) -> bool:
        """Read the terminal until `text` shows (True) or the process closes it (False)."""
        while text.encode() not in self.seen:
            ready, _, _ = select.select([self.controller], [], [], WAIT_SECONDS)
            assert ready, f"nothing on the terminal for {WAIT_SECONDS} s: {self.seen!r}"
            try:
                chunk = os.read(self.controller, 4096)
            except OSError:  # EIO: every writer has closed the terminal
                return False
            if not chunk:
                return False
            self.seen += chunk
        return True

    def finish(self) -> tuple[int, str, str]:
        """Exit status, stdout, and everything shown on the terminal."""
        self.read_until("\0never\0")
        assert self.process.stdout is not None
        out = self.process.stdout.read().decode()
        code = self.process.wait(timeout=WAIT_SECONDS)
        os.close(self.controller)
        return code, out, self.seen.decode()


def test_import_at_a_terminal_shows_progress_on_stderr_and_clears_it(memesh_process: Process, tmp_path: Path) -> None:
    run = AtTerminal(memesh_process, "import", str(bundle(tmp_path, 40)))
    code, out, terminal = run.finish()
    assert code == 0
    assert out.splitlines()[0] == "Imported: 40, Skipped: 0, Appended: 0"
    assert "Importing: 40/40 (100%)" in terminal
    assert "\r\x1b[K" in terminal  # rewritten in place, and erased before the summary


def test_import_without_a_terminal_prints_no_progress(memesh_process: Process, tmp_path: Path) -> None:
    done = memesh_process("import", str(bundle(tmp_path, 40)))
    assert done.code == 0
    assert "Importing" not in done.err
    assert "\r" not in done.err


def test_ctrl_c_during_an_import_says_so_in_one_line_and_writes_nothing(
    memesh_process: Process, tmp_path: Path
) -> None:
    run = AtTerminal(memesh_process, "import", str(bundle(tmp_path, 4000)))
    assert run.read_until("Importing: ")
    run.process.send_signal(signal.SIGINT)
    code, out, terminal = run.finish()
    assert code == 130
    assert out == ""
    assert terminal.endswith(f"\r\x1b[K{INTERRUPTED}\r\n")
    assert memesh_process("export", "--json").json()["entity_count"] == 0
