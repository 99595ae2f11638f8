"""`memesh demo` and `memesh feedback` once parsed: their entries through the door, then printed."""

from __future__ import annotations

import sys
from typing import Any

from returns.result import Failure, Success

from memesh.app.operations import insight
from memesh.transports.cli.actions.memory import report, run_op
from memesh.transports.cli.exits import OK, fail, usage


def demo(*, reset: bool, as_json: bool) -> int:
    if reset:
        result = run_op(insight.DEMO_RESET, {})
        return report(result, as_json=as_json, text=lambda out: f"Removed {out['removed']} demo memories.")

    def text(out: Any) -> str:
        if not out["inserted"]:
            return "The demo tour is already loaded. Remove it with: memesh demo --reset"
        return (
            f"Added {out['inserted']} demo memories (project memesh-demo). See them with `memesh serve`, then open "
            "http://127.0.0.1:3737/dashboard. Remove them with: memesh demo --reset"
        )

    return report(run_op(insight.DEMO_SEED, {}), as_json=as_json, text=text)


NO_TRACKER = (
    "This copy of MeMesh for Python names no public issue tracker (its [project.urls] Issues), so no link was made "
    "and nothing was opened: send the report above to whoever maintains your copy."
)


def feedback(*, bug: bool, feature: bool, question: bool, message: str | None, diagnostics: bool, open_: bool) -> int:
    chosen = [kind for kind, on in (("bug", bug), ("feature", feature), ("question", question)) if on]
    if len(chosen) != 1:
        return usage("Choose one of --bug, --feature or --question.")
    arguments: dict[str, Any] = {"kind": chosen[0], "diagnostics": diagnostics}
    if message is not None:
        arguments["message"] = message
    match run_op(insight.FEEDBACK, arguments):
        case Failure(error):
            return fail(error, as_json=False)
        case Success(issue):
            pass
    if not issue["url"]:
        # Never another project's tracker: a report about this implementation belongs with its own maintainers.
        print(f"Title: {issue['title']}\n")
        print(issue["body"])
        # The report is made and shown either way; having no link to print is not a failure of --no-open (a
        # script would take exit 1 for "no report at all").
        print(NO_TRACKER, file=sys.stderr)
        return OK
    if not open_:
        print(issue["url"])
        return OK
    print("MeMesh will open this public issue form. Nothing is submitted until you submit it there.\n")
    print(f"Title: {issue['title']}\n")
    print(issue["body"])
    print(f"\nLink: {issue['url']}")
    import webbrowser

    if not webbrowser.open(issue["url"]):
        print("No browser could be opened: copy the link above.", file=sys.stderr)
    return OK
