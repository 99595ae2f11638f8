"""Assemble the plugin payload: the folder a Claude Code or Codex plugin install copies, holding only what runs.

    python tools/plugin_payload.py [--out plugin] [--check] [--marketplace DIR]

The marketplace entry (.claude-plugin/marketplace.json) points at `plugin/`, which this writes from the checkout:
- the manifests (.claude-plugin/plugin.json and mcp.json, .codex-plugin/, hooks/hooks.json) and the skills
  (skills/memesh, skills/memesh-review), as in the checkout;
- the launchers of tools/plugin/: `bin/memesh-mcp`, `bin/memesh-hook` and `bin/memesh` run MeMesh from an
  environment the plugin builds for itself on first use in ~/.memesh/runtime (`lib/memesh-bootstrap`: uv when
  present, else venv + pip), one per payload; until it is ready `lib/memesh-first-start` serves MCP from the
  standard library (the opening answered at once, the build in the background, the session handed over after);
- `wheels/memesh-<version>-py3-none-any.whl`, built from this checkout (`pip wheel --no-deps`);
- `PAYLOAD`: on its first line a digest of every file the wheel is built from, which names the environment: a
  payload built from other sources names another, so an upgraded plugin builds its own and a rebuild from the same
  sources reuses the old one; on its second, a digest of the manifests and launchers too, so any change rebuilds.
No `.venv`, `build/`, tests, caches or node_modules: a host copies the whole folder into its plugin cache. The
payload is rebuilt only when its digest changes (`--check` says whether it is current, exit 1 if not).

`--marketplace DIR` writes a marketplace of its own instead: DIR/.claude-plugin/marketplace.json and the payload in
DIR/plugin. Claude Code (2.1.332) runs a plugin of a marketplace added from a local folder from that folder, not
from the copy `claude plugin install` makes, so a marketplace added from the checkout breaks when the checkout moves
and changes under the running plugin with every `make install`; one added from DIR changes only when this is run
again.
"""

from __future__ import annotations

import argparse
import hashlib
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator, Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SOURCES = ("memesh", "generated", "transports", "schemas")
SKIPPED_PARTS = {"__pycache__", ".mypy_cache", ".ruff_cache", ".pytest_cache"}
MANIFESTS = (
    ".claude-plugin/plugin.json",
    ".claude-plugin/mcp.json",
    ".codex-plugin/plugin.json",
    ".codex-plugin/mcp.json",
    "hooks/hooks.json",
    "skills/memesh/SKILL.md",
    "skills/memesh-review/SKILL.md",
)
LAUNCHERS = (
    "bin/memesh",
    "bin/memesh-mcp",
    "bin/memesh-hook",
    "lib/find-python",
    "lib/memesh-bootstrap",
    "lib/memesh-first-start",
)
EXECUTABLE = ("bin/memesh", "bin/memesh-mcp", "bin/memesh-hook")
README = """# MeMesh plugin payload

Written by `tools/plugin_payload.py` from a MeMesh for Python checkout; do not edit. A plugin install copies this
folder. On first use `bin/memesh` (or, in the background, `bin/memesh-mcp` and `bin/memesh-hook`) builds MeMesh's
own Python environment from `wheels/` in ~/.memesh/runtime (MEMESH_DIR/runtime), once per payload (`PAYLOAD` names
it); it needs Python 3.11 or newer on PATH and, that once, the package index.

Install: `claude plugin marketplace add <checkout>` then `claude plugin install memesh@memesh`.
"""


def source_files(root: Path) -> Iterator[Path]:
    yield root / "pyproject.toml"
    yield root / "README.md"  # the wheel's long description
    for folder in SOURCES:
        for path in sorted((root / folder).rglob("*")):
            if path.is_file() and not SKIPPED_PARTS.intersection(path.parts) and path.suffix != ".pyc":
                yield path


def copy_sources(target: Path, root: Path = ROOT) -> None:
    """Exactly the files the wheel is built from, copied into `target` (a clean clone's share of them)."""
    for path in source_files(root):
        copy = target / path.relative_to(root)
        copy.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(path, copy)


