"""Migration 8: names already stored in NFD or with control characters are rewritten to the form lookups use."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from memesh.store.sqlite import open_store


def test_stored_names_tags_and_types_are_rewritten_in_their_cleaned_form(tmp_path: Path) -> None:
    path = tmp_path / "memesh" / "knowledge-graph.db"
    open_store(path).close()
    conn = sqlite3.connect(path)
    with conn:
        conn.execute("DELETE FROM schema_migrations WHERE version = 8")
        for name in ("cafe\u0301", "bell\x07", "caf\u00e9-taken", "caf\u0065\u0301-taken"):
            conn.execute("INSERT INTO entities (name, type) VALUES (?, ?)", (name, "t\x1b[31m"))
        conn.execute("INSERT INTO tags (entity_id, tag) VALUES (1, 'proj\u0065\u0301')")
    conn.close()
    store = open_store(path)
    try:
        assert store.find("caf\u00e9") is not None
        assert store.find("bell") is not None
        assert {e.name for e in store.load([1, 2, 3, 4])} == {
            "caf\u00e9",
            "bell",
            "caf\u00e9-taken",
            "cafe\u0301-taken",
        }
        assert store.load([1])[0].type == "t[31m"
        assert store.load([1])[0].tags == ["proj\u00e9"]
    finally:
        store.close()
