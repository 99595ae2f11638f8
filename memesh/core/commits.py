"""Commit capture: the commit line a `git commit` printed, and the memory a commit becomes (whether a command was a
commit is `memesh.core.triggers`'). Pure: the hook runs git for the file list and hands the answers in."""

from __future__ import annotations

import posixpath
import re
from collections.abc import Sequence

from memesh.core.clean import clean_text
from memesh.core.lazy_pattern import LazyPattern
from memesh.records import dataclass

COMMIT_TYPE = "commit"
IMPLEMENTS = "implements"  # the relation from a commit to a memory its message names
MAX_FILE_TAGS = 30
MAX_LISTED_FILES = 50
# `[main 1a2b3c4] subject`, `[main (root-commit) 1a2b3c4] subject`, `[detached HEAD 1a2b3c4] subject`.
_COMMIT_LINE = LazyPattern(
    r"^\[(?P<branch>[^\]\n]+?) (?:\(root-commit\) )?(?P<hash>[0-9a-f]{7,40})\] (?P<subject>.*)$", re.M
)


@dataclass(frozen=True)
class CommitLine:
    branch: str
    short_hash: str
    subject: str


def commit_line(output: str) -> CommitLine | None:
    """The last commit line git printed, or None (a failed commit, `--dry-run`, a hook that refused it …)."""
    found = list(_COMMIT_LINE.finditer(output))
    if not found:
        return None
    last = found[-1]
    return CommitLine(last.group("branch"), last.group("hash"), last.group("subject").strip())


def entity_name(full_or_short_hash: str) -> str:
    return f"commit-{full_or_short_hash[:7]}"


def file_tag(path: str) -> str:
    """`file:<basename>`: what pre-edit recall and `memesh why` look a file's memories up by."""
    return f"file:{posixpath.basename(path.rstrip('/'))}"


# `[mem:<name>]` or `[mem:<id>]` (the handle the briefing's memory index shows) in a commit's subject or body names
# the memory (a decision, a plan …) the commit implements.
_IMPLEMENTS = LazyPattern(r"\[mem:\s*([^\]\s][^\]\n]{0,199}?)\s*\]")
MAX_IMPLEMENTS = 10


def implemented(message: str) -> list[str]:
    """The memories a commit message says it implements (`[mem:<name or id>]`), each once, in order, at most 10."""
    return list(dict.fromkeys(found.group(1) for found in _IMPLEMENTS.finditer(message)))[:MAX_IMPLEMENTS]


@dataclass(frozen=True)
class CommitMemory:
    name: str
    title: str
    observations: list[str]
    tags: list[str]
    implements: tuple[str, ...] = ()


def memory(line: CommitLine, full_hash: str | None, body: str, files: Sequence[str], project: str) -> CommitMemory:
    """The commit as a memory: its subject, body, and the files it touched (tagged by basename)."""
    subject = clean_text(line.subject) or "(no subject)"
    observations = [subject]
    if body.strip():
        observations.append(clean_text(body.strip()))
    if files:
        shown = ", ".join(files[:MAX_LISTED_FILES])
        more = f" (+{len(files) - MAX_LISTED_FILES} more)" if len(files) > MAX_LISTED_FILES else ""
        observations.append(clean_text(f"Files: {shown}{more}"))
    observations.append(f"Commit {full_hash or line.short_hash} on {clean_text(line.branch)}")
    tags = [f"project:{project}", *dict.fromkeys(file_tag(f) for f in files[:MAX_FILE_TAGS])]
    # Here, not at the top: pre-edit recall imports this module for file_tag alone, and notes loads hashlib.
    from memesh.core.notes import TITLE_MAX, shorten

    name, named = entity_name(full_hash or line.short_hash), tuple(implemented(f"{line.subject}\n{body}"))
    return CommitMemory(name, shorten(subject, TITLE_MAX), observations, tags, named)
