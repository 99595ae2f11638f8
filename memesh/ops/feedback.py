"""feedback: the pre-filled public GitHub issue for `memesh feedback` — title, body and link, with the redacted
diagnostics a maintainer needs to reproduce a report. Nothing is ever submitted: the user reads it and decides."""

from __future__ import annotations

import platform
from typing import Any, Protocol

from returns.result import Failure, Result, Success

import memesh
from memesh.context import CallContext
from memesh.core import feedback as issue
from memesh.errors import BrokenFile, MemeshError
from memesh.generated.cli.feedback_input import FeedbackInput
from memesh.generated.cli.feedback_output import FeedbackOutput
from memesh.ops.doctor import DoctorResources, doctor
from memesh.ops.update_status import UpdateSource, update_status

TOTALS = ("totalEntities", "totalObservations", "totalRelations", "totalTags")


class TotalsStore(Protocol):
    def totals(self) -> tuple[int, int, int, int]: ...


class FeedbackResources(UpdateSource, DoctorResources, Protocol):
    def install_id(self) -> str: ...
    def issue_tracker(self) -> str | None: ...
    def try_store(self) -> Result[TotalsStore, MemeshError]: ...


def _diagnostics(uses: FeedbackResources, ctx: CallContext) -> dict[str, Any]:
    """Versions, platform, install channel and ID, database counts, stored settings and the cached update status
    (never a lookup); redacted by the issue builder before anything is shown."""
    out: dict[str, Any] = {
        "memesh": memesh.__version__,
        "spec": memesh.SPEC_VERSION,
        "python": platform.python_version(),
        "platform": f"{platform.system()} {platform.release()} ({platform.machine()})",
        "installChannel": uses.install_channel(),
        "installId": uses.install_id(),
    }
    match uses.try_store():
        case Success(store):
            out["database"] = dict(zip(TOTALS, store.totals(), strict=True))
        case Failure(error):
            out["database"] = {"error": error.message}
    try:
        out["config"] = uses.config_file.read_raw()
    except BrokenFile as exc:
        out["config"] = {"error": exc.problem}
    status = update_status(uses, {"cached": True}, ctx=ctx).unwrap()
    out["update"] = {key: status[key] for key in ("latestVersion", "freshness", "lastError")}
    # The doctor report as GET /v1/doctor gives it (already path- and secret-redacted), each check on one line.
    report = doctor(uses, {}, ctx=ctx).unwrap()
    out["doctor"] = {
        "status": report["status"],
        "checks": [f"{check['id']}: {check['status']} - {check['detail']}" for check in report["checks"]],
    }
    return out


def feedback(
    uses: FeedbackResources, request: FeedbackInput, /, *, ctx: CallContext
) -> Result[FeedbackOutput, MemeshError]:
    """The issue's title, body (with the diagnostics and the doctor report unless they are left out) and the link
    to this distribution's own tracker ("" when it declares none); never fails."""
    kind, message = request["kind"], request.get("message")
    details = _diagnostics(uses, ctx) if request.get("diagnostics", True) else None
    title = issue.title(kind, message)
    body = issue.body(kind, message, details)
    return Success({"title": title, "body": body, "url": issue.issue_url(kind, title, body, uses.issue_tracker())})
