"""`memesh export` and `memesh import` once their flags are parsed: files in and out, the --trust gate, reports.

The CLI is the one surface that reads a bundle from a file the owner names, so it is the one that may keep the
bundle's descriptive metadata and, behind a confirmation, restore it as trusted. What is kept and how each entry
merges is decided by the import operation, never here.
"""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from returns.result import Failure, Success

from memesh import jsontext
from memesh.app.registry import EXPORT
from memesh.app.resources import Resources
from memesh.core.storable import TOO_DEEP
from memesh.errors import MemeshError
from memesh.transports.cli import render
from memesh.transports.cli.actions.memory import cli_resources, run_op
from memesh.transports.cli.exits import FAILED, OK, dumps, fail

if TYPE_CHECKING:
    from memesh.transports.cli.progress import Progress

DEFAULT_MERGE = "skip"
_BUNDLE_HINTS = (
    "       memesh import expects a file produced by 'memesh export'.",
    "       Try: memesh export > my-export.json && memesh import my-export.json",
)


def _err(*lines: str) -> None:
    for line in lines:
        print(line, file=sys.stderr)


def _refuse(message: str, *detail: str, as_json: bool, label: str = "Error: ", bad_body: bool = False) -> int:
    """A refusal before anything is written, exit 1: under --json the failure body on stdout (operation.failed, or
    validation.bad-body for a `bad_body` refusal of the input itself), as every other --json failure; otherwise
    `label` + the message, then any detail lines, on stderr."""
    if as_json:
        return fail(MemeshError.bad_body(message) if bad_body else MemeshError.failed(message), as_json=True)
    _err(f"{label}{message}", *detail)
    return FAILED


def export(*, tag: str | None, namespace: str | None, limit: int, out: str | None, force: bool, as_json: bool) -> int:
    """`memesh export`: the bundle (the export tool's, through the door) as indented JSON on stdout or in `out`;
    warns on stderr when it is not whole.

    An existing `out` is overwritten only with `force`: a backup run twice must not silently replace the last one.
    """
    if force and out is None:
        return _refuse("--force only applies with -o FILE.", as_json=as_json)
    resources = cli_resources()
    try:
        return _export(resources, tag=tag, namespace=namespace, limit=limit, out=out, force=force, as_json=as_json)
    finally:
        resources.close()


def _export(
    resources: Resources,
    *,
    tag: str | None,
    namespace: str | None,
    limit: int,
    out: str | None,
    force: bool,
    as_json: bool,
) -> int:
    target = resources.bundle_file(out) if out is not None else None
    if out is not None and target is not None:
        refused = target.refusal(force=force)  # before the export's work, not only at the write
        if refused is not None:
            return _unwritten(out, refused.reason, refused.folder, refused.detail, as_json=as_json)
    fields = {"tag": tag, "namespace": namespace, "limit": limit}
    match run_op(EXPORT, {key: value for key, value in fields.items() if value is not None}, resources=resources):
        case Failure(error):
            return fail(error, as_json=as_json)
        case Success(bundle):
            pass
    if out is None or target is None:
        if as_json:
            print(dumps(bundle))
        else:  # written as it is encoded, a memory at a time: a large bundle is never one string in memory
            sys.stdout.writelines(jsontext.indented(bundle))
            print()
    else:
        refused = target.write(bundle, force=force)
        if refused is not None:
            return _unwritten(out, refused.reason, refused.folder, refused.detail, as_json=as_json)
        _err(f"✅ Exported {bundle['entity_count']} entities to {out}")
        if as_json:
            print(dumps({"out": out, "entity_count": bundle["entity_count"], "truncated": bundle["truncated"]}))
    # On stderr, so it reaches the person running `memesh export > backup.json` without landing in the bundle:
    # a backup that is quietly short is the one failure a backup must not have.
    if bundle["truncated"]:
        _err(
            f"⚠️  This is NOT the whole graph — {bundle['entity_count']} entities is the --limit, and there are more.",
            f"   For a full backup, raise it: memesh export --limit 100000{f' -o {shlex.quote(out)}' if out else ''}",
        )
    return OK


