"""What Hermes Agent's sessions and turns leave in memory, decided from plain values.

`memesh hermes capture-session` runs the Stop hook's session-insight rules over an OpenAI-format message
list: at most three `session-insight` memories (`session-<id>-files`, `-fixes`, `-summary`), nothing for a session
of fewer than three tool calls. `capture-turn` keeps a turn only when the assistant's reply states a decision or a
lesson. The thresholds and observation wording here are the Stop hook's; keep the two in step.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import field
from typing import Any, Final, Literal

from returns.result import Failure, Result, Success

from memesh.core.clean import clean_text
from memesh.core.json_input import json_object
from memesh.errors import ErrorCode, MemeshError
from memesh.records import dataclass

INPUT_MAX_BYTES: Final = 8 * 1024 * 1024
MIN_TOOL_CALLS: Final = 3  # fewer is a quiet session: nothing is stored
HEAVY_SESSION_TOOL_CALLS: Final = 20  # at or above, the session gets a -summary
COMMAND_CHARS: Final = 100
ERROR_CHARS: Final = 200
TURN_TEXT_CHARS: Final = 2000
TITLE_CHARS: Final = 100
SOURCE_HOST: Final = "hermes"
PLATFORM_TAG: Final = "platform:hermes"
_SESSION_ID = re.compile(r"[A-Za-z0-9._:-]{1,128}")

# Hermes Agent's tool names as its tool_calls carry them, and the hooks' first host's, so a host forwarding those is
# read too.
FILE_WRITE_TOOLS: Final = frozenset({"write_file", "patch", "edit_file", "Write", "Edit", "MultiEdit", "NotebookEdit"})
SHELL_TOOLS: Final = frozenset({"terminal", "shell", "bash", "Bash", "execute_command"})
READ_ONLY_TOOLS: Final = frozenset(
    {
        *("read_file", "search_files", "list_files", "list_directory", "web_search", "web_extract", "browser"),
        *("Read", "Grep", "Glob", "LS", "WebFetch", "WebSearch", "TodoWrite", "todo", "memory", "clarify"),
        *("memesh_recall", "memesh_remember", "memesh_forget", "session_search", "skill_view", "skills_list"),
    }
)
_PATH_KEYS: Final = ("path", "file_path", "filename", "notebook_path")
# Paths a shell command writes in place: redirection, tee, sed -i, pathlib and fs writes. Anything else is uncounted.
_SHELL_WRITES: Final = (
    re.compile(r"(?<![0-9&<>])>{1,2}\s*[\"']?([^\s\"'<>|&;()]+)"),
    re.compile(r"\btee\s+(?:-a\s+)?[\"']?([^\s\"'<>|&;()]+)"),
    re.compile(r"\bsed\s+-i(?:\s*''|\s*\"\")?\s+(?:'[^']*'|\"[^\"]*\"|\S+)\s+[\"']?([^\s\"'<>|&;()]+)"),
    re.compile(r"Path\(\s*[\"']([^\"']+)[\"']\s*\)\s*\.write_(?:text|bytes)\("),
    re.compile(r"writeFileSync\(\s*[\"']([^\"']+)[\"']"),
)
_PATCH_FILE = re.compile(r"^\*\*\* (?:Add|Update) File: (.+)$", re.M)


def check_session_id(session: str) -> Result[str, MemeshError]:
    if not _SESSION_ID.fullmatch(session):
        return Failure(
            MemeshError(
                ErrorCode.BAD_PARAM,
                "--session must be 1-128 letters, digits, '.', '_', ':' or '-'",
                {"param": "session"},
            )
        )
    return Success(session)


def read_input(data: bytes) -> Result[dict[str, Any], MemeshError]:
    """The stdin JSON object, or a refusal: over 8 MiB, not UTF-8 JSON, or not an object."""
    return json_object(data, max_bytes=INPUT_MAX_BYTES, limit="8 MiB")


def session_messages(body: dict[str, Any]) -> Result[list[Any], MemeshError]:
    messages = body.get("messages")
    if not isinstance(messages, list):
        return Failure(MemeshError.bad_body('messages: capture-session reads {"messages": [...]}, an array'))
    return Success(messages)


def turn_texts(body: dict[str, Any]) -> Result[tuple[str, str], MemeshError]:
    problems = [f"{key}: must be a string" for key in ("user", "assistant") if not isinstance(body.get(key), str)]
    if problems:
        return Failure(MemeshError.bad_body("; ".join(problems) + ' (capture-turn reads {"user": …, "assistant": …})'))
    return Success((body["user"], body["assistant"]))


@dataclass
class Activity:
    """What a session did, counted: the input of the insight rules."""

    files_edited: list[str] = field(default_factory=list)  # basenames, deduplicated, in first-seen order
    commands: list[str] = field(default_factory=list)  # redacted, then cut to 100 characters
    errors: list[str] = field(default_factory=list)  # redacted, then cut to 200 characters
    tool_calls: int = 0
    unrecognized_tools: list[str] = field(default_factory=list)
    # Tool results that are not a JSON object: their errors cannot be read, so a host answering in plain text shows
    # up as this count (a blind spot) rather than as "no errors".
    tool_results_non_json: int = 0


def _basename(path: str) -> str:
    return re.split(r"[\\/]", path.rstrip("/\\"))[-1] or path


def shell_written_paths(command: str) -> list[str]:
    found: dict[str, None] = {}
    for pattern in _SHELL_WRITES:
        for match in pattern.finditer(command):
            path = match.group(1)
            if not path.startswith(("/dev/", "/tmp/", "&")):
                found[path] = None
    return list(found)


def _arguments(raw: Any) -> dict[str, Any]:
    if isinstance(raw, dict):
        return raw
    if isinstance(raw, str):
        try:
            parsed = json.loads(raw)
        except (ValueError, RecursionError):
            return {}  # cut-off arguments: the call still counts, its paths do not
        return parsed if isinstance(parsed, dict) else {}
    return {}


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return " ".join(p["text"] for p in content if isinstance(p, dict) and isinstance(p.get("text"), str))
    return ""


def _tool_error(content: Any) -> str | Literal[False] | None:
    """The error a tool result states in its JSON (`error`, `success: false`, a non-zero `exit_code`), None when it
    states none, False when the result is not a JSON object and cannot be read."""
    text = _text(content)
    try:
        body = json.loads(text)
    except (ValueError, RecursionError):
        return False
    if not isinstance(body, dict):
        return False
    error = body.get("error")
    has_error = isinstance(error, str) and error.strip() != ""
    exit_code = body.get("exit_code")
    nonzero = isinstance(exit_code, int | float) and not isinstance(exit_code, bool) and exit_code != 0
    if has_error or body.get("success") is False or nonzero:
        return error if has_error else text
    return None


def activity_from_messages(messages: list[Any]) -> Activity:
    """Count a chat-format message list; a malformed entry is skipped on its own, never fatal."""
    activity = Activity()
    files: dict[str, None] = {}
    unrecognized: dict[str, None] = {}
    for message in messages:
        if not isinstance(message, dict):
            continue
        if message.get("role") == "assistant" and isinstance(message.get("tool_calls"), list):
            for call in message["tool_calls"]:
                function = call.get("function") if isinstance(call, dict) else None
                name = function.get("name") if isinstance(function, dict) else None
                if not isinstance(name, str) or not name:
                    continue
                activity.tool_calls += 1
                args = _arguments(function.get("arguments") if isinstance(function, dict) else None)
                if name in FILE_WRITE_TOOLS:
                    paths = [args[k] for k in _PATH_KEYS if isinstance(args.get(k), str) and args[k]]
                    patch = args.get("patch") if isinstance(args.get("patch"), str) else args.get("input")
                    if isinstance(patch, str):
                        paths += [p.strip() for p in _PATCH_FILE.findall(patch)]
                    files.update(dict.fromkeys(_basename(p) for p in paths[:20]))
                elif name in SHELL_TOOLS:
                    command = args.get("command")
                    if isinstance(command, str):
                        files.update(dict.fromkeys(_basename(p) for p in shell_written_paths(command)))
                        if len(command) > 10 and not command.startswith(("ls", "cd")):
                            # Redacted before it is cut: a cut can split a credential and hide it from the patterns.
                            activity.commands.append(clean_text(command)[:COMMAND_CHARS])
                elif name not in READ_ONLY_TOOLS:
                    unrecognized[name[:64]] = None
        elif message.get("role") == "tool":
            error = _tool_error(message.get("content"))
            if error is False:
                activity.tool_results_non_json += 1
            elif error is not None:
                activity.errors.append(clean_text(error)[:ERROR_CHARS])
    activity.files_edited = list(files)
    activity.unrecognized_tools = list(unrecognized)
    return activity


@dataclass(frozen=True)
class Insight:
    name: str
    title: str
    observations: list[str]
    tags: list[str]


def _file_tags(files: list[str]) -> list[str]:
    tags: dict[str, None] = {}
    for name in files:
        tags[f"file:{name}"] = None
        stem = re.sub(r"\.[^.]+$", "", name)
        if stem and stem != name:
            tags[f"file:{stem}"] = None
    return list(tags)


def session_insights(activity: Activity, session: str, *, date: str, label: str) -> list[Insight]:
    """The Stop hook's three rules: -files when a file was edited, -fixes when errors met editing files, -summary
    for a heavy session. None for a quiet session (fewer than MIN_TOOL_CALLS tool calls)."""
    if activity.tool_calls < MIN_TOOL_CALLS:
        return []
    files, errors, calls = activity.files_edited, activity.errors, activity.tool_calls
    base = [f"session:{session}", PLATFORM_TAG]
    prefix = f"{date} {label}"
    out: list[Insight] = []
    if files:
        out.append(
            Insight(
                f"session-{session}-files",
                f"{prefix}: edited {len(files)} file(s)"[:TITLE_CHARS],
                [f"Session edited {len(files)} file(s): {', '.join(files)}", f"Total tool calls: {calls}"],
                [*base, *_file_tags(files)],
            )
        )
    if errors and files:
        out.append(
            Insight(
                f"session-{session}-fixes",
                f"{prefix}: fixed {len(errors)} error(s)"[:TITLE_CHARS],
                [
                    f"Fixed {len(errors)} error(s) by editing {', '.join(files)}",
                    *(f"Error: {error[:100]}" for error in errors[:3]),
                ],
                [*base, "type:bugfix", *_file_tags(files)],
            )
        )
    if calls >= HEAVY_SESSION_TOOL_CALLS:
        out.append(
            Insight(
                f"session-{session}-summary",
                f"{prefix}: significant session ({calls} tool calls)"[:TITLE_CHARS],
                [
                    f"Significant session: {calls} tool calls, {len(files)} files edited",
                    *(f"Command: {command}" for command in activity.commands[:3]),
                ],
                [*base, "type:heavy-session"],
            )
        )
    return out


def skip_reason(activity: Activity) -> str:
    if activity.tool_calls < MIN_TOOL_CALLS:
        return f"too little activity to be worth saving ({activity.tool_calls} tool call(s))"
    return f"no rule matched (no edited file and fewer than {HEAVY_SESSION_TOOL_CALLS} tool calls)"


# --- One turn: is it a decision or a lesson? ----------------------------------------------------------------------
# Only the assistant's reply is read: the user's text carries questions ("have we decided?") and, under Hermes, the
# recall block injected before the turn, which repeats earlier decisions word for word.
_I = re.IGNORECASE
DECISION_CUES: Final = (
    re.compile(r"\b(?:we|i)(?:'ve| have|'ll| will)?\s+(?:decided|settled on|opted (?:for|to))\b", _I),
    re.compile(r"\bdecision\s*:", _I),
    re.compile(r"\blet'?s\s+(?:go with|use|switch to|stick with)\b", _I),
    re.compile(
        r"\b(?:we|i)(?:'ll| will|'re going to| are going to| am going to|'m going to)\s+"
        r"(?:go with|use|switch to|stick with)\b",
        _I,
    ),
    re.compile(r"\b(?:from now on|going forward)\b", _I),
    re.compile(r"^\s*agreed\s*[:,—-]", _I | re.M),
    re.compile(r"決定(?:用|採用|改用|不用|改成|換成)|改用|就用|拍板"),
)
LESSON_CUES: Final = (
    re.compile(r"\blessons? learned\b|\blesson\s*:", _I),
    re.compile(r"\blearned (?:the hard way|that)\b", _I),
    re.compile(r"\broot cause\b", _I),
    re.compile(r"\bthe (?:fix|problem|bug|culprit) was\b", _I),
    re.compile(r"\b(?:gotcha|pitfall)\b", _I),
    re.compile(r"教訓|根因|原來是|踩到|下次要"),
)
_NEGATION = re.compile(r"\b(?:not|no|never|haven'?t|hasn'?t|didn'?t|won'?t|don'?t|yet to)\b|還沒|尚未|沒有", _I)
_NEGATION_WINDOW = 24
_CLAUSE_BREAK = re.compile(r"[.!?;:—,，。；：]")
_SENTENCE_END = re.compile(r"[.!?。！？\n]")
_SHOWN = (
    re.compile(r"```.*?(?:```|$)", re.S),  # fenced code
    re.compile(r"`[^`\s](?:[^`\n]{0,78}[^`\s])?`"),  # inline code (no stray backtick pairs with a far one)
    re.compile(r"\"[^\"\n]*\"|“[^”\n]*”|「[^」\n]*」|『[^』\n]*』"),  # quoted text
)
_RECALL_BLOCK = re.compile(r"^\s*\[MeMesh recall\].*?(?:\n\s*\n|$)", re.S)

TurnKind = Literal["decision", "lesson"]


def _said(text: str) -> str:
    """The reply without what it only shows: a leading recall block, code, and quotations of others' words."""
    text = _RECALL_BLOCK.sub("", text)
    for pattern in _SHOWN:
        text = pattern.sub(" ", text)
    return text


