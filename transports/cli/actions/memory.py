"""The CLI's commands once their flags are parsed: the flags as an operation's input, the one door (`run_op`:
`dispatch.run` on the command's `Resources`), then the answer rendered.

No command calls an operation, an adapter or the store itself. Imported only when a command runs, so `memesh
--help` and a mistyped command do not pay for the store and the operations.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

from returns.result import Failure, Result, Success

from memesh.app import dispatch
from memesh.app.registry import BY_NAME, Op
from memesh.app.resources import Resources, Store
from memesh.context import CallContext
from memesh.errors import MemeshError
from memesh.hosts import session_from_environment
from memesh.transports.cli import render
from memesh.transports.cli.exits import FAILED, OK, dumps, fail, usage

if TYPE_CHECKING:
    from memesh.generated.cli.reindex_output import ReindexOutput

SOURCE_HOST = "cli"
T = TypeVar("T")


def _err(line: str) -> None:
    print(line, file=sys.stderr)


def cli_resources() -> Resources:
    """The command's resources: a database that will not open is operation.failed naming the file (the person at
    this machine is told which one), so --json prints a failure body for it too."""
    from memesh.transports.cli.database import chosen_settings

    return Resources.for_the_owner(settings=chosen_settings())


def cli_context(resources: Resources | None = None) -> CallContext:
    """The context of a CLI call.

    agent_view: what the CLI prints goes into an agent's context as often as to a person, so recall is capped.
    """
    from memesh.transports.cli.author import chosen_author

    given: dict[str, Any] = {"caller_session": session_from_environment()}
    author = chosen_author()
    if author is not None:  # --author: this call's writes are recorded as that person's
        given["author"] = lambda: author
    return (resources or Resources()).context(SOURCE_HOST, True, **given)


def on_store(action: Callable[[Store], Result[T, MemeshError]]) -> Result[T, MemeshError]:
    """`action` run on the opened database (closed afterwards); Failure(operation.failed) naming the file when it
    will not open. Only for the commands not yet through the door (`run_op`); a database failure inside `action`
    is translated as on every surface (`dispatch.guarded`)."""
    resources = cli_resources()
    try:
        return dispatch.guarded(lambda: action(resources.store))
    finally:
        resources.close()


def run_op(
    op: Op[Any, Any, T], arguments: Any, *, resources: Resources | None = None, ctx: CallContext | None = None
) -> Result[T, MemeshError]:
    """The one door for a command: `op` run through the gate on the command's resources (`resources` when the
    command holds them for several calls, else its own, closed afterwards)."""
    if resources is not None:
        return dispatch.run(op, resources, arguments, ctx or cli_context(resources))
    own = cli_resources()
    try:
        return dispatch.run(op, own, arguments, ctx or cli_context(own))
    finally:
        own.close()


def call_tool(name: str, arguments: dict[str, Any]) -> Result[Any, MemeshError]:
    """The tool's Result, called as an agent would see it."""
    return run_op(BY_NAME[name], arguments)


def report(result: Result[T, MemeshError], *, as_json: bool, text: Callable[[T], str]) -> int:
    """Print a tool's answer (JSON, or `text` of it for people) and give the exit code; failures go to `fail`."""
    match result:
        case Failure(error):
            return fail(error, as_json=as_json)
        case Success(output):
            print(dumps(output) if as_json else text(output))
            return OK
    raise AssertionError("unreachable")  # pragma: no cover


