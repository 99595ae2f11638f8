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
from memesh.core import mcp_memory
from memesh.core.storable import TOO_DEEP
from memesh.errors import MemeshError
from memesh.transports.cli import render
from memesh.transports.cli.actions.memory import cli_resources, run_op
from memesh.transports.cli.exits import FAILED, OK, dumps, fail

if TYPE_CHECKING:
    from memesh.transports.cli.progress import Progress

DEFAULT_MERGE = "skip"
FORMATS = ("bundle", "mcp-memory", "memesh-db")
SQLITE_HEADER = b"SQLite format 3\x00"
EXPORT_MAX = 1_000_000  # the export tool's own maximum: every memory of the original
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
    format_: str | None = None,
    dry_run: bool = False,
) -> int:
    """`memesh import`: a JSON bundle (or a file of another memory store, converted to one), or a note-file folder
    with --notes; flags that belong to the other refused."""
    if file is not None and notes is not None:
        return _refuse("pass either a JSON export file or --notes <dir>, not both.", as_json=as_json)
    if file is None and notes is None:
        return _refuse("pass a JSON export file (memesh import my-export.json) or --notes <dir>.", as_json=as_json)
    if not (file if file is not None else notes or "").strip():
        # An empty path would mean the current folder, which nobody asks for by leaving the argument blank.
        return _refuse("the path is empty: name the JSON export file or the --notes folder.", as_json=as_json)
    if yes and not trust:
        return _refuse("--yes only applies with --trust.", as_json=as_json)
    if format_ is not None and format_ not in FORMATS:
        return _refuse(f"--format must be one of {', '.join(FORMATS)}.", as_json=as_json, bad_body=True)
    if notes is not None:
        given = {
            "--merge": merge,
            "--namespace": namespace,
            "--restore-archived": restore_archived,
            "--trust": trust,
            "--format": format_,
            "--dry-run": dry_run,
        }
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
    if dry_run:
        return _dry_run(file, format_, as_json=as_json)
    return _import_bundle(
        file,
        format_,
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


class _Source(NamedTuple):
    """A file read as a bundle: the bundle, the format it was in, and what converting it changed or could not read."""

    data: dict[str, Any]
    format: str = "bundle"
    renamed: tuple[dict[str, str], ...] = ()
    problems: tuple[str, ...] = ()
    relations: int | None = None


def _read_source(file: str, format_: str | None) -> _Source | _Unreadable | MemeshError:
    """The file as a bundle: a `memesh export` bundle, the TypeScript MeMesh's knowledge-graph.db, or the official
    MCP memory server's memory.jsonl, told apart by their content unless `format_` names one."""
    try:
        raw = Path(file).read_bytes()
    except FileNotFoundError:
        return _Unreadable(f"file not found: {file}", _BUNDLE_HINTS)
    except OSError as exc:
        return _Unreadable(f"cannot read {file} ({exc.strerror or type(exc).__name__}).")
    if format_ == "memesh-db" or (format_ is None and raw.startswith(SQLITE_HEADER)):
        return _original_database(file)
    if format_ == "mcp-memory" or (format_ is None and _jsonl(raw)):
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            return _Unreadable(f"{file} is not UTF-8 text, so not a memory.jsonl.")
        converted = mcp_memory.convert(text)
        if not converted.bundle["entities"] and not mcp_memory.recognized(text):
            return _Unreadable(f"{file} holds no line of the MCP memory server's memory.jsonl.", bad_body=True)
        return _Source(
            converted.bundle, mcp_memory.FORMAT, tuple(converted.renamed), tuple(converted.problems),
            converted.relations,
        )  # fmt: skip
    data = _read_bundle(raw, file)
    return data if isinstance(data, _Unreadable | MemeshError) else _Source(data)


def _jsonl(raw: bytes) -> bool:
    try:
        return mcp_memory.recognized(raw.decode("utf-8"))
    except UnicodeDecodeError:
        return False


def _original_database(file: str) -> _Source | _Unreadable | MemeshError:
    """The TypeScript MeMesh's database as the bundle `memesh export` makes of it once adopted: read from an
    adopted private copy, so the file itself is left exactly as it is."""
    resources = cli_resources()
    try:
        store = resources.original_database(Path(file))
    except Exception as exc:  # StoreError: it is the original's, but could not be copied
        reason = getattr(getattr(exc, "error", None), "message", None)
        if reason is None:
            raise
        return MemeshError.failed(f"cannot read {file}: {reason}")
    finally:
        resources.close()  # it opened nothing of its own: the copy is closed below
    if store is None:
        return _Unreadable(
            f"{file} is not a database the TypeScript MeMesh wrote (to copy a whole MeMesh database, use "
            "memesh db copy --from it).",
            bad_body=True,
        )
    try:
        exported = run_op(EXPORT, {"limit": EXPORT_MAX}, resources=Resources.over(store))
    finally:
        store.close()
    match exported:
        case Success(bundle):
            return _Source(bundle, "memesh-db")
        case _:
            failed: MemeshError = exported.failure()
            return failed


def _read_bundle(raw: bytes, file: str) -> dict[str, Any] | _Unreadable | MemeshError:
    """The decoded bundle, or why the file cannot be one."""
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
    file: str,
    format_: str | None,
    *,
    merge: str,
    namespace: str | None,
    restore_archived: bool,
    trust: bool,
    yes: bool,
    as_json: bool,
) -> int:
    from memesh.transports.cli.progress import Progress

    progress = Progress()  # a line on a terminal's stderr while the file is read, checked and imported
    try:
        return _import_read_bundle(
            file,
            format_,
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
    format_: str | None,
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
    source = _read_source(file, format_)
    progress.clear()  # before anything else is printed on the terminal, here and after each phase
    if isinstance(source, MemeshError):
        return fail(source, as_json=as_json)
    if isinstance(source, _Unreadable):
        return _refuse(source.message, *source.hints, as_json=as_json, bad_body=source.bad_body)
    data = source.data
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
        print(dumps(result if source.format == "bundle" else {**result, "source": _described(source)}))
    else:
        suggestion = _rerun(file, "overwrite", namespace, restore_archived, "--trust")
        print("\n".join(render.import_lines(result, trusted=trust, suggestion=suggestion)))
        _err(*render.skipped_relation_lines(result["skipped_relations"]))
        if source.format != "bundle":
            _err(*_source_lines(file, source))
    # Relations pointing outside the bundle are reported, not failed: every narrowed export has them.
    _err(*render.import_error_lines(result["errors"]))
    if as_json:
        _err(*(f"  {problem}" for problem in source.problems))
    return FAILED if result["errors"] or source.problems else OK


FORMAT_NAMES = {
    "bundle": "a memesh export bundle",
    "memesh-db": "the TypeScript MeMesh's database (read from a private copy; the file was not changed)",
    mcp_memory.FORMAT: "the official MCP memory server's memory.jsonl",
}


def _described(source: _Source) -> dict[str, Any]:
    """What the file held and what reading it changed, for --json and the dry run."""
    entities = source.data["entities"]
    relations = source.relations
    if relations is None:
        relations = sum(len(e.get("relations") or []) for e in entities if isinstance(e, dict))
    return {
        "format": source.format,
        "entities": len(entities),
        "observations": sum(len(e.get("observations") or []) for e in entities if isinstance(e, dict)),
        "relations": relations,
        "renamed": list(source.renamed),
        "problems": list(source.problems),
    }


def _source_lines(file: str, source: _Source) -> list[str]:
    shown = _described(source)
    lines = [
        f"Read {file} as {FORMAT_NAMES[source.format]}: {render.memories(shown['entities'])}, "
        f"{_counted(shown['observations'], 'observation')}, {_counted(shown['relations'], 'relation')}."
    ]
    lines += [f"  renamed {item['from']!r} → {item['to']!r} ({item['why']})" for item in source.renamed]
    lines += [f"  not read: {problem}" for problem in source.problems]
    return lines


def _counted(count: int, noun: str) -> str:
    return f"{count} {noun}{'' if count == 1 else 's'}"


def _dry_run(file: str, format_: str | None, *, as_json: bool) -> int:
    """What importing `file` would bring (its format, counts, names given another one, lines not read); nothing
    is written and the database is not opened."""
    source = _read_source(file, format_)
    if isinstance(source, MemeshError):
        return fail(source, as_json=as_json)
    if isinstance(source, _Unreadable):
        return _refuse(source.message, *source.hints, as_json=as_json, bad_body=source.bad_body)
    if as_json:
        print(dumps({"dry_run": True, **_described(source)}))
    else:
        print("\n".join([*_source_lines(file, source), "Dry run: nothing was imported."]))
    return OK


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
