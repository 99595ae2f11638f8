"""`memesh feedback`: the pre-filled public issue — its title, body and link — built from plain values.

Nothing is ever submitted: the user reads the exact body, then submits the form themselves. Diagnostics pass
through `redact` first, so a credential, a path on this machine or the user's name in a path does not reach a
public page.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any, Final, Literal
from urllib.parse import urlencode

from memesh.core.clean import clean_text

Kind = Literal["bug", "feature", "question"]
# A GitHub tracker (https://github.com/<owner>/<repo>/issues) gets its new-issue form pre-filled.
_GITHUB_TRACKER = re.compile(r"^https://github\.com/[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+/issues/?$")
URL_LIMIT: Final = 8000  # GitHub refuses longer issue links; the body then leaves the diagnostics to be pasted
LABELS: Final[dict[Kind, str]] = {"bug": "bug", "feature": "enhancement", "question": "question"}
HEADINGS: Final[dict[Kind, str]] = {"bug": "Bug report", "feature": "Feature request", "question": "Question"}
PROMPTS: Final[dict[Kind, tuple[str, ...]]] = {
    "bug": ("### What happened", "### Steps to reproduce", "1. ", "### What you expected"),
    "feature": ("### What you want to do", "### Why it matters"),
    "question": ("### Your question",),
}
# An absolute or home-relative path not glued to a word: it may name the user's files or account.
_PATH = re.compile(r"(?<![\w.])(?:[A-Za-z]:)?[\\/~][^\s'\"(),;]*")


def redact(value: Any) -> Any:
    """`value` with every string cleaned (credentials → ***REDACTED***, control characters dropped) and paths
    blanked to `<path>`, keys and structure kept."""
    if isinstance(value, str):
        return _PATH.sub("<path>", clean_text(value))
    if isinstance(value, Mapping):
        return {str(key): redact(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [redact(item) for item in value]
    return value


def title(kind: Kind, message: str | None) -> str:
    """The issue title: the first line of the message (cleaned, at most 80 characters), or the kind's heading."""
    first = clean_text(message or "").strip().splitlines()
    text = first[0].strip() if first else ""
    if not text:
        return f"[{kind}] "
    return f"[{kind}] {text[:80]}"


def body(kind: Kind, message: str | None, diagnostics: Mapping[str, Any] | None) -> str:
    """The issue body as the user will see it: heading, their message, the prompts to fill, then diagnostics."""
    lines = [f"## {HEADINGS[kind]}", ""]
    text = clean_text(message or "").strip()
    if text:
        lines += [text, ""]
    for prompt in PROMPTS[kind]:
        lines += [prompt, ""]
    if diagnostics is not None:
        lines += [
            "<details><summary>Diagnostics (redacted)</summary>",
            "",
            "```json",
            json.dumps(redact(diagnostics), indent=2, ensure_ascii=False, sort_keys=True),
            "```",
            "</details>",
            "",
        ]
    return "\n".join(lines)


def issue_url(kind: Kind, issue_title: str, issue_body: str, tracker: str | None) -> str:
    """The link to `tracker`'s new-issue form, pre-filled when it is a GitHub tracker (over 8000 characters, the
    body's diagnostics are replaced by a line asking to paste them: they were printed in full); the tracker itself
    for any other; "" when this copy names no tracker, rather than another project's."""
    if tracker is None:
        return ""
    if not _GITHUB_TRACKER.match(tracker):
        return tracker
    base = f"{tracker.rstrip('/')}/new?"

    def build(text: str) -> str:
        return base + urlencode({"title": issue_title, "body": text, "labels": LABELS[kind]})

    url = build(issue_body)
    if len(url) <= URL_LIMIT:
        return url
    head = issue_body.split("<details>", 1)[0]
    url = build(head + "_Diagnostics were too long for the link: paste them from the terminal._\n")
    return url if len(url) <= URL_LIMIT else build(head[: URL_LIMIT // 4])