def remember(
    text: str | None,
    *,
    name: str | None,
    entity_type: str | None,
    title: str | None,
    observations: list[str] | None,
    tags: list[str] | None,
    namespace: str | None,
    supersedes: list[str] | None,
    contradicts: list[str] | None,
    replace: bool,
    as_json: bool,
) -> int:
    """`memesh remember`: what was typed, through the door (the operation decides the form); exit 1 if a relation
    failed."""
    if replace and name is None:
        return usage("--replace requires --name: a name derived from the text changes with it, so it names nothing")
    if text is None and name is None:
        return usage('give the text to remember (memesh remember "…"), or --name and --type with --obs')
    if entity_type is not None:
        from memesh.core.type_hints import near_miss

        # A person typed it: refuse a typo before it becomes a type nobody's briefing shows (MCP and HTTP store it
        # and say so in `warnings`, since a model reads the answer and the call is not repeated by hand).
        known = near_miss(entity_type.strip())
        if known is not None:
            return usage(f'--type "{entity_type}" is not a type MeMesh knows; did you mean --type {known}?')
    from memesh.app.operations.writing import REMEMBER_TYPED

    typed = {
        "text": text,
        "name": name,
        "type": entity_type,
        "title": title,
        "obs": observations,
        "tags": tags,
        "namespace": namespace,
        "supersedes": supersedes,
        "contradicts": contradicts,
    }
    arguments: dict[str, Any] = {key: value for key, value in typed.items() if value is not None}
    if replace:
        arguments["replace"] = True
    match run_op(REMEMBER_TYPED, arguments):
        case Failure(error):
            return fail(error, as_json=as_json)
        case Success(output):
            pass
    if as_json:
        print(dumps(output))
    else:
        # The title is shown when it came from the text: nothing typed named it.
        title_derived = text is not None and not (title and title.strip())
        print("\n".join(render.remember_lines(output, namespace=namespace, title_derived=title_derived)))
    for warning in output.get("warnings", []):
        _err(f"warning: {warning}")
    # The consequence asked for (an archive, a stated conflict) did not happen: said on stderr, and not a success.
    errors = render.relation_error_lines(output)
    for line in errors:
        _err(line)
    return FAILED if errors else OK


def recall(
    query: str | None,
    *,
    tag: str | None,
    limit: int | None,
    include_archived: bool,
    namespace: str | None,
    cross_project: bool,
    as_json: bool,
    since: str | None = None,
    until: str | None = None,
) -> int:
    """`memesh recall`: the capped envelope as JSON, or the ranked memories for people."""
    fields = {"query": query, "tag": tag, "since": since, "until": until, "limit": limit, "namespace": namespace}
    arguments: dict[str, Any] = {key: value for key, value in fields.items() if value is not None}
    if include_archived:
        arguments["include_archived"] = True
    if cross_project:
        arguments["cross_project"] = True
    searched = bool(query)
    return report(
        call_tool("recall", arguments),
        as_json=as_json,
        text=lambda envelope: "\n".join(render.recall_lines(envelope, searched=searched)),
    )


def forget(name: str, *, observation: str | None, as_json: bool) -> int:
    """`memesh forget`: exit 0 only when something was archived or removed."""
    arguments: dict[str, Any] = {"name": name}
    if observation is not None:
        arguments["observation"] = observation
    result = call_tool("forget", arguments)
    match result:
        case Success(output) if output.get("already_archived"):
            # Archiving what is archived already changes nothing, and the exit code says so, as for a miss.
            if as_json:
                print(dumps(output))
            else:
                _err(f"Error: {render.forget_line(output)}")
            return FAILED
    return report(result, as_json=as_json, text=render.forget_line)


def call_json(name: str, text: str) -> int:
    """`memesh call`: the tool's answer as JSON on stdout, or its failure body (exit 1); the arguments pass the same
    gate as over MCP and HTTP, so a defect reads the same (code and field path) on all three."""
    from memesh.core.storable import TOO_DEEP

    if text == "-":
        text = sys.stdin.read()
    try:
        arguments = json.loads(text) if text.strip() else {}
    except RecursionError:  # valid JSON nested past what the parser can follow: the gate's own refusal
        return fail(MemeshError.bad_body(TOO_DEEP), as_json=True)
    except ValueError:
        return fail(MemeshError.bad_body("the arguments are not valid JSON"), as_json=True)
    return report(call_tool(name, arguments), as_json=True, text=dumps)