def _unwritten(out: str, reason: str, folder: str, detail: str, *, as_json: bool) -> int:
    """Why the bundle file was not written, in the command's words."""
    if reason == "exists":
        return _exists(out, as_json=as_json)
    if reason == "no-folder":
        return _refuse(
            f"cannot write {out} — the directory {folder} does not exist.",
            f'       Create it first (mkdir -p "{folder}"), or drop -o to write to stdout.',
            as_json=as_json,
        )
    if reason == "is-folder":
        return _refuse(f"cannot write {out} — it is a folder; name a file in it.", as_json=as_json)
    return _refuse(f"cannot write {out} — {detail}.", as_json=as_json)


def _exists(out: str, *, as_json: bool) -> int:
    return _refuse(
        f"{out} already exists — nothing was written.",
        "       Add --force to overwrite it, or choose another file.",
        as_json=as_json,
    )


def import_command(
    file: str | None,
    *,
    merge: str | None,
    namespace: str | None,
    restore_archived: bool,
    trust: bool,
    yes: bool,
    notes: str | None,
    project: str | None,
    as_json: bool,
) -> int:
    """`memesh import`: a JSON bundle, or a note-file folder with --notes; flags that belong to the other refused."""
    if file is not None and notes is not None:
        return _refuse("pass either a JSON export file or --notes <dir>, not both.", as_json=as_json)
    if file is None and notes is None:
        return _refuse("pass a JSON export file (memesh import my-export.json) or --notes <dir>.", as_json=as_json)
    if not (file if file is not None else notes or "").strip():
        # An empty path would mean the current folder, which nobody asks for by leaving the argument blank.
        return _refuse("the path is empty: name the JSON export file or the --notes folder.", as_json=as_json)
    if yes and not trust:
        return _refuse("--yes only applies with --trust.", as_json=as_json)
    if notes is not None:
        given = {"--merge": merge, "--namespace": namespace, "--restore-archived": restore_archived, "--trust": trust}
        misplaced = [flag for flag, value in given.items() if value not in (None, False)]
        if misplaced:
            return _refuse(
                f"{', '.join(misplaced)} {'applies' if len(misplaced) == 1 else 'apply'} only to a JSON export "
                "file; --notes imports note files as they are.",
                as_json=as_json,
            )
        return _import_notes(notes, project=project, as_json=as_json)
    assert file is not None
    if project is not None:
        return _refuse(
            "--project only applies with --notes; a JSON export carries its own project tags.", as_json=as_json
        )
    return _import_bundle(
        file,
        merge=merge or DEFAULT_MERGE,
        namespace=namespace,
        restore_archived=restore_archived,
        trust=trust,
        yes=yes,
        as_json=as_json,
    )


class _Unreadable(NamedTuple):
    """Why a file cannot be a bundle, and the hint lines shown under it (not under --json)."""

    message: str
    hints: tuple[str, ...] = ()
    # JSON that is not a bundle is a bad body, as MCP and HTTP call an import whose `entities` is not an array; a
    # file that cannot be read or parsed is not a body at all.
    bad_body: bool = False


def _read_bundle(file: str) -> dict[str, Any] | _Unreadable | MemeshError:
    """The decoded bundle, or why the file cannot be one."""
    try:
        raw = Path(file).read_bytes()
    except FileNotFoundError:
        return _Unreadable(f"file not found: {file}", _BUNDLE_HINTS)
    except OSError as exc:
        return _Unreadable(f"cannot read {file} ({exc.strerror or type(exc).__name__}).")
    try:
        data = json.loads(raw)
    except json.JSONDecodeError as exc:
        return _Unreadable(f"{file} is not valid JSON near position {exc.pos}.", _BUNDLE_HINTS)
    except UnicodeDecodeError:
        return _Unreadable(f"{file} is not valid JSON (it is not UTF-8 text).", _BUNDLE_HINTS)
    except RecursionError:
        # Valid JSON nested past what the parser can follow: the gate's own refusal, as MCP and HTTP give it.
        return MemeshError.bad_body(TOO_DEEP)
    if isinstance(data, dict) and set(data) >= {"success", "data"} and isinstance(data["data"], dict):
        # What POST /v1/export answers: the bundle inside the HTTP envelope. A backup made over HTTP restores.
        data = data["data"]
    if not isinstance(data, dict) or not isinstance(data.get("entities"), list):
        return _Unreadable(
            f'{file} has no "entities" array, so it is not a bundle written by memesh export.',
            _BUNDLE_HINTS,
            bad_body=True,
        )
    return data


