"""A whole database as rows, for copying it into an empty one of either engine (`memesh db copy`).

Both engines hold the same tables with the same columns; what each keeps for itself (its keyword index, its
counters, its migrations) is not copied but rebuilt by the target from the rows. Ids are kept, so a `[mem:id]`
citation, a proposal's source ids and a message cursor mean the same after the copy.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from typing import Any, Final

from memesh.store.sql import SqlBase

# Every table of MeMesh's data, parents before children, with the columns both schemas give it.
TABLES: Final[tuple[tuple[str, tuple[str, ...]], ...]] = (
    (
        "entities",
        (
            "id", "name", "type", "title", "namespace", "status", "created_at", "metadata", "access_count",
            "last_accessed_at", "confidence", "recall_hits", "recall_misses", "author",
        ),
    ),
    ("entity_vectors", ("entity_id", "model", "vectors")),
    ("observations", ("id", "entity_id", "content", "created_at", "author")),
    ("tags", ("id", "entity_id", "tag")),
    ("relations", ("id", "from_entity_id", "to_entity_id", "relation_type", "metadata", "created_at", "author")),
    ("memesh_metadata", ("key", "value")),
    ("session_memories", ("session_id", "entity_id", "source", "at", "credited")),
    (
        "dream_proposals",
        (
            "id", "project", "cluster_key", "kind", "source_kind", "source_ids", "proposed_digest", "package_id",
            "fingerprints", "status", "reason", "created_at", "reviewed_at", "applied_entity", "author",
        ),
    ),
    (
        "agent_messages",
        (
            "id", "message_id", "project", "sender", "sender_host", "content_type", "privacy", "correlation_id",
            "reply_to", "payload", "payload_bytes", "pruned_at", "idempotency_key", "request_digest", "created_at",
            "author",
        ),
    ),
    (
        "agent_deliveries",
        ("id", "delivery_id", "message_id", "project", "recipient", "target_kind", "intended_session", "created_at"),
    ),
    (
        "agent_message_events",
        ("id", "project", "recipient", "target_kind", "message_id", "delivery_id", "created_at"),
    ),
    ("agent_message_cursors", ("token", "project", "recipient", "target_kind", "position", "created_at")),
    (
        "agent_receipts",
        (
            "id", "delivery_id", "message_id", "kind", "state", "detail", "fact_source", "actor", "session_id",
            "source_host", "idempotency_key", "request_digest", "created_at",
        ),
    ),
    (
        "agent_sessions",
        (
            "session_id", "generation", "principal_id", "host_kind", "project", "work_summary", "connected_at",
            "lease_expires_at_ms", "disconnected_at",
        ),
    ),
    ("agent_stop_gate", ("session_id", "message_id", "blocked_at")),
    ("guard_stops", ("session_id", "entity_id", "stopped_at")),
    (
        "members",
        ("id", "name", "role", "projects", "token_hash", "created_at", "expires_at", "revoked_at", "last_used_at"),
    ),
    ("audit_log", ("id", "at", "actor", "action", "target", "detail")),
    ("oauth_clients", ("client_id", "metadata", "secret_hash", "created_at")),
    (
        "oauth_requests",
        (
            "id_hash", "client_id", "params", "nonce_hash", "created_at", "expires_at", "member_id", "owner_key",
            "identified", "code_hash", "used_at",
        ),
    ),
    (
        "oauth_tokens",
        (
            "token_hash", "kind", "client_id", "grant_id", "member_id", "owner_key", "scopes", "resource",
            "created_at", "expires_at", "revoked_at",
        ),
    ),
)  # fmt: skip
_BATCH = 1000


class Copying(SqlBase):
    """Reading every row out, and writing rows into an empty database of the same schema."""

    def copied_tables(self) -> tuple[tuple[str, tuple[str, ...]], ...]:
        return TABLES

    def holds_data(self) -> list[str]:
        """The tables that hold any row (an empty database holds none)."""
        return [table for table, _ in TABLES if self.conn.execute(f"SELECT 1 FROM {table} LIMIT 1").fetchone()]

    def row_counts(self) -> dict[str, int]:
        return {table: int(self.conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0]) for table, _ in TABLES}

    def rows_of(self, table: str, columns: Sequence[str]) -> Iterator[list[tuple[Any, ...]]]:
        """The table's rows in batches, in the order of its key."""
        order = "id" if "id" in columns else ", ".join(columns[:2])
        cursor = self.conn.execute(f"SELECT {', '.join(columns)} FROM {table} ORDER BY {order}")
        while batch := [tuple(row) for row in _take(cursor, _BATCH)]:
            yield batch

    def put_rows(self, table: str, columns: Sequence[str], rows: Sequence[tuple[Any, ...]]) -> int:
        """Insert these rows as they are (ids included), in the caller's transaction; returns how many."""
        if table == "entities":
            at = columns.index("metadata")
            rows = [(*row[:at], _json_object(row[at]), *row[at + 1 :]) for row in rows]
        marks = ", ".join("?" * len(columns))
        self.conn.executemany(f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({marks})", rows)
        return len(rows)

    def after_copy(self) -> None:
        """What the engine keeps beside the rows, made from them: the keyword index, and the next ids."""
        raise NotImplementedError


def _take(cursor: Any, size: int) -> Iterator[Any]:
    for _ in range(size):
        row = cursor.fetchone()
        if row is None:
            return
        yield row


def _json_object(text: Any) -> str:
    """Metadata as the target stores it: a file another program wrote may hold text that is not a JSON object,
    which every reader already reads as {} (and PostgreSQL refuses)."""
    try:
        value = json.loads(text) if isinstance(text, str) else None
    except ValueError:
        value = None
    return text if isinstance(value, dict) else "{}"
