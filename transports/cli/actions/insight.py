"""`memesh demo` and `memesh feedback` once parsed: their entries through the door, then printed."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

from returns.result import Failure, Success

from memesh.app.operations import insight
from memesh.transports.cli.actions.memory import cli_resources, report, run_op
from memesh.transports.cli.exits import FAILED, OK, dumps, fail, usage

if TYPE_CHECKING:
    from memesh.settings import Settings


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


def _database_bytes(settings: Settings) -> int | None:
    """The SQLite database's size on disk (with its write-ahead log); None on PostgreSQL or before the first write."""
    if settings.database_url():
        return None
    main = settings.database_file
    if not main.exists():
        return None
    wal = main.with_name(main.name + "-wal")
    return main.stat().st_size + (wal.stat().st_size if wal.exists() else 0)


def stats(*, as_json: bool) -> int:
    resources = cli_resources()
    try:
        result = run_op(insight.STATS, {}, resources=resources)
    finally:
        resources.close()
    match result:
        case Failure(error):
            return fail(error, as_json=as_json)
        case Success(found):
            out: dict[str, Any] = {**found, "databaseBytes": _database_bytes(resources.settings)}
    if as_json:
        print(dumps(out))
        return OK
    lines = [
        f"Memories: {out['totalEntities']}  observations: {out['totalObservations']}  "
        f"relations: {out['totalRelations']}  tag uses: {out['totalTags']}"
    ]
    for title, key, name in (
        ("By status", "statusDistribution", "status"),
        ("By type", "typeDistribution", "type"),
        ("By namespace", "namespaceDistribution", "namespace"),
        ("By project", "projectDistribution", "project"),
        ("Top tags", "tagDistribution", "tag"),
    ):
        if out.get(key):
            lines.append(f"{title}: " + ", ".join(f"{row[name]} {row['count']}" for row in out[key][:15]))
    size = out["databaseBytes"]
    lines.append(f"Database: {size / 1e6:.1f} MB" if size is not None else "Database: PostgreSQL (size not shown)")
    print("\n".join(lines))
    return OK


def _answers(base: str) -> bool:
    """Whether a MeMesh server answers its health check at `base`."""
    import json
    import urllib.request

    try:
        with urllib.request.urlopen(f"{base}/v1/health", timeout=1) as answer:
            return answer.status == 200 and isinstance(json.loads(answer.read()), dict)
    except (OSError, ValueError):
        return False


SERVE_WAIT_SECONDS = 30.0


def open_dashboard(*, port: int, browser: bool, as_json: bool) -> int:
    import subprocess
    import time

    base = f"http://127.0.0.1:{port}"
    url = f"{base}/dashboard"
    pid: int | None = None
    if not _answers(base):
        # Its own session: the server outlives this command (and a Ctrl-C in the terminal it was opened from).
        server = subprocess.Popen(
            [sys.executable, "-m", "memesh", "serve", "--port", str(port)],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        pid = server.pid
        deadline = time.monotonic() + SERVE_WAIT_SECONDS
        while not _answers(base):
            if server.poll() is not None or time.monotonic() > deadline:
                why = f"run `memesh serve --port {port}` to see why"
                print(f"memesh serve did not start on port {port}: {why}.", file=sys.stderr)
                return FAILED
            time.sleep(0.2)
        if not as_json:
            print(f"Started memesh serve in the background (pid {pid}); stop it with: kill {pid}", file=sys.stderr)
    if as_json:
        print(dumps({"url": url, "started": pid is not None, "pid": pid}))
        return OK
    print(url)
    if browser:
        import webbrowser

        if not webbrowser.open(url):
            print("No browser could be opened: open the URL above.", file=sys.stderr)
    return OK