def digest(root: Path = ROOT) -> str:
    """The payload's name: a digest of the relative path and bytes of every file the wheel is built from."""
    hasher = hashlib.sha256()
    for path in source_files(root):
        hasher.update(str(path.relative_to(root)).encode() + b"\0" + path.read_bytes() + b"\0")
    return hasher.hexdigest()[:16]


def inputs_digest(stamp: str) -> str:
    """A digest of everything else the payload is made of (manifests, launchers), with the sources' digest."""
    hasher = hashlib.sha256(stamp.encode())
    for name in (*MANIFESTS, *(f"tools/plugin/{launcher}" for launcher in LAUNCHERS), "tools/plugin_payload.py"):
        hasher.update(name.encode() + b"\0" + (ROOT / name).read_bytes() + b"\0")
    return hasher.hexdigest()[:16]


def current(out: Path, stamp: str) -> bool:
    """Whether `out` is the payload these files make: its PAYLOAD names the sources (line 1, which names the
    environment) and the rest of what it is made of (line 2)."""
    try:
        recorded = (out / "PAYLOAD").read_text().split()
    except OSError:
        return False
    return recorded == [stamp, inputs_digest(stamp)] and any((out / "wheels").glob("memesh-*.whl"))


def assemble(target: Path, stamp: str) -> None:
    for name in MANIFESTS:
        destination = target / name
        destination.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(ROOT / name, destination)
    for name in LAUNCHERS:
        destination = target / name
        destination.parent.mkdir(exist_ok=True)
        shutil.copyfile(ROOT / "tools" / "plugin" / name, destination)
        destination.chmod(0o755 if name in EXECUTABLE else 0o644)
    wheels = target / "wheels"
    wheels.mkdir()
    # Built from a copy of exactly the files the digest reads, never in the checkout: setuptools builds in-tree
    # (build/, *.egg-info), where two builds at once collide and the editable install's leftovers live.
    with tempfile.TemporaryDirectory(prefix="memesh-wheel-") as scratch:
        sources = Path(scratch) / "src"
        copy_sources(sources)
        command = [sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--disable-pip-version-check"]
        subprocess.run([*command, "-w", str(wheels), str(sources)], check=True, cwd=scratch)
    (target / "README.md").write_text(README)
    (target / "PAYLOAD").write_text(f"{stamp}\n{inputs_digest(stamp)}\n")


def build(out: Path) -> Path:
    """Write the payload into `out` unless it is already current; returns `out`."""
    stamp = digest()
    if current(out, stamp):
        return out
    out.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix=".plugin-", dir=out.parent) as scratch:
        staged = Path(scratch) / "payload"
        staged.mkdir()
        assemble(staged, stamp)
        if out.exists():
            shutil.rmtree(out)
        staged.rename(out)
    return out


def marketplace(folder: Path) -> Path:
    """A self-contained marketplace in `folder`: its catalog, and the payload its entry points at; returns `folder`."""
    catalog = folder / ".claude-plugin" / "marketplace.json"
    catalog.parent.mkdir(parents=True, exist_ok=True)
    build(folder / "plugin")
    staged = catalog.with_name(".marketplace.json.tmp")
    shutil.copyfile(ROOT / ".claude-plugin" / "marketplace.json", staged)
    staged.replace(catalog)
    return folder


def size(folder: Path) -> int:
    return sum(path.stat().st_size for path in folder.rglob("*") if path.is_file())


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--out", type=Path, default=ROOT / "plugin", help="the payload folder (default plugin/)")
    parser.add_argument("--check", action="store_true", help="only say whether the payload is current")
    parser.add_argument("--marketplace", type=Path, help="write a marketplace (catalog and payload) into this folder")
    args = parser.parse_args(argv)
    if args.marketplace is not None:
        folder = marketplace(args.marketplace.expanduser().resolve())
        print(f"marketplace in {folder}: claude plugin marketplace add {folder}")
        return 0
    if args.check:
        fresh = current(args.out, digest())
        print(f"{args.out}: {'current' if fresh else 'out of date: run tools/plugin_payload.py'}")
        return 0 if fresh else 1
    out = build(args.out)
    print(f"plugin payload in {out} ({size(out) / 1e6:.1f} MB, environment env-{digest()})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
