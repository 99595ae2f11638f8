"""The cleaner's cost on ordinary text: `python tests/core/bench_clean.py [--corpus REV] [--against REV]`.

Not collected by pytest. The observation set is this repository's own prose, code and commit log at a git revision
(`--corpus`, default HEAD), cut the way memories are written (a paragraph, four lines of code, a log line), so
nearly all of it holds no credential: the cost it measures is what every write pays. `--against REV` also times the
cleaner as it was at REV (its memesh/core/clean.py loaded beside the current one), interleaved round by round so that
both see the same machine load. Prints the fastest round's CPU time per observation and per MB, and the first call's
cost (the rules compile on first use).
"""

from __future__ import annotations

import argparse
import importlib.util
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Mapping
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _git(*args: str) -> str:
    return subprocess.run(["git", "-C", str(ROOT), *args], capture_output=True, text=True, check=True).stdout


def observations(rev: str = "HEAD") -> list[str]:
    files = _git("ls-tree", "-r", "--name-only", rev).splitlines()
    texts: list[str] = []
    for path in files:
        if path in ("README.md", "CHANGELOG.md") or (path.startswith("docs/") and path.endswith(".md")):
            texts += [p.strip() for p in _git("show", f"{rev}:{path}").split("\n\n") if p.strip()]
        elif path.startswith("memesh/") and path.endswith(".py"):
            lines = _git("show", f"{rev}:{path}").splitlines()
            texts += ["\n".join(lines[i : i + 4]) for i in range(0, len(lines), 4) if "".join(lines[i : i + 4]).strip()]
    texts += _git("log", "--format=%h %s", rev).splitlines()
    return [text[:2000] for text in texts]


def _load_clean(rev: str) -> Callable[[str], str]:
    source = _git("show", f"{rev}:memesh/core/clean.py")
    folder = Path(tempfile.mkdtemp())
    (folder / "clean_then.py").write_text(source, encoding="utf-8")
    spec = importlib.util.spec_from_file_location("clean_then", folder / "clean_then.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["clean_then"] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    clean_text: Callable[[str], str] = module.clean_text
    return clean_text


def _rounds(cleaners: Mapping[str, Callable[[str], str]], texts: list[str], count: int = 9) -> dict[str, float]:
    """The fastest of `count` rounds of CPU time (the machine may be shared: time spent waiting is not counted, and
    the fastest round is the one least disturbed)."""
    times: dict[str, list[float]] = {name: [] for name in cleaners}
    for _ in range(count):
        for name, clean in cleaners.items():
            started = time.process_time()
            for text in texts:
                clean(text)
            times[name].append(time.process_time() - started)
    return {name: min(values) for name, values in times.items()}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--corpus", default="HEAD")
    parser.add_argument("--against")
    parser.add_argument("-v", action="store_true", help="print every observation cleaning changed")
    args = parser.parse_args()
    texts = observations(args.corpus)
    prose = [text for text in texts if not text.startswith(("    ", "def ", "class ", "from ", "import ", "#", '"""'))]
    started = time.perf_counter()
    from memesh.core.clean import clean_all, clean_text

    clean_text("password=first-call-compiles-the-rules sk-Qz7Kx00Vb2Lp9Rt4W")
    first = time.perf_counter() - started
    cleaners: dict[str, Callable[[str], str]] = {"now": clean_text}
    if args.against:
        cleaners[args.against] = _load_clean(args.against)
    changed = sum(1 for text in texts if clean_text(text) != text)
    print(
        f"{len(texts)} observations ({len(prose)} of them prose), "
        f"{sum(len(t.encode()) for t in texts) / 1e6:.2f} MB, {changed} changed by cleaning"
    )
    print(f"first call (import + compile): {first * 1e3:.1f} ms")
    for label, data in (("all", texts), ("prose", prose)):
        size = sum(len(text.encode()) for text in data) / 1e6
        for name, median in _rounds(cleaners, data).items():
            print(
                f"{label:5} {name:8} {median * 1e3:7.1f} ms  {median / len(data) * 1e6:6.2f} us/observation  "
                f"{median / size * 1e3:6.1f} ms/MB"
            )
    started = time.perf_counter()
    clean_all(texts)
    print(f"clean_all (one write of all of them): {(time.perf_counter() - started) * 1e3:.1f} ms")
    if args.v:
        for text in texts:
            if clean_text(text) != text:
                print("---", text[:300], "\n=>", clean_text(text)[:300])
    sys.stdout.flush()


if __name__ == "__main__":
    main()