def _rerun(file: str, merge: str, namespace: str | None, restore_archived: bool, *tail: str) -> str:
    """The import command line for the same file and scope, with `tail` flags, quoted for a POSIX shell."""
    words = ["memesh", "import", file, "--merge", merge]
    if namespace is not None:
        words += ["--namespace", namespace]
    if restore_archived:
        words.append("--restore-archived")
    return shlex.join([*words, *tail])


def _confirm_trust(file: str, count: int, rerun: str, *, as_json: bool) -> int | None:
    """None when the owner confirmed --trust at the terminal; otherwise the exit status, after saying why not."""
    if not sys.stdin.isatty():
        return _refuse(
            f"Not a terminal and --yes not given — nothing was changed. Re-run with: {rerun}", as_json=as_json, label=""
        )
    # The prompt goes to stderr, so stdout stays clean for --json and for a redirect.
    print(
        f"Trust the {render.memories(count)} in {file}? They will be injected into new sessions like your own. "
        "Only do this for your own backup. [y/N] ",
        end="",
        file=sys.stderr,
        flush=True,
    )
    if sys.stdin.readline().strip().lower() in ("y", "yes"):
        return None
    # A person answered at the terminal, where the prompt is: the answer is acknowledged there, --json or not.
    _err("Not trusted — nothing was written.")
    return FAILED


def _import_bundle(
    file: str, *, merge: str, namespace: str | None, restore_archived: bool, trust: bool, yes: bool, as_json: bool
) -> int:
    from memesh.transports.cli.progress import Progress

    progress = Progress()  # a line on a terminal's stderr while the file is read, checked and imported
    try:
        return _import_read_bundle(
            file,
            progress,
            merge=merge,
            namespace=namespace,
            restore_archived=restore_archived,
            trust=trust,
            yes=yes,
            as_json=as_json,
        )
    finally:
        progress.clear()


def _import_read_bundle(
    file: str,
    progress: Progress,
    *,
    merge: str,
    namespace: str | None,
    restore_archived: bool,
    trust: bool,
    yes: bool,
    as_json: bool,
) -> int:
    from memesh.app.operations.maintenance import IMPORT_FILE

    progress.say(f"Reading {file}…")
    data = _read_bundle(file)
    progress.clear()  # before anything else is printed on the terminal, here and after each phase
    if isinstance(data, MemeshError):
        return fail(data, as_json=as_json)
    if isinstance(data, _Unreadable):
        return _refuse(data.message, *data.hints, as_json=as_json, bad_body=data.bad_body)
    arguments: dict[str, Any] = {"data": data, "merge_strategy": merge}
    if namespace is not None:
        arguments["namespace"] = namespace
    if restore_archived:
        arguments["restore_archived"] = True
    if trust:
        arguments["trust"] = True
        if not yes:
            rerun = _rerun(file, merge, namespace, restore_archived, "--trust", "--yes")
            declined = _confirm_trust(file, len(data["entities"]), rerun, as_json=as_json)
            if declined is not None:
                return declined
    # The gate checks the bundle first (field paths as over MCP and HTTP), then each entry is counted as imported.
    progress.say(f"Checking {render.memories(len(data['entities']))}…")
    progress.counting("Importing")
    resources = cli_resources().watched(progress.step)
    try:
        imported = run_op(IMPORT_FILE, arguments, resources=resources)
    finally:
        resources.close()
        progress.clear()
    match imported:
        case Failure(error):
            return fail(error, as_json=as_json)
        case Success(result):
            pass
    if as_json:
        print(dumps(result))
    else:
        suggestion = _rerun(file, "overwrite", namespace, restore_archived, "--trust")
        print("\n".join(render.import_lines(result, trusted=trust, suggestion=suggestion)))
        _err(*render.skipped_relation_lines(result["skipped_relations"]))
    # Relations pointing outside the bundle are reported, not failed: every narrowed export has them.
    _err(*render.import_error_lines(result["errors"]))
    return FAILED if result["errors"] else OK


def _import_notes(directory: str, *, project: str | None, as_json: bool) -> int:
    from memesh.app.operations.maintenance import IMPORT_NOTES
    from memesh.core.note_files import summary_line

    arguments = {"dir": directory} if project is None else {"dir": directory, "project": project}
    match run_op(IMPORT_NOTES, arguments):
        case Failure(error):
            return fail(error, as_json=as_json)
        case Success(result):
            pass
    if as_json:
        print(dumps(result))
        return OK
    print(f"Notes: {summary_line(result)} ({result['discovered']} note files found)")
    _err(*render.note_detail_lines(result))
    return OK
