"""`memesh demo` and `memesh feedback` once parsed."""

from __future__ import annotations

import platform
import sys
from typing import Any

from returns.result import Failure, Success

import memesh
from memesh.core import feedback as issue
from memesh.ops import demo as demo_op
from memesh.transports.cli.actions.memory import cli_context, on_store, report, run_op
from memesh.transports.cli.exits import OK, usage


def demo(*, reset: bool, as_json: bool) -> int:
    if reset:
        result = on_store(demo_op.reset)
        return report(result, as_json=as_json, text=lambda out: f"Removed {out['removed']} demo memories.")
    result = on_store(lambda store: demo_op.seed(store, ctx=cli_context()))

    def text(out: Any) -> str:
        if not out["inserted"]:
            return "The demo tour is already loaded. Remove it with: memesh demo --reset"
        return (
            f"Added {out['inserted']} demo memories (project memesh-demo). See them with `memesh serve`, then open "
            "http://127.0.0.1:3737/dashboard. Remove them with: memesh demo --reset"
        )

    return report(result, as_json=as_json, text=text)


def gather_diagnostics() -> dict[str, Any]:
    """What a maintainer needs to reproduce a report: versions, platform, install channel and ID, database counts,
    stored settings and the cached update status. Redacted by the issue builder before anything is shown."""
    from memesh.adapters import config_file, update_check
    from memesh.adapters.install_id import install_id
    from memesh.app.operations.insight import STATS
    from memesh.ops.update_status import update_status

    out: dict[str, Any] = {
        "memesh": memesh.__version__,
        "spec": memesh.SPEC_VERSION,
        "python": platform.python_version(),
        "platform": f"{platform.system()} {platform.release()} ({platform.machine()})",
        "installChannel": update_check.install_channel(),
        "installId": install_id(),
    }
    match run_op(STATS, {}):
        case Success(counts):
            out["database"] = {
                key: counts[key] for key in ("totalEntities", "totalObservations", "totalRelations", "totalTags")
            }
        case Failure(error):
            out["database"] = {"error": error.message}
    try:
        out["config"] = config_file.read_raw()
    except config_file.ConfigError as exc:
        out["config"] = {"error": exc.problem}
    status = update_status(
        update_check.CacheFile(),
        None,
        {"cached": True},
        current=memesh.__version__,
        channel=out["installChannel"],
        ctx=cli_context(),
    ).unwrap()
    out["update"] = {key: status[key] for key in ("latestVersion", "freshness", "lastError")}
    return out


def feedback(*, bug: bool, feature: bool, question: bool, message: str | None, diagnostics: bool, open_: bool) -> int:
    chosen = [kind for kind, on in (("bug", bug), ("feature", feature), ("question", question)) if on]
    if len(chosen) != 1:
        return usage("Choose one of --bug, --feature or --question.")
    kind: issue.Kind = chosen[0]  # type: ignore[assignment]
    details = gather_diagnostics() if diagnostics else None
    title = issue.title(kind, message)
    body = issue.body(kind, message, details)
    url = issue.issue_url(kind, title, body)
    if not open_:
        print(url)
        return OK
    print("MeMesh will open this public GitHub issue form. Nothing is submitted until you submit it there.\n")
    print(f"Title: {title}\n")
    print(body)
    print(f"\nLink: {url}")
    import webbrowser

    if not webbrowser.open(url):
        print("No browser could be opened: copy the link above.", file=sys.stderr)
    return OK
