"""What `memesh briefing`, `setup`, `why` and `doctor` run once their flags are parsed: their entries through the
door (the same ones GET /v1/briefing-index, POST /v1/why's graph half and GET /v1/doctor call), then printed."""

from __future__ import annotations

from typing import Any

from returns.result import Failure, Success

from memesh.app.operations import session as entries
from memesh.app.operations import settings as setting_entries
from memesh.core.briefing import EMPTY_MINIMAL
from memesh.transports.cli.actions.memory import call_tool, cli_context, report, run_op
from memesh.transports.cli.exits import FAILED, OK, dumps, fail


def briefing(*, project: str | None, recipient: str | None, index_only: bool, as_json: bool) -> int:
    """`memesh briefing`: the block (or `--index` alone), text or JSON; a validation failure exits 1."""
    if index_only:
        # The index is of one project, named as the briefing names it: this directory's unless --project says.
        result = run_op(entries.BRIEFING_INDEX, {"project": project or cli_context().project()})
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


def setup(*, host: str, user: bool, trust: bool, uninstall: bool, yes: bool, as_json: bool) -> int:
    """`memesh setup`: install (or remove) the hooks in Claude Code's settings.json (or another host's files), asking
    first unless --yes; exit 1 when refused or not agreed to."""
    import sys

    asked: dict[str, Any] = {"uninstall": uninstall, "write": yes}
    if host != "claude-code" or user:
        asked.update(host=host, user=user)
    if trust:
        asked["trust"] = True
    result = run_op(setting_entries.SETUP, asked)
    match result:
        case Success(planned) if planned["changed"] and not planned["written"]:
            path = ", ".join(f["path"] for f in planned.get("files", []) if f["changed"]) or planned["settings"]
            action = "remove MeMesh's hooks from" if uninstall else "install MeMesh's hooks into"
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
            result = run_op(setting_entries.SETUP, {**asked, "write": True})
    match result:
        case Failure(error):
            return fail(error, as_json=as_json)
        case Success(done):
            pass
    if as_json:
        print(dumps(done))
        return OK
    if "files" in done:
        return _host_done(done)
    path, changed, mcp = done["settings"], done["changed"], done["mcpServer"]
    if uninstall:
        print(f"MeMesh hooks removed from {path}." if changed else f"No MeMesh hooks in {path}.")
        _what_stays(done["dataFolder"])
        return OK
    if "plugin" in done:
        print(f"The MeMesh plugin ({done['plugin']}) is installed in Claude Code and runs MeMesh's hooks itself:")
        print(
            f"  removed the hooks an earlier setup added to {path} (each would have run twice)."
            if changed
            else f"  nothing added to {path}."
        )
        return OK
    print(
        f"MeMesh hooks installed in {path}: {', '.join(done['events'])}."
        if changed
        else f"MeMesh hooks already installed in {path}."
    )
    print("Register the MCP server too (once):")
    print(f"  claude mcp add --scope user memesh -- {mcp}")
    print(f"  codex mcp add memesh -- {mcp}")
    print("Next session, Claude Code starts with this project's memory (memesh briefing shows the same block).")
    return OK


def _host_done(done: Any) -> int:
    """What setup did to Copilot CLI's or Cursor's files, one line each."""
    name = {"copilot-cli": "GitHub Copilot CLI", "cursor": "Cursor"}.get(done["host"], done["host"])
    verb = "removed from" if done["uninstalled"] else "written to"
    for each in done["files"]:
        print(f"{name}: MeMesh {verb} {each['path']}." if each["changed"] else f"{name}: {each['path']} unchanged.")
    if not done["changed"]:
        print(f"{name}: already {'without MeMesh' if done['uninstalled'] else 'set up'}; nothing changed.")
    if done.get("trusted") is True:
        print(f"{name} trusts this repository: its hooks run from the next session.")
    elif done.get("trusted") is False:
        print(
            f"{name} loads this repository's hooks only once it trusts the folder: answer its folder prompt with "
            "'remember', or run memesh setup --host copilot-cli --trust (it may then read and run files here "
            "without asking)."
        )
    return OK


def _what_stays(folder: str) -> None:
    print("What stays:")
    print(f"  your memories, config.json and the plugin's environment, in {folder} (delete that folder to remove them;")
    print("  `memesh export -o backup.json` first keeps a copy)")
    print("  the MCP server entry, if you added one: claude mcp remove memesh (Codex: codex mcp remove memesh)")
    print("  the Claude Code plugin, if installed: claude plugin uninstall memesh@memesh")
    print("  the package itself: pipx uninstall memesh, uv tool uninstall memesh, or pip uninstall memesh")


def why(file: str, *, line: int | None, limit: int, as_json: bool) -> int:
    """`memesh why`: git (in this folder) answers which commits, the graph what is remembered about them; exit 1 on
    bad input."""
    arguments: dict[str, Any] = {"file": file, "limit": limit, **({"line": line} if line is not None else {})}
    return report(run_op(entries.WHY_HERE, arguments), as_json=as_json, text=_why_text)


_SAID = {
    "not_a_git_repo": "not inside a git repository: no commits to look up",
    "file_not_tracked": "git does not track this file",
    "git_unavailable": "git could not be run",
    "history_unreadable": "git could not read the history (unknown, not none)",
    "line_out_of_range": "the file has no such line",
    "line_uncommitted": "that line is not committed yet",
}


def _why_text(out: Any) -> str:
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
    match run_op(entries.DOCTOR, {}):
        case Failure(error):
            return fail(error, as_json=as_json)
        case Success(result):
            pass
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


def doctor_fix(check_id: str, *, as_json: bool) -> int:
    """`memesh doctor --fix <id>`: the repair of one current check, then the check as it reads now; exit 1 when no
    repair applies or it could not be made."""
    return report(run_op(entries.DOCTOR_FIX, {"id": check_id}), as_json=as_json, text=_fixed)


def _fixed(out: Any) -> str:
    lines = [f"Repaired: {out['action']}."]
    after = out["after"]
    if after is not None:
        lines.append(f"  now [{after['status']}] {after['title']}: {after['detail']}")
    if out["restartRequired"]:
        lines.append("Restart the host (Claude Code or Codex) so it loads the refreshed plugin.")
    return "\n".join(lines)
