"""The SDK's import, as memesh-mcp's server pays it: child CPU (user + system, os.wait4) of each way of importing it,
interleaved run by run beside `python -c pass` (issue 22, design (a): import only what the low-level stdio server
needs).

Cases, each a new process:
- `import memesh.transports.mcp.server` as it is (the SDK's `mcp/__init__` imports the client, `mcp.server`'s
  imports MCPServer with starlette, uvicorn and httpx);
- the same with `mcp` and `mcp.server` registered first as bare packages (their `__init__` never runs), the variant
  docs/adr/0003-start-up.md measured at -15 %;
- `import mcp_types` alone (the pydantic models of both protocol eras, which the low-level server needs) and
  `import pydantic` alone: the floor any design that loads the SDK's types pays.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from collections.abc import Sequence

from _common import machine_line, median

BARE = """
import importlib.util, sys, types
for name in ("mcp", "mcp.server"):
    spec = importlib.util.find_spec(name)
    module = types.ModuleType(name)
    module.__path__ = list(spec.submodule_search_locations)
    module.__spec__ = spec
    sys.modules[name] = module
# What MeMesh's server takes from mcp.server's __init__, from the modules that define it.
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import Server
sys.modules["mcp.server"].Server = Server
sys.modules["mcp.server"].ServerRequestContext = ServerRequestContext
import memesh.transports.mcp.server
"""
CASES = {
    "python -c pass": "pass",
    "server module, as is": "import memesh.transports.mcp.server",
    "server module, mcp/__init__ and mcp.server/__init__ skipped": BARE,
    "import mcp_types": "import mcp_types",
    "import pydantic": "import pydantic",
}


def cpu_ms(code: str) -> float:
    process = subprocess.Popen([sys.executable, "-c", code], cwd="/")
    _, status, usage = os.wait4(process.pid, 0)
    process.returncode = 0
    if status != 0:
        raise RuntimeError(f"exit status {status} for: {code[:80]}")
    return float(usage.ru_utime + usage.ru_stime) * 1000


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--runs", type=int, default=9, help="runs per case (default 9)")
    args = parser.parse_args(argv)
    samples: dict[str, list[float]] = {name: [] for name in CASES}
    for run in range(args.runs + 1):  # the first round warms the file cache: not counted
        for name, code in CASES.items():
            value = cpu_ms(code)
            if run:
                samples[name].append(value)
    print(f"SDK import, child CPU, {args.runs} interleaved runs (median, min–max)")
    print(machine_line())
    for name, values in samples.items():
        print(f"  {name:62} {median(values):7.1f} ms  ({min(values):.1f}–{max(values):.1f})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
