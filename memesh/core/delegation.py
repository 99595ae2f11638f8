"""Delegation records: a task the orchestrator handed to an untrusted external worker, remembered from its side.

What is kept is the delegation, never its content: the prompt's sha256 (not the prompt), and from the worker
client's JSON envelope only model, mode, allowed tools, usage, finish_reason and ok (never the worker's output,
which is untrusted text). Trust follows the orchestrator's verdict: `untrusted-until-verified` until one is given,
then `verified` or `rejected`; `metadata.trust` is `trusted` only for an accepted delegation.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import field
from datetime import datetime
from typing import Any, Final, Literal

from returns.result import Failure, Result, Success

from memesh.core.clean import clean_name, clean_text
from memesh.core.importance import signal_score
from memesh.errors import ErrorCode, MemeshError
from memesh.model import ACTIVE, DEFAULT_NAMESPACE, Entity, EntityWrite, iso_time, sqlite_time
from memesh.records import dataclass

DELEGATION_TYPE: Final = "delegation"
ENVELOPE_MAX_BYTES: Final = 4 * 1024 * 1024
VERDICTS: Final = ("unreviewed", "accepted", "rejected")
Verdict = Literal["unreviewed", "accepted", "rejected"]
SOURCE_MAX = 64
_SOURCE = re.compile(r"[A-Za-z0-9][A-Za-z0-9._:@+/-]*")
_USAGE_KEYS: Final = ("prompt_tokens", "completion_tokens", "total_tokens")
_TOOLS_MAX = 50


def trust_for(verdict: str) -> str:
    return {"accepted": "verified", "rejected": "rejected"}.get(verdict, "untrusted-until-verified")


def _short(text: str, limit: int) -> str:
    """Worker-controlled or free text as one stored line: controls out, credentials redacted, capped."""
    return clean_name(clean_text(text))[:limit]


@dataclass(frozen=True)
class Envelope:
    """The fields of a worker envelope a record keeps. `allowed_tools` None means "not reported", never "none"."""

    ok: bool
    mode: str
    model: str | None
    finish_reason: str | None
    allowed_tools: tuple[str, ...] | None
    usage: dict[str, int] = field(default_factory=dict)


def _bad(message: str) -> Failure[MemeshError]:
    return Failure(MemeshError.bad_body(message))


def check_source(source: str) -> Result[str, MemeshError]:
    """The --source value, or a refusal: 1-64 letters, digits and `. _ : @ + / -`, starting with a letter or digit."""
    if len(source) > SOURCE_MAX or not _SOURCE.fullmatch(source) or clean_text(source) != source:
        return _bad(
            f"--source must be 1-{SOURCE_MAX} letters, digits, '.', '_', ':', '@', '+', '/' or '-', starting with a "
            "letter or digit (e.g. deepseek-worker)"
        )
    return Success(source)


def read_envelope(data: bytes) -> Result[Envelope, MemeshError]:
    """The envelope's kept fields, or a refusal: over 4 MiB, not UTF-8 JSON, not an object, or no boolean `ok`."""
    if len(data) > ENVELOPE_MAX_BYTES:
        return Failure(
            MemeshError(ErrorCode.PAYLOAD_TOO_LARGE, f"the envelope is {len(data):,} bytes; at most 4 MiB is read")
        )
    try:
        raw = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        return _bad(f"the envelope is not JSON: {exc}")
    if not isinstance(raw, dict):
        return _bad("the envelope must be a JSON object")
    if not isinstance(raw.get("ok"), bool):
        return _bad('the envelope has no boolean "ok", so it is not a worker envelope')
    tools = raw.get("allowed_tools")
    if tools is not None and not (isinstance(tools, list) and all(isinstance(t, str) for t in tools)):
        return _bad('the envelope\'s "allowed_tools" must be an array of strings')
    given_usage = raw.get("usage")
    usage: dict[str, Any] = given_usage if isinstance(given_usage, dict) else {}
    model, finish = raw.get("model"), raw.get("finish_reason")
    return Success(
        Envelope(
            ok=raw["ok"],
            # Only a harness client reports a task_id; a direct call never has one.
            mode="harness" if isinstance(raw.get("task_id"), str) else "direct",
            model=_short(model, 120) or None if isinstance(model, str) else None,
            finish_reason=_short(finish, 40) or None if isinstance(finish, str) else None,
            allowed_tools=tuple(_short(t, 64) for t in tools[:_TOOLS_MAX]) if tools is not None else None,
            usage={
                key: int(value)
                for key in _USAGE_KEYS
                if isinstance(value := usage.get(key), int | float)
                and not isinstance(value, bool)
                and 0 <= value < 2**53
            },
        )
    )


def record_name(prompt_sha256: str, source: str, envelope: bytes) -> str:
    """delegation-<prompt sha256, 12>-<sha256 of source, NUL, envelope bytes, 8>: one envelope under two sources is
    two records, so the second segment is not the envelope's own hash (kept as provenance.envelope_sha256)."""
    folded = hashlib.sha256(source.encode() + b"\x00" + envelope).hexdigest()
    return f"delegation-{prompt_sha256[:12]}-{folded[:8]}"


