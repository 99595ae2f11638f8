"""What `memesh briefing` runs once its flags are parsed."""

from __future__ import annotations

from typing import Any

from returns.result import Failure, Success

from memesh.core.briefing import EMPTY_MINIMAL
from memesh.transports.cli.actions.memory import call_tool, cli_context, on_store, report


def briefing(*, project: str | None, recipient: str | None, index_only: bool, as_json: bool) -> int:
    """`memesh briefing`: the block (or `--index` alone), text or JSON; a validation failure exits 1."""
    if index_only:
        from memesh.ops.briefing import briefing_index_of

        ctx = cli_context()
        chosen = project or ctx.project()
        result = on_store(lambda store: Success(briefing_index_of(store, chosen, ctx=ctx)))
        return report(result, as_json=as_json, text=lambda index: "\n".join(index["lines"]))
    arguments: dict[str, Any] = {}
    if project is not None:
        arguments["project"] = project
    if recipient is not None:
        arguments["recipient"] = recipient
    return report(
        call_tool("briefing", arguments),
        as_json=as_json,
        text=lambda output: output["text"] or EMPTY_MINIMAL,
    )


def _confirm(question: str) -> bool | None:
    """True/False as answered at the terminal; None without one (nothing can be asked)."""
    import sys

    if not sys.stdin.isatty():
        return None
    print(f"{question} [y/N] ", end="", file=sys.stderr, flush=True)
    return sys.stdin.readline().strip().lower() in ("y", "yes")


def setup(*, uninstall: bool, yes: bool, as_json: bool) -> int:
    """`memesh setup`: install (or remove) the hooks in Claude Code's settings.json; exit 1 when refused."""
    import contextlib
    import sys

    from memesh.adapters import claude_settings_file as files
    from memesh.adapters import config_file
    from memesh.core import claude_settings
    from memesh.transports.cli.exits import FAILED, OK, dumps

    path = files.settings_path()
    hook = files.entry_point("memesh-hook")
    if not uninstall and hook is None:
        print("memesh-hook is not installed beside this memesh; reinstall MeMesh for Python.", file=sys.stderr)
        return FAILED
    try:
        text = files.read_text(path)
        edit = claude_settings.uninstall(text) if uninstall else claude_settings.install(text, hook or "")
    except (OSError, claude_settings.SettingsError) as exc:
        print(f"Refusing to modify {path}: {exc}", file=sys.stderr)
        return FAILED
    action = "remove MeMesh's hooks from" if uninstall else "install MeMesh's hooks into"
    if edit.changed and not yes:
        answer = _confirm(f"{action[0].upper()}{action[1:]} {path}?")
        if answer is None:
            print(
                f"Not a terminal and --yes not given — nothing was changed. Re-run with --yes to {action} {path}.",
                file=sys.stderr,
            )
            return FAILED
        if not answer:
            print("Nothing was changed.", file=sys.stderr)
            return FAILED
    if edit.changed:
        files.write_text(path, edit.text)
    if not uninstall:
        with contextlib.suppress(config_file.ConfigError):  # the hooks are in place; a broken config is doctor's
            config_file.update({"setupCompleted": True})
    events = claude_settings.installed_events(edit.text)
    mcp = files.entry_point("memesh-mcp") or "memesh-mcp"
    if as_json:
        print(dumps({"settings": str(path), "changed": edit.changed, "events": events, "uninstalled": uninstall}))
        return OK
    if uninstall:
        print(f"MeMesh hooks removed from {path}." if edit.changed else f"No MeMesh hooks in {path}.")
        return OK
    print(
        f"MeMesh hooks installed in {path}: {', '.join(events)}."
        if edit.changed
        else f"MeMesh hooks already installed in {path}."
    )
    print("Register the MCP server too (once):")
    print(f"  claude mcp add --scope user memesh -- {mcp}")
    print(f"  codex mcp add memesh -- {mcp}")
    print("Next session, Claude Code starts with this project's memory (memesh briefing shows the same block).")
    return OK