def _stated(pattern: re.Pattern[str], text: str) -> str | None:
    """The first match that is neither negated within its clause nor part of a question."""
    for match in pattern.finditer(text):
        before = text[max(0, match.start() - _NEGATION_WINDOW) : match.start()]
        clause = _CLAUSE_BREAK.split(before)[-1]
        end = _SENTENCE_END.search(text, match.end())
        asks = end is not None and end.group() in "?？"
        if not _NEGATION.search(clause) and not asks:
            return match.group().strip()
    return None


def classify_turn(assistant: str) -> tuple[TurnKind, str] | None:
    """("decision" | "lesson", the cue) when the reply states one, decisions first; None for ordinary talk."""
    said = _said(assistant)
    for kind, cues in (("decision", DECISION_CUES), ("lesson", LESSON_CUES)):
        for cue in cues:
            found = _stated(cue, said)
            if found is not None:
                return kind, found  # type: ignore[return-value]
    return None


def turn_name(session: str, user: str, assistant: str) -> str:
    """A digest of the turn's text: a retried turn has the same name, so it never becomes a second memory."""
    digest = hashlib.sha256(user.encode() + b"\x00" + assistant.encode()).hexdigest()[:12]
    return f"hermes-turn-{session}-{digest}"


def turn_observations(user: str, assistant: str) -> list[str]:
    """`User: …` and `Assistant: …`, each redacted and then cut to 2,000 characters; a side without text is left out."""
    return [
        f"{who}: {clean_text(text)[:TURN_TEXT_CHARS]}"
        for who, text in (("User", user), ("Assistant", assistant))
        if clean_text(text).strip()
    ]