def verdict_line(verdict: str, at: str, note: str | None = None) -> str:
    line = (
        "Verdict: unreviewed — the worker's output is untrusted until the orchestrator verifies it"
        if verdict == "unreviewed"
        else f"Verdict: {verdict} by the orchestrator at {at}"
    )
    return f"{line}. Note: {_short(note, 500)}" if note and note.strip() else line


@dataclass(frozen=True)
class RecordRequest:
    """One `memesh delegation record`: the files already read, the flags as given."""

    envelope: bytes
    prompt_sha256: str
    source: str
    granted_tools: tuple[str, ...] | None
    verdict: Verdict
    follow_up: str | None


def plan_record(request: RecordRequest, summary: Envelope, *, project: str, now: datetime) -> EntityWrite:
    """The delegation entity a first record stores."""
    at = iso_time(now)
    granted = tuple(_short(t, 64) for t in request.granted_tools[:_TOOLS_MAX]) if request.granted_tools else None
    allowed = granted if granted is not None else summary.allowed_tools
    if allowed is None:
        tools_line = "Allowed tools: not reported"
    else:
        by = " (granted by the orchestrator)" if granted is not None else " (as the envelope reports)"
        tools_line = f"Allowed tools: {', '.join(allowed) or 'none'}{by}"
    mismatch = (
        granted is not None and summary.allowed_tools is not None and sorted(granted) != sorted(summary.allowed_tools)
    )
    usage = ", ".join(f"{key}={value}" for key, value in summary.usage.items())
    model = summary.model or "an unnamed model"
    observations = [
        f"Delegated through {request.source} to {model} ({summary.mode} mode); prompt sha256 {request.prompt_sha256}",
        tools_line,
        *(
            [f"Allowed tools mismatch: the envelope reports {', '.join(summary.allowed_tools or ()) or 'none'}"]
            if mismatch
            else []
        ),
        f"Result: ok={str(summary.ok).lower()}, finish_reason={summary.finish_reason or 'not reported'}",
        f"Usage: {usage}" if usage else "Usage: not reported",
        verdict_line(request.verdict, at),
        *([f"Follow-up: {_short(request.follow_up, 500)}"] if request.follow_up and request.follow_up.strip() else []),
    ]
    tags = (f"source:{request.source}", f"project:{project}")
    provenance: dict[str, Any] = {
        "source": request.source,
        "source_host": "cli",
        "trust": trust_for(request.verdict),
        "verdict": request.verdict,
        **({"verified_at": at} if request.verdict != "unreviewed" else {}),
        "recorded_at": at,
        "prompt_sha256": request.prompt_sha256,
        "envelope_sha256": hashlib.sha256(request.envelope).hexdigest(),
        "model": summary.model,
        "mode": summary.mode,
        "allowed_tools": list(allowed) if allowed is not None else "not reported",
        "allowed_tools_source": "orchestrator" if granted is not None else "envelope" if allowed is not None else None,
        **({"envelope_allowed_tools": list(summary.allowed_tools or ())} if mismatch else {}),
        "usage": summary.usage,
        "finish_reason": summary.finish_reason,
        "ok": summary.ok,
    }
    return EntityWrite(
        entity_id=None,
        name=record_name(request.prompt_sha256, request.source, request.envelope),
        type=DELEGATION_TYPE,
        title=f"{at[:10]} delegation to {summary.model or 'worker'} ({summary.mode})",
        namespace=DEFAULT_NAMESPACE,
        status=ACTIVE,
        metadata={
            "trust": "trusted" if request.verdict == "accepted" else "untrusted",
            "provenance": provenance,
            "signal_score": signal_score(DELEGATION_TYPE, observations, list(tags)),
        },
        observations=tuple(observations),
        tags=tags,
        created_at=sqlite_time(now),
    )


def is_record(entity: Entity) -> bool:
    provenance = entity.metadata.get("provenance")
    return (
        entity.type == DELEGATION_TYPE
        and isinstance(provenance, dict)
        and isinstance(provenance.get("prompt_sha256"), str)
        and isinstance(provenance.get("envelope_sha256"), str)
    )


def stored_verdict(entity: Entity) -> str:
    provenance = entity.metadata.get("provenance")
    verdict = provenance.get("verdict") if isinstance(provenance, dict) else None
    return verdict if verdict in VERDICTS else "unreviewed"


def plan_verify(entity: Entity, verdict: str, note: str | None, *, now: datetime) -> Result[EntityWrite, MemeshError]:
    """The record with its verdict and trust changed in place (every other provenance field kept) and the verdict
    added as an observation; Failure(operation.failed) when the memory is not a delegation record."""
    if not is_record(entity):
        return Failure(MemeshError.failed(f'"{entity.name}" is not a delegation record', name=entity.name))
    at = iso_time(now)
    provenance = {**entity.metadata["provenance"], "trust": trust_for(verdict), "verdict": verdict, "verified_at": at}
    metadata = {
        **entity.metadata,
        "trust": "trusted" if verdict == "accepted" else "untrusted",
        "provenance": provenance,
    }
    return Success(
        EntityWrite(
            entity_id=entity.id,
            name=entity.name,
            type=entity.type,
            title=entity.title,
            namespace=entity.namespace,
            status=entity.status,
            metadata=metadata,
            observations=(*entity.observations, verdict_line(verdict, at, note)),
            tags=tuple(entity.tags),
        )
    )
