"""`memesh delegation` once its flags are parsed: the flags as the operation's input, through the door, printed."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from memesh.transports.cli.actions.memory import report, run_op


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
    """The operation reads the two files it is named (the envelope bounded, the prompt only hashed)."""
    from memesh.app.operations.delegation import DELEGATION_RECORD

    arguments: dict[str, Any] = {"envelope": envelope, "prompt_file": prompt_file, "source": source, "verdict": verdict}
    if allow_tool:
        arguments["allow_tool"] = allow_tool
    if follow_up is not None:
        arguments["follow_up"] = follow_up
    return report(run_op(DELEGATION_RECORD, arguments), as_json=as_json, text=_recorded)


def _recorded(answer: Mapping[str, Any]) -> str:
    if answer["stored"]:
        return f"Recorded {answer['name']} (verdict {answer['verdict']}, trust {answer['trust']})."
    return f"Already recorded: {answer['name']} — nothing written (stored verdict {answer['verdict']})."


def verify(name: str, verdict: str, note: str | None, *, as_json: bool) -> int:
    from memesh.app.operations.delegation import DELEGATION_VERIFY

    arguments = {"name": name, "verdict": verdict} if note is None else {"name": name, "verdict": verdict, "note": note}
    result = run_op(DELEGATION_VERIFY, arguments)
    return report(result, as_json=as_json, text=lambda a: f"{a['name']}: verdict {a['verdict']}, trust {a['trust']}.")
