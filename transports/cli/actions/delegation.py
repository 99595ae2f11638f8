"""`memesh delegation` once its flags are parsed: read the two files, run the operation, print."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

from memesh.app.dispatch import guarded
from memesh.core.delegation import ENVELOPE_MAX_BYTES, RecordRequest
from memesh.errors import MemeshError
from memesh.ops import delegation
from memesh.transports.cli.actions.memory import cli_context, on_store, report
from memesh.transports.cli.exits import fail

_READ_CHUNK = 1 << 20


def record(
    envelope: str,
    prompt_file: str,
    *,
    source: str,
    allow_tool: list[str] | None,
    verdict: str,
    follow_up: str | None,
    as_json: bool,
) -> int:
    """Read at most 4 MiB + 1 byte of the envelope (so an oversized one is refused, not loaded) and hash the prompt."""
    try:
        with Path(envelope).open("rb") as handle:
            envelope_bytes = handle.read(ENVELOPE_MAX_BYTES + 1)
        digest = hashlib.sha256()
        with Path(prompt_file).open("rb") as handle:
            while chunk := handle.read(_READ_CHUNK):
                digest.update(chunk)
    except OSError as exc:
        return fail(MemeshError.failed(f"cannot read {exc.filename}: {exc.strerror or exc}"), as_json=as_json)
    request = RecordRequest(
        envelope=envelope_bytes,
        prompt_sha256=digest.hexdigest(),
        source=source,
        granted_tools=tuple(allow_tool) if allow_tool else None,
        verdict=verdict,  # type: ignore[arg-type]  # one of the three: checked by the declaration
        follow_up=follow_up,
    )
    result = on_store(lambda store: guarded(lambda: delegation.record(store, request, ctx=cli_context())))
    return report(result, as_json=as_json, text=_recorded)


def _recorded(answer: dict[str, Any]) -> str:
    if answer["stored"]:
        return f"Recorded {answer['name']} (verdict {answer['verdict']}, trust {answer['trust']})."
    return f"Already recorded: {answer['name']} — nothing written (stored verdict {answer['verdict']})."


def verify(name: str, verdict: str, note: str | None, *, as_json: bool) -> int:
    result = on_store(lambda store: guarded(lambda: delegation.verify(store, name, verdict, note, ctx=cli_context())))
    return report(result, as_json=as_json, text=lambda a: f"{a['name']}: verdict {a['verdict']}, trust {a['trust']}.")
