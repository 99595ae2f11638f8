"""The cleaner's cost on every write: `clean_text` over a 10 KB text of ordinary prose and code, over the same text
with credentials in it, and as a memory's observations (short strings), plus the cost of importing the cleaner.

    .venv/bin/python benchmarks/cleaner.py [--repeat 200]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time

_PROSE = (
    "Decided to keep the API key rotation in the deploy runbook; the token lifetime is 24 hours. The recall path "
    "reads the FTS index first, then the vectors when hybrid mode is on (see docs/adr/0006-hybrid.md). "
)
_CODE = (
    "def load(path: str) -> Config:\n"
    '    token = os.environ.get("MEMESH_TOKEN")\n'
    "    password = settings.db.password\n"
    "    api_key = None\n"
    '    const_id = "123e4567-e89b-12d3-a456-426614174000"\n'
    '    return Config(path=path, token=token, sha="3f2a9c1b8d7e6f5a4b3c2d1e0f9a8b7c6d5e4f3a")\n'
)
_SECRETS = (
    "export GITHUB_TOKEN=ghp_Qz7Kx12Vb2Lp9Rt4WaBcDeFgHiJkLmNoPqRs\n"
    "postgres://app:Xy7pQ2kLm9@db.internal:5432/prod\n"
    "machine api.example.com login deploy password s3cr3tPa55\n"
)


def _text(size: int, *, secrets: bool) -> str:
    unit = _PROSE + _CODE + (_SECRETS if secrets else "")
    return (unit * (size // len(unit) + 1))[:size]


def _time(fn: object, repeat: int) -> float:
    assert callable(fn)
    samples = []
    for _ in range(repeat):
        start = time.process_time()
        fn()
        samples.append(time.process_time() - start)
    return statistics.median(samples)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=200)
    args = parser.parse_args()
    from memesh.core.clean import clean_all, clean_text

    ordinary, secret = _text(10_000, secrets=False), _text(10_000, secrets=True)
    lines = ordinary.splitlines()
    clean_text(secret)  # compile the rules a text can reach, as a long-lived server has
    for label, fn in (
        ("10 KB ordinary prose and code", lambda: clean_text(ordinary)),
        ("10 KB with credentials", lambda: clean_text(secret)),
        (f"10 KB as {len(lines)} observations", lambda: clean_all(lines)),
    ):
        print(f"{label}: {_time(fn, args.repeat) * 1e3:.3f} ms (CPU time, median of {args.repeat})")
    probe = "import time; t = time.process_time(); import memesh.core.clean; print(time.process_time() - t)"
    imports = [
        float(subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout)
        for _ in range(15)
    ]
    print(f"import memesh.core.clean: {statistics.median(imports) * 1e3:.1f} ms (CPU time, median of 15)")


if __name__ == "__main__":
    main()
