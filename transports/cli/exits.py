"""How the CLI ends: one table from error code to exit status, and the body a failure prints under --json.

Every failure a tool reports exits 1, whatever its code — the status a script checks says "it did not happen",
the message and the JSON body say why (branch on `errorCode`, never on the text). Exit 2 is kept for a command
line the CLI cannot read: an unknown command or option, a missing or malformed value, `--replace` without `--name`.
`memesh import`'s refused flag combinations (`--yes` without `--trust`, `--trust` with `--notes`, …) exit 1, as the
spec says for `--trust` without a terminal, and print a JSON body under --json like any other refusal.
"""

from __future__ import annotations

import json
import sys
from typing import Any

from memesh.errors import ErrorCode, MemeshError

OK = 0
FAILED = 1
USAGE = 2

EXIT_STATUS: dict[ErrorCode, int] = {
    ErrorCode.AUTH_MISSING_BEARER: FAILED,
    ErrorCode.AUTH_INVALID_TOKEN: FAILED,
    ErrorCode.AUTH_NOT_CONFIGURED: FAILED,
    ErrorCode.AUTH_CROSS_ORIGIN: FAILED,
    ErrorCode.AUTH_FORBIDDEN: FAILED,
    ErrorCode.BAD_BODY: FAILED,
    ErrorCode.BAD_PARAM: FAILED,
    ErrorCode.ROUTE_RETIRED: FAILED,
    ErrorCode.ROUTE_NOT_FOUND: FAILED,
    ErrorCode.NOT_FOUND: FAILED,
    ErrorCode.PAYLOAD_TOO_LARGE: FAILED,
    ErrorCode.OPERATION_FAILED: FAILED,
    ErrorCode.PERMISSION_DENIED: FAILED,
    ErrorCode.INTERNAL: FAILED,
    ErrorCode.STORE_UNAVAILABLE: FAILED,
    ErrorCode.RECIPIENT_UNAVAILABLE: FAILED,
    ErrorCode.ROUTER_UNREACHABLE: FAILED,
    ErrorCode.NATIVE_MESSAGE_TOO_LARGE: FAILED,
    ErrorCode.INTENDED_FOR_OTHER_SESSION: FAILED,
    ErrorCode.STORAGE_QUOTA_EXCEEDED: FAILED,
    ErrorCode.IDEMPOTENCY_CONFLICT: FAILED,
}


def dumps(value: Any) -> str:
    """Compact JSON, non-ASCII kept as written (what `--json` prints)."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def failure_body(error: MemeshError) -> dict[str, Any]:
    """What --json prints for a failure: the error's data with `error` (the message) and `errorCode`."""
    return {**error.data, "error": error.message, "errorCode": str(error.code)}


def fail(error: MemeshError, *, as_json: bool) -> int:
    """Report `error` (JSON body on stdout under --json, the message on stderr otherwise); its exit status."""
    if as_json:
        print(dumps(failure_body(error)))
    else:
        print(f"Error: {error.message}", file=sys.stderr)
    return EXIT_STATUS[error.code]


def usage(message: str) -> int:
    """Report a command line the CLI refuses before running anything; exit status 2."""
    print(f"Error: {message}", file=sys.stderr)
    print("Run `memesh --help` for the commands, or `memesh <command> --help` for their flags.", file=sys.stderr)
    return USAGE