def why(file: str, *, line: int | None, limit: int, as_json: bool) -> int:
    """`memesh why`: git answers which commits, the graph what is remembered about them; exit 1 on bad input."""
    from pathlib import Path

    from memesh.adapters import git_history
    from memesh.app import gate
    from memesh.ops.why import why as attribute
    from memesh.transports.cli import exits

    if not 1 <= limit <= 50:
        return exits.usage("--limit must be a whole number from 1 to 50")
    if line is not None and line < 1:
        return exits.usage("--line must be 1 or more")
    ctx = cli_context()
    found = git_history.history(Path.cwd(), file, limit=limit, line=line)
    request: dict[str, Any] = {"file": file, "commits": found.commits, "project": ctx.project(), "limit": limit}
    admitted = gate.admit("http/why.input", request)
    if isinstance(admitted, Failure):
        return report(admitted, as_json=as_json, text=str)

    def run(store: Any) -> Any:
        return attribute(store, request, ctx=ctx).map(  # type: ignore[arg-type]  # validated just above
            lambda out: {**out, "abstentions": [*found.abstentions, *out["abstentions"]]}
        )

    return report(on_store(run), as_json=as_json, text=_why_text)


_SAID = {
    "not_a_git_repo": "not inside a git repository: no commits to look up",
    "file_not_tracked": "git does not track this file",
    "git_unavailable": "git could not be run",
    "history_unreadable": "git could not read the history (unknown, not none)",
    "line_out_of_range": "the file has no such line",
    "line_uncommitted": "that line is not committed yet",
}


def _why_text(out: dict[str, Any]) -> str:
    lines = [f"{out['file']}:"]
    lines += [f"  ({_SAID.get(code, code)})" for code in out["abstentions"]]
    for item in out["commits"]:
        short = item["commit"]["hash"][:7]
        entity = item["entity"]
        if entity is None:
            lines.append(f"  {short}  memesh has no memory of this commit")
            continue
        lines.append(f"  {short}  {entity.get('title') or entity['name']}")
        session = item["session"]
        if session is None:
            lines.append("           (captured before commits recorded their session)")
        else:
            names = ", ".join(e["name"] for e in session["entities"][:5]) or "nothing else remembered"
            more = " …" if len(session["entities"]) > 5 or session["truncated"] else ""
            lines.append(f"           session {session['session_id']}: {names}{more}")
    if not out["commits"] and not out["abstentions"]:
        lines.append("  no commits found")
    memories = out["file_memories"]["entities"]
    lines.append(f"Associated, not commit-derived (file:{out['basename']}):")
    lines += [f"  - [{e['type']}] {e.get('title') or e['name']}" for e in memories] or ["  (none)"]
    return "\n".join(lines)


def doctor(*, as_json: bool) -> int:
    """`memesh doctor`: one line per check, then capture liveness per hook; exit 1 when the status is FAIL."""
    from datetime import UTC, datetime

    from memesh.app.database import open_database as open_store
    from memesh.ops import doctor as suite
    from memesh.transports.cli.exits import FAILED, OK, dumps

    result = suite.run(open_store, datetime.now(UTC))
    if as_json:
        print(dumps(result))
    else:
        marks = {"pass": "ok  ", "warn": "warn", "fail": "FAIL"}
        print(f"MeMesh doctor: {result['status']}")
        for check in result["checks"]:
            print(f"  [{marks[check['status']]}] {check['title']}: {check['detail']}")
        for hook in result["capture"]["hooks"]:
            reason = f"; mostly skipped: {hook['dominantSkipReason']}" if hook["dominantSkipReason"] else ""
            print(
                f"      {hook['hook']}: {hook['runs']} runs, {hook['writes']} wrote, {hook['errors']} errors{reason}"
                + (" — SILENT" if hook["silent"] else "")
            )
    return FAILED if result["status"] == "FAIL" else OK