def export_schema(output_format: str, *, strict: bool = False) -> int:
    """`memesh export-schema [--strict]`: every tool as an OpenAI function definition, indented JSON on stdout."""
    from memesh.app.openai_export import FORMATS, openai_tools, strict_tools

    if output_format not in FORMATS:
        _err(f"Unknown format: {output_format}. Available: {', '.join(FORMATS)}")
        return FAILED
    print(json.dumps(strict_tools() if strict else openai_tools(), indent=2, ensure_ascii=False))
    return OK


def learn(
    *,
    error: str,
    fix: str,
    root_cause: str | None,
    prevention: str | None,
    severity: str | None,
    project: str | None,
    as_json: bool,
) -> int:
    """`memesh learn`: the lesson's name, or its failure."""
    fields = {"root_cause": root_cause, "prevention": prevention, "severity": severity, "project": project}
    arguments = {"error": error, "fix": fix, **{key: value for key, value in fields.items() if value is not None}}
    return report(
        call_tool("learn", arguments), as_json=as_json, text=lambda output: f"Lesson recorded: {output['name']}"
    )


def task(
    *,
    project: str | None,
    goal: str | None,
    next_step: str | None,
    blocked: str | None,
    done: str | None,
    as_json: bool,
) -> int:
    """`memesh task`: read the project's state (no field given) or write the fields given."""
    fields = {"project": project, "goal": goal, "next": next_step, "blocked": blocked, "done": done}
    from memesh.core.identity import project_label

    return report(
        call_tool("task_state", {key: value for key, value in fields.items() if value is not None}),
        as_json=as_json,
        text=lambda output: "\n".join(render.task_lines(output, project_label(output["project"]))),
    )


def pin(name: str, *, pinned: bool, as_json: bool) -> int:
    """`memesh pin` / `memesh unpin`: exit 1 when there is no such memory (the JSON then says found: false)."""
    from memesh.app.operations.maintenance import PIN

    said = f'📌 Pinned "{name}" — excluded from digest work packages' if pinned else f'📍 Unpinned "{name}"'
    result = run_op(PIN, {"name": name, "pinned": pinned})
    match result:
        case Failure(error) if as_json and error.data.get("found") is False:
            # The spec's payload is exactly {name, pinned, found}, a miss included; the message goes to stderr.
            print(dumps(error.data))
            _err(f"Error: {error.message}")
            return FAILED
    return report(result, as_json=as_json, text=lambda _: said)


def reindex(*, fts: bool, vectors: bool, as_json: bool) -> int:
    """`memesh reindex --fts / --vectors`: rebuild the keyword index, store hybrid's missing vectors, or both, with
    the progress line when a person is watching stderr."""
    if not (fts or vectors):
        return usage(
            "say which index to rebuild: memesh reindex --fts (the keyword index), "
            "memesh reindex --vectors (hybrid recall's vectors), or both"
        )
    from memesh.app.operations.maintenance import REINDEX
    from memesh.transports.cli.progress import Progress

    progress = Progress().counting("Reindexing")  # shown only on a terminal's stderr, erased before the answer
    resources = cli_resources().watched(progress.step)
    try:
        result = run_op(REINDEX, {"fts": fts, "vectors": vectors}, resources=resources)
    finally:
        resources.close()
        progress.clear()
    return report(result, as_json=as_json, text=lambda output: _reindexed(output, fts=fts))


def _reindexed(output: ReindexOutput, *, fts: bool) -> str:
    """What `memesh reindex` says it did: the keyword index rebuilt, then (with --vectors) the vectors stored."""
    lines = [f"Keyword index rebuilt ({output['entities']} entities)."] if fts else []
    if "embedded" in output:
        embedded = output["embedded"]
        lines.append(
            f"Vectors stored for {embedded} of {output['entities']} memories."
            if embedded
            else f"Every memory already has vectors ({output['entities']} entities)."
        )
    return "\n".join(lines)
