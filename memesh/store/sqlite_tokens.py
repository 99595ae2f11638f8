"""SQLite's own FTS5 tokenizer, for a store that keeps its keyword index somewhere else (PostgreSQL's postings).

Recall must rank the same on both engines, so the PostgreSQL index must hold exactly the tokens FTS5 would:
`porter unicode61 remove_diacritics 2` over the same index text. Rather than port the tokenizer (its Unicode tables
are SQLite's, not Python's), each thread keeps an in-memory FTS5 table with that tokenizer and reads back what it
made of a text, inside a transaction that is rolled back, so the table stays empty. Reading the per-column counts
(`fts5vocab` 'col') costs about 0.3 ms for a memory of 1 kB.
"""

from __future__ import annotations

import sqlite3
import threading
from functools import lru_cache

from memesh.store.migrations import FTS_TOKENIZE

_COLUMNS = ("name", "title", "observations")


class _Local(threading.local):
    conn: sqlite3.Connection | None = None


_local = _Local()


def _conn() -> sqlite3.Connection:
    conn = _local.conn
    if conn is None:
        conn = sqlite3.connect(":memory:", isolation_level=None)
        conn.execute(f"CREATE VIRTUAL TABLE doc USING fts5({', '.join(_COLUMNS)}, tokenize = '{FTS_TOKENIZE}')")
        conn.execute("CREATE VIRTUAL TABLE doc_terms USING fts5vocab(doc, 'col')")
        conn.execute("CREATE VIRTUAL TABLE doc_tokens USING fts5vocab(doc, 'instance')")
        _local.conn = conn
    return conn


def term_counts(name: str, title: str, body: str) -> list[tuple[str, int, int, int]]:
    """(token, occurrences in name, in title, in body) for every distinct token of one memory's index text."""
    conn = _conn()
    conn.execute("BEGIN")
    try:
        conn.execute("INSERT INTO doc (rowid, name, title, observations) VALUES (1, ?, ?, ?)", (name, title, body))
        counts: dict[str, list[int]] = {}
        for term, column, count in conn.execute("SELECT term, col, cnt FROM doc_terms"):
            counts.setdefault(term, [0, 0, 0])[_COLUMNS.index(column)] = int(count)
    finally:
        conn.execute("ROLLBACK")
    return [(term, tf[0], tf[1], tf[2]) for term, tf in counts.items()]


@lru_cache(maxsize=4096)
def phrase(term: str) -> tuple[str, ...]:
    """The tokens FTS5 makes of one query term quoted as a phrase (`"term"`), in order: usually one."""
    return tuple(token for _, token in positions(term))


def positions(text: str) -> list[tuple[int, str]]:
    """(offset, token) of every token FTS5 makes of `text`, in order."""
    conn = _conn()
    conn.execute("BEGIN")
    try:
        conn.execute("INSERT INTO doc (rowid, name) VALUES (1, ?)", (text,))
        rows = conn.execute("SELECT offset, term FROM doc_tokens ORDER BY offset").fetchall()
    finally:
        conn.execute("ROLLBACK")
    return [(int(offset), str(token)) for offset, token in rows]
