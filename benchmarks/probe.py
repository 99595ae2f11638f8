"""The hostile probe, repeatable: hostile inputs tried on each surface (MCP over stdio, HTTP over a loopback socket,
the CLI), and how many held. Bounded (a few hundred requests, under a minute or two), loopback only, its own
databases in a temporary folder.

    .venv/bin/python benchmarks/probe.py            # add --slow-loris to also hold one half-sent body (15 s)

What "held" means per category:
  secrets       every credential shape, through every write the surface has: no marker in the database bytes
  controls      escape sequences and bidi overrides in names, types, tags, observations: none stored, none printed
  nfc           a name in NFD and in NFC: one memory
  amplification a hostile body (huge envelope, thousands of tiny rows): growth <= 16x its size + 256 KiB
  bad-id        a request with a null / fraction / boolean id: answered -32600 (MCP)
  long-query    a 1 MB recall query: refused with validation.bad-body, health still answers
  bad-project   a project holding a credential: refused, nothing stored
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import re
import socket
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import httpx

REPO = Path(__file__).resolve().parent.parent
sys.path.append(str(REPO))  # appended: the installed memesh, not the bare folder, must win

from tests.secret_shapes import (  # noqa: E402
    SHAPES,
    bundle,
    database_bytes,
    learn_body,
    remember_body,
    stored_strings,
    task_body,
)

BIN = Path(sys.executable).parent
RAW = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
HOSTILE_TEXT = ["\x1b]52;c;cm0gLXJmIH4=\x07", "\x1b]0;owned\x07", "\x9b2J", "\u202eexe.txt", "\u2066x\u2069", "a\x00b"]
AMPLIFICATION, ALLOWANCE = 16, 256 * 1024


class Tally:
    def __init__(self) -> None:
        self.tried: Counter[tuple[str, str]] = Counter()
        self.held: Counter[tuple[str, str]] = Counter()

    def check(self, surface: str, category: str, held: bool) -> None:
        self.tried[surface, category] += 1
        self.held[surface, category] += int(held)

    def print(self) -> None:
        print(f"{'surface':8} {'category':14} {'tried':>6} {'held':>6}")
        for key in sorted(self.tried):
            print(f"{key[0]:8} {key[1]:14} {self.tried[key]:>6} {self.held[key]:>6}")
        total, held = sum(self.tried.values()), sum(self.held.values())
        print(f"{'all':8} {'':14} {total:>6} {held:>6}")


def _leaks(db: Path) -> list[str]:
    raw = database_bytes(db)
    return [kind for kind, (_, marker) in SHAPES.items() if marker.encode() in raw]


def _checkpoint(db: Path) -> None:
    import sqlite3

    conn = sqlite3.connect(db)
    try:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    finally:
        conn.close()


def _size(db: Path) -> int:
    return sum(p.stat().st_size for p in db.parent.iterdir() if p.name.startswith(db.name))


def _amplifiers() -> list[dict[str, Any]]:
    tiny = [{"name": f"e{i}", "type": "t"} for i in range(3000)]
    return [
        {"data": {"version": "3.1.0", "exported_at": "x" * 200_000, "entities": tiny[:1000]}, "merge_strategy": "skip"},
        {"data": {"entities": tiny}, "merge_strategy": "skip"},
        {
            "data": {
                "entities": [{"name": f"g{i}", "type": "t", "tags": [str(j) for j in range(250)]} for i in range(20)]
            },
            "merge_strategy": "skip",
        },
    ]


# -- MCP ---------------------------------------------------------------------------------------------------------


def _mcp(folder: Path, lines: Sequence[dict[str, Any] | str], client: str = "probe") -> list[dict[str, Any]]:
    """Every line piped to a fresh memesh-mcp, stdin closed; the answers (the initialize answer left out)."""
    init = {
        "jsonrpc": "2.0",
        "id": "init",
        "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": client, "version": "1"}},
    }
    sent = [init, {"jsonrpc": "2.0", "method": "notifications/initialized"}, *lines]
    text = "".join((line if isinstance(line, str) else json.dumps(line)) + "\n" for line in sent)
    done = subprocess.run(
        [str(BIN / "memesh-mcp")],
        input=text,
        capture_output=True,
        text=True,
        cwd=folder,
        timeout=300,
        check=False,
        env={**os.environ, "MEMESH_DB_PATH": str(folder / "m.db")},
    )
    return [message for line in done.stdout.splitlines() if (message := json.loads(line)).get("id") != "init"]


def _call(index: int, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": index, "method": "tools/call", "params": {"name": tool, "arguments": arguments}}


def probe_mcp(tally: Tally, root: Path) -> None:
    folder = root / "mcp"
    folder.mkdir()
    calls: list[dict[str, Any] | str] = []
    for kind, (secret, _) in SHAPES.items():
        calls += [
            _call(len(calls), "remember", remember_body(kind)),
            _call(len(calls) + 1, "learn", learn_body(kind)),
            _call(len(calls) + 2, "task_state", task_body(kind)),
            _call(len(calls) + 3, "remember", {"note": f"note {secret}\n\nmore"}),
        ]
    calls.append(_call(len(calls), "import", {"data": bundle(), "merge_strategy": "overwrite"}))
    _mcp(folder, calls, client=f"probe {SHAPES['password-assignment'][0]}")
    leaks = _leaks(folder / "m.db")
    for kind in SHAPES:
        tally.check("mcp", "secrets", kind not in leaks)
    tally.check("mcp", "secrets", not any("Qz7Kx" in s for s in stored_strings(folder / "m.db")))
    hostile = [
        _call(i, "remember", {"name": f"n{i}{text}", "type": f"t{text}", "tags": [text], "observations": [f"o{text}"]})
        for i, text in enumerate(HOSTILE_TEXT)
    ]
    _mcp(folder, hostile)
    stored = stored_strings(folder / "m.db")
    for text in HOSTILE_TEXT:
        tally.check("mcp", "controls", not any(RAW.sub("", text) != text and text in s for s in stored))
    bad_ids: list[dict[str, Any] | str] = [
        {"jsonrpc": "2.0", "id": bad, "method": "tools/list"} for bad in (None, 1.5, True, [1], {"a": 1})
    ]
    answers = _mcp(folder, [*bad_ids, '{"jsonrpc": "2.0", "id": 41}', "not json at all"])
    refusals = [a for a in answers if a.get("error", {}).get("code") in (-32600, -32700)]
    for index in range(len(bad_ids) + 2):
        tally.check("mcp", "bad-id", index < len(refusals))
    long_query = _mcp(folder, [_call(1, "recall", {"query": "word " * 200_000})])
    tally.check("mcp", "long-query", long_query[0]["result"]["isError"] is True)
    project = _mcp(folder, [_call(1, "task_state", {"project": SHAPES["url-userinfo"][0], "goal": "g"})])
    tally.check("mcp", "bad-project", project[0]["result"]["isError"] is True)


# -- HTTP --------------------------------------------------------------------------------------------------------


def _serve(folder: Path) -> tuple[subprocess.Popen[str], str]:
    env = {**os.environ, "MEMESH_DB_PATH": str(folder / "m.db"), "MEMESH_DIR": str(folder)}
    proc = subprocess.Popen(
        [str(BIN / "memesh"), "serve", "--port", "0"],
        cwd=folder,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    assert proc.stdout is not None
    line = proc.stdout.readline()
    url = re.search(r"http://\S+", line)
    assert url, line
    return proc, url.group()


def probe_http(tally: Tally, root: Path, *, slow_loris: bool) -> None:
    folder = root / "http"
    folder.mkdir()
    proc, url = _serve(folder)
    try:
        with httpx.Client(base_url=url, timeout=120) as http:
            for kind, (secret, _) in SHAPES.items():
                http.post("/v1/remember", json=remember_body(kind))
                http.post("/v1/remember", json={"note": f"note {secret}\n\nmore"})
                http.post("/v1/learn", json=learn_body(kind))
            http.post("/v1/import", json={"data": bundle(), "merge_strategy": "overwrite"})
            leaks = _leaks(folder / "m.db")
            for kind in SHAPES:
                tally.check("http", "secrets", kind not in leaks)
            for text in HOSTILE_TEXT:
                http.post("/v1/remember", json={"name": f"n{text}", "type": f"t{text}", "observations": [f"o{text}"]})
                tally.check("http", "controls", not any(text in s for s in stored_strings(folder / "m.db")))
            http.post("/v1/remember", json={"name": "cafe\u0301", "type": "t", "observations": ["one"]})
            http.post("/v1/remember", json={"name": "caf\u00e9", "type": "t", "observations": ["two"]})
            one = http.get("/v1/entities/caf%C3%A9").json()["data"]
            tally.check("http", "nfc", one["observations"] == ["one", "two"])
            for body in _amplifiers():
                raw = json.dumps(body).encode()
                _checkpoint(folder / "m.db")  # the WAL then holds this request's pages only
                before = _size(folder / "m.db")
                http.post("/v1/import", content=raw, headers={"content-type": "application/json"})
                grown = _size(folder / "m.db") - before
                print(
                    f"# amplification: {len(raw):,} bytes sent, {grown:,} grown ({grown / len(raw):.1f}x)",
                    file=sys.stderr,
                )
                tally.check("http", "amplification", grown <= AMPLIFICATION * len(raw) + ALLOWANCE)
            refused = http.post("/v1/recall", json={"query": "word " * 200_000})
            tally.check(
                "http", "long-query", refused.json().get("errorCode") in ("validation.bad-body", "payload.too-large")
            )
            tally.check("http", "long-query", http.get("/v1/health").status_code == 200)
            bad = http.post("/v1/learn", json={"error": "e", "fix": "f", "project": SHAPES["redis-password-only"][0]})
            tally.check("http", "bad-project", bad.json().get("errorCode") == "validation.bad-body")
        if slow_loris:
            host, port = url.removeprefix("http://").split(":")
            with socket.create_connection((host, int(port)), timeout=30) as sock:
                sock.sendall(
                    b"POST /v1/remember HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                    b'Content-Length: 100\r\n\r\n{"name":'
                )
                started = time.monotonic()
                answer = sock.recv(4096)
                tally.check("http", "slow-loris", b" 408 " in answer and time.monotonic() - started < 25)
    finally:
        proc.terminate()
        proc.wait(timeout=30)


# -- CLI ---------------------------------------------------------------------------------------------------------


def _cli(folder: Path, *argv: str) -> tuple[int, str]:
    from memesh.transports.cli.app import run

    os.environ["MEMESH_DB_PATH"] = str(folder / "m.db")
    os.environ["MEMESH_DIR"] = str(folder)
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
        code = run(list(argv))
    return code, out.getvalue()


def probe_cli(tally: Tally, root: Path) -> None:
    folder = root / "cli"
    folder.mkdir()
    for kind, (secret, _) in SHAPES.items():
        body = remember_body(kind)
        _cli(
            folder,
            "remember",
            "--name",
            body["name"],
            "--type",
            body["type"],
            f"--title={body['title']}",
            f"--obs={body['observations'][0]}",
            f"--tags={body['tags'][0]}",
        )
        lesson = learn_body(kind)
        _cli(folder, "learn", f"--error={lesson['error']}", f"--fix={lesson['fix']}")
        _cli(folder, "task", "--project", f"p-{kind}", f"--goal={secret}")
    (folder / "bundle.json").write_text(json.dumps(bundle(keep_metadata=True)), encoding="utf-8")
    _cli(folder, "import", str(folder / "bundle.json"), "--merge", "overwrite")
    leaks = _leaks(folder / "m.db")
    for kind in SHAPES:
        tally.check("cli", "secrets", kind not in leaks)
    for index, text in enumerate(HOSTILE_TEXT):
        _cli(folder, "remember", "--name", f"h{index}{text}", "--type", f"t{text}", f"--obs=o{text}")
    import sqlite3

    conn = sqlite3.connect(folder / "m.db")
    with conn:  # as another program would write it: straight into the file
        conn.execute("UPDATE observations SET content = content || ?", (HOSTILE_TEXT[0],))
    conn.close()
    for argv in (("recall",), ("recall", "--json"), ("recall", "o"), ("export",)):
        code, printed = _cli(folder, *argv)
        tally.check("cli", "controls", code == 0 and not RAW.search(printed.replace("\n", "").replace("\t", "")))
    code, printed = _cli(folder, "task", "--project", SHAPES["url-userinfo"][0], "--goal", "g")
    tally.check("cli", "bad-project", code == 1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--slow-loris", action="store_true", help="also hold one half-sent HTTP body (15 s)")
    args = parser.parse_args()
    tally = Tally()
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="memesh-probe-") as tmp:
        root = Path(tmp)
        steps: list[tuple[str, Callable[[], None]]] = [
            ("mcp", lambda: probe_mcp(tally, root)),
            ("http", lambda: probe_http(tally, root, slow_loris=args.slow_loris)),
            ("cli", lambda: probe_cli(tally, root)),
        ]
        for name, step in steps:
            began = time.perf_counter()
            step()
            print(f"# {name}: {time.perf_counter() - began:.1f} s", file=sys.stderr)
    tally.print()
    print(f"# {time.perf_counter() - started:.1f} s in all", file=sys.stderr)


if __name__ == "__main__":
    main()
