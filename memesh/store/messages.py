"""The store's agent messages: messages, deliveries, events, cursors, receipts and the router's registrations.

Callers hold a transaction for writes (`store.transaction()`); a send writes its message, delivery and event in the
caller's one transaction, so a process killed mid-send leaves all three or none.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from memesh.store.sql import SqlBase

if TYPE_CHECKING:  # the models are imported by the functions that make them: a recall loads none of them
    from memesh.core.messages_model import NewMessage, NewReceipt, Receipt, SessionCard, StoredMessage

_MESSAGE_COLUMNS = (
    "e.id, m.message_id, d.delivery_id, d.project, d.recipient, d.target_kind, d.intended_session, m.sender, "
    "m.sender_host, m.content_type, m.privacy, m.correlation_id, m.reply_to, m.payload, m.payload_bytes, "
    "m.request_digest, m.created_at"
)
_MESSAGE_FROM = (
    "FROM agent_messages m JOIN agent_deliveries d ON d.message_id = m.message_id "
    "JOIN agent_message_events e ON e.delivery_id = d.delivery_id"
)
_RECEIPT_COLUMNS = (
    "id, delivery_id, message_id, kind, state, detail, fact_source, actor, session_id, source_host, "
    "request_digest, created_at"
)
_SESSION_COLUMNS = (
    "session_id, principal_id, host_kind, project, work_summary, generation, lease_expires_at_ms, "
    "disconnected_at IS NOT NULL"
)
# Receipt kinds that are the recipient's or the workflow's (the rest are the router's and host's facts).
TERMINAL_DISPOSITIONS = ("completed", "cancelled", "rejected")


def _message(row: tuple[Any, ...]) -> StoredMessage:
    from memesh.core.messages_model import StoredMessage

    return StoredMessage(*row)


def _receipt(row: tuple[Any, ...]) -> Receipt:
    from memesh.core.messages_model import Receipt

    return Receipt(*row)


def _session(row: tuple[Any, ...]) -> SessionCard:
    from memesh.core.messages_model import SessionCard

    return SessionCard(
        session_id=row[0],
        principal_id=row[1],
        host_kind=row[2],
        project=row[3],
        work_summary=row[4],
        generation=int(row[5]),
        lease_expires_at_ms=int(row[6]),
        disconnected=bool(row[7]),
    )


class Messages(SqlBase):
    """Agent messages in the same database as the memories, so one backup and one transaction cover both."""

    # --- sends -------------------------------------------------------------------------------------------------

    def sent_with_key(self, project: str, sender: str, key: str) -> StoredMessage | None:
        """The message an earlier send with this idempotency key stored, if any."""
        row = self.conn.execute(
            f"SELECT {_MESSAGE_COLUMNS} {_MESSAGE_FROM} WHERE m.project = ? AND m.sender = ? AND m.idempotency_key = ?",
            (project, sender, key),
        ).fetchone()
        return _message(row) if row else None

    def payload_bytes_stored(self) -> int:
        """The logical payload bytes still stored (what the owner's quota counts)."""
        return self._counter("agent_message_payload_bytes")

    def insert_message(self, new: NewMessage) -> StoredMessage:
        """Store one message, its one delivery and its one notification event (the caller's transaction)."""
        self.conn.execute(
            "INSERT INTO agent_messages (message_id, project, sender, sender_host, content_type, privacy, "
            "correlation_id, reply_to, payload, payload_bytes, idempotency_key, request_digest, created_at, author) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                new.message_id,
                new.project,
                new.sender,
                new.sender_host,
                new.content_type,
                new.privacy,
                new.correlation_id,
                new.reply_to,
                new.payload,
                new.payload_bytes,
                new.idempotency_key,
                new.request_digest,
                new.created_at,
                new.author,
            ),
        )
        self.conn.execute(
            "INSERT INTO agent_deliveries (delivery_id, message_id, project, recipient, target_kind, "
            "intended_session, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
            (
                new.delivery_id,
                new.message_id,
                new.project,
                new.recipient,
                new.target_kind,
                new.intended_session,
                new.created_at,
            ),
        )
        self.conn.execute(
            "INSERT INTO agent_message_events (project, recipient, target_kind, message_id, delivery_id, created_at) "
            "VALUES (?, ?, ?, ?, ?, ?)",
            (new.project, new.recipient, new.target_kind, new.message_id, new.delivery_id, new.created_at),
        )
        stored = self.delivered(new.project, new.recipient, new.message_id)
        assert stored is not None
        return stored

    # --- reads of one inbox ------------------------------------------------------------------------------------

    def delivered(self, project: str, recipient: str, message_id: str) -> StoredMessage | None:
        """The message if it was delivered to exactly this recipient in exactly this project, else None."""
        row = self.conn.execute(
            f"SELECT {_MESSAGE_COLUMNS} {_MESSAGE_FROM} WHERE m.message_id = ? AND d.project = ? AND d.recipient = ?",
            (message_id, project, recipient),
        ).fetchone()
        return _message(row) if row else None

    def events_after(
        self, project: str, recipient: str, target_kind: str, position: int, limit: int
    ) -> list[StoredMessage]:
        """Up to `limit` events of one exact inbox after `position`, oldest first."""
        rows = self.conn.execute(
            f"SELECT {_MESSAGE_COLUMNS} {_MESSAGE_FROM} "
            "WHERE e.project = ? AND e.recipient = ? AND e.target_kind = ? AND e.id > ? ORDER BY e.id LIMIT ?",
            (project, recipient, target_kind, position, limit),
        ).fetchall()
        return [_message(row) for row in rows]

    def message_high_water(self) -> int:
        """The newest event id (0 with none): a waiting poll looks again only when this grows."""
        row = self.conn.execute("SELECT COALESCE(MAX(id), 0) FROM agent_message_events").fetchone()
        return int(row[0])

    def cursor_scope(self, token: str) -> tuple[str, str, str, int] | None:
        """(project, recipient, target_kind, position) an opaque cursor stands for; None for an unknown one."""
        row = self.conn.execute(
            "SELECT project, recipient, target_kind, position FROM agent_message_cursors WHERE token = ?", (token,)
        ).fetchone()
        return (row[0], row[1], row[2], int(row[3])) if row else None

    def cursor_for(
        self, project: str, recipient: str, target_kind: str, position: int, *, token: str, created_at: str
    ) -> str:
        """The opaque cursor for one position of one inbox: `token` when this call made it, else the earlier one."""
        self.conn.execute(
            "INSERT INTO agent_message_cursors (token, project, recipient, target_kind, position, "
            "created_at) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
            (token, project, recipient, target_kind, position, created_at),
        )
        row = self.conn.execute(
            "SELECT token FROM agent_message_cursors WHERE project = ? AND recipient = ? AND target_kind = ? "
            "AND position = ?",
            (project, recipient, target_kind, position),
        ).fetchone()
        return str(row[0])

    def unread_deliveries(
        self, recipient: str, project: str, *, session: str | None = None, now_ms: int | None = None
    ) -> int:
        """Deliveries waiting for `recipient` in `project` with no intake recorded yet (`_WAITING`).

        Counts those addressed to the principal, and exact-session deliveries to a session registered under that
        principal and live right now (connected, lease unexpired) — only to `session` itself when the caller is
        one. A delivery meant for one session (`intended_session`) counts only for that `session`. For the
        briefing's recipient notice and the hooks' reminders.
        """
        now = _now_ms() if now_ms is None else now_ms
        row = self.conn.execute(
            f"SELECT COUNT(*) FROM agent_deliveries d WHERE {_WAITING}",
            (project, recipient, recipient, now, *[session] * 3),
        ).fetchone()
        return int(row[0])

    def waiting_messages(
        self, recipient: str, project: str, *, session: str | None, limit: int, now_ms: int | None = None
    ) -> list[tuple[str, str]]:
        """(message_id, sender) of the oldest `limit` deliveries `unread_deliveries` counts, oldest first."""
        now = _now_ms() if now_ms is None else now_ms
        rows = self.conn.execute(
            "SELECT d.message_id, m.sender FROM agent_deliveries d "
            f"JOIN agent_messages m ON m.message_id = d.message_id WHERE {_WAITING} ORDER BY d.id LIMIT ?",
            (project, recipient, recipient, now, *[session] * 3, limit),
        ).fetchall()
        return [(str(row[0]), str(row[1])) for row in rows]

    def gate_blocked_before(self, session_id: str, message_ids: list[str]) -> set[str]:
        """Which of these message ids the Stop gate already blocked a turn for in this session."""
        if not message_ids:
            return set()
        marks = ",".join("?" * len(message_ids))
        rows = self.conn.execute(
            f"SELECT message_id FROM agent_stop_gate WHERE session_id = ? AND message_id IN ({marks})",
            (session_id, *message_ids),
        ).fetchall()
        return {str(row[0]) for row in rows}

    def record_gate_blocks(self, session_id: str, message_ids: list[str], when: str) -> None:
        """Remember that the Stop gate blocked a turn of this session for these ids (the caller's transaction)."""
        self.conn.executemany(
            "INSERT INTO agent_stop_gate (session_id, message_id, blocked_at) VALUES (?, ?, ?) ON CONFLICT DO NOTHING",
            [(session_id, message_id, when) for message_id in message_ids],
        )

    def recipient_seen(self, recipient: str, project: str) -> bool:
        """Whether this exact id was ever addressed in the project, or ever connected there as a session/principal."""
        row = self.conn.execute(
            "SELECT EXISTS (SELECT 1 FROM agent_deliveries WHERE project = ? AND recipient = ?) "
            "OR EXISTS (SELECT 1 FROM agent_sessions WHERE project = ? AND (principal_id = ? OR session_id = ?))",
            (project, recipient, project, recipient, recipient),
        ).fetchone()
        return bool(row[0])

    # --- receipts ----------------------------------------------------------------------------------------------

    def receipt_with_key(self, delivery_id: str, kind: str, key: str) -> Receipt | None:
        row = self.conn.execute(
            f"SELECT {_RECEIPT_COLUMNS} FROM agent_receipts WHERE delivery_id = ? AND kind = ? AND idempotency_key = ?",
            (delivery_id, kind, key),
        ).fetchone()
        return _receipt(row) if row else None

    def add_receipt(self, new: NewReceipt) -> Receipt:
        receipt_id = self._insert_id(
            "INSERT INTO agent_receipts (delivery_id, message_id, kind, state, detail, fact_source, actor, "
            "session_id, source_host, idempotency_key, request_digest, created_at) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                new.delivery_id,
                new.message_id,
                new.kind,
                new.state,
                new.detail,
                new.fact_source,
                new.actor,
                new.session_id,
                new.source_host,
                new.idempotency_key,
                new.request_digest,
                new.created_at,
            ),
        )
        row = self.conn.execute(f"SELECT {_RECEIPT_COLUMNS} FROM agent_receipts WHERE id = ?", (receipt_id,))
        return _receipt(row.fetchone())

    def receipts_of(self, delivery_id: str) -> list[Receipt]:
        rows = self.conn.execute(
            f"SELECT {_RECEIPT_COLUMNS} FROM agent_receipts WHERE delivery_id = ? ORDER BY id", (delivery_id,)
        ).fetchall()
        return [_receipt(row) for row in rows]

    # --- the router's registrations ----------------------------------------------------------------------------

    def register_session(
        self,
        *,
        session_id: str,
        principal_id: str,
        host_kind: str,
        project: str,
        work_summary: str | None,
        lease_expires_at_ms: int,
        connected_at: str,
    ) -> int:
        """Record a (re)connected session; returns its new generation. Earlier generations are ended."""
        row = self.conn.execute(
            "SELECT COALESCE(MAX(generation), 0) FROM agent_sessions WHERE session_id = ?", (session_id,)
        ).fetchone()
        generation = int(row[0]) + 1
        self.conn.execute(
            "UPDATE agent_sessions SET disconnected_at = ? WHERE session_id = ? AND disconnected_at IS NULL",
            (connected_at, session_id),
        )
        self.conn.execute(
            "INSERT INTO agent_sessions (session_id, generation, principal_id, host_kind, project, work_summary, "
            "connected_at, lease_expires_at_ms) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (session_id, generation, principal_id, host_kind, project, work_summary, connected_at, lease_expires_at_ms),
        )
        return generation

    def renew_session(self, session_id: str, generation: int, lease_expires_at_ms: int) -> None:
        self.conn.execute(
            "UPDATE agent_sessions SET lease_expires_at_ms = ? WHERE session_id = ? AND generation = ? "
            "AND disconnected_at IS NULL",
            (lease_expires_at_ms, session_id, generation),
        )

    def end_session(self, session_id: str, generation: int, when: str) -> None:
        self.conn.execute(
            "UPDATE agent_sessions SET disconnected_at = ? WHERE session_id = ? AND generation = ? "
            "AND disconnected_at IS NULL",
            (when, session_id, generation),
        )

    def end_all_sessions(self, when: str) -> None:
        """A router starting up: no connection from before it is live any more."""
        self.conn.execute("UPDATE agent_sessions SET disconnected_at = ? WHERE disconnected_at IS NULL", (when,))

    def latest_session(self, session_id: str) -> SessionCard | None:
        """The newest registration of this session id, live or not; None if the router never registered it."""
        row = self.conn.execute(
            f"SELECT {_SESSION_COLUMNS} FROM agent_sessions WHERE session_id = ? ORDER BY generation DESC LIMIT 1",
            (session_id,),
        ).fetchone()
        return _session(row) if row else None

    def live_sessions(self, project: str, now_ms: int, limit: int) -> list[SessionCard]:
        rows = self.conn.execute(
            f"SELECT {_SESSION_COLUMNS} FROM agent_sessions WHERE project = ? AND disconnected_at IS NULL "
            "AND lease_expires_at_ms > ? ORDER BY connected_at, session_id LIMIT ?",
            (project, now_ms, limit),
        ).fetchall()
        return [_session(row) for row in rows]

    def session_registered_in(self, session_id: str, project: str) -> bool:
        row = self.conn.execute(
            "SELECT EXISTS (SELECT 1 FROM agent_sessions WHERE session_id = ? AND project = ?)", (session_id, project)
        ).fetchone()
        return bool(row[0])

    # --- project rename (memesh kg rename-project) --------------------------------------------------------------

    def rename_message_project(self, old: str, new: str) -> dict[str, int]:
        """Move every message row scoped to `old` into `new` (the caller's transaction).

        A message whose idempotency scope (new project, sender, key) is already taken there is left in place, with
        its delivery, events and receipts, and counted: never deleted. Returns what moved and what was left.
        """
        taken = self.conn.execute(
            "SELECT m.message_id FROM agent_messages m WHERE m.project = ? AND EXISTS (SELECT 1 FROM agent_messages o "
            "WHERE o.project = ? AND o.sender = m.sender AND o.idempotency_key = m.idempotency_key)",
            (old, new),
        ).fetchall()
        left = [str(row[0]) for row in taken]
        skip = f"AND message_id NOT IN ({','.join('?' * len(left))})" if left else ""
        moved = {}
        for table in ("agent_messages", "agent_deliveries", "agent_message_events"):
            cursor = self.conn.execute(f"UPDATE {table} SET project = ? WHERE project = ? {skip}", (new, old, *left))
            moved[table] = cursor.rowcount
        # Cursors are positions in an inbox: an old project's cursor keeps its position under the new name, unless
        # the same inbox there already has one for that position.
        self.conn.execute(
            "UPDATE agent_message_cursors SET project = ? WHERE project = ? AND NOT EXISTS (SELECT 1 FROM "
            "agent_message_cursors o WHERE o.project = ? AND o.recipient = agent_message_cursors.recipient "
            "AND o.target_kind = agent_message_cursors.target_kind AND o.position = agent_message_cursors.position)",
            (new, old, new),
        )
        self.conn.execute("UPDATE agent_sessions SET project = ? WHERE project = ?", (new, old))
        return {"messages_moved": moved["agent_messages"], "messages_left_in_place": len(left)}

    # --- storage accounting and retention ----------------------------------------------------------------------

    def message_storage_report(self, cutoff: str) -> dict[str, Any]:
        """Logical payload, protected and prunable rows, audit counts, reusable pages and file sizes."""
        one = self.conn.execute
        payload = one(
            "SELECT COUNT(*), COALESCE(SUM(payload_bytes), 0) FROM agent_messages WHERE payload IS NOT NULL"
        ).fetchone()
        pruned = one("SELECT COUNT(*) FROM agent_messages WHERE payload IS NULL").fetchone()
        prunable = one(
            f"SELECT COUNT(*), COALESCE(SUM(m.payload_bytes), 0) FROM agent_messages m WHERE {_PRUNABLE}",
            (cutoff,),
        ).fetchone()
        counts = {
            table: int(one(f"SELECT COUNT(*) FROM {table}").fetchone()[0])
            for table in ("agent_messages", "agent_deliveries", "agent_message_events", "agent_message_cursors")
        }
        receipts = dict(one("SELECT kind, COUNT(*) FROM agent_receipts GROUP BY kind").fetchall())
        live = self.dialect.count_if.format("disconnected_at IS NULL")
        sessions = one(f"SELECT COUNT(*), {live} FROM agent_sessions").fetchone()
        return {
            "cutoff": cutoff,
            "logical_payload": {"messages": int(payload[0]), "bytes": int(payload[1])},
            "pruned_payloads": int(pruned[0]),
            "protected_or_unresolved": int(payload[0]) - int(prunable[0]),
            "prunable_terminal": {"messages": int(prunable[0]), "bytes": int(prunable[1])},
            "audit": {
                "messages": counts["agent_messages"],
                "deliveries": counts["agent_deliveries"],
                "events": counts["agent_message_events"],
                "cursors": counts["agent_message_cursors"],
                "sessions": int(sessions[0]),
                "presence_live": int(sessions[1]),
                "dispatch": int(receipts.get("dispatch", 0)),
                "acceptance": int(receipts.get("host_accept", 0)) + int(receipts.get("host_reject", 0)),
                "receipts": {str(kind): int(n) for kind, n in sorted(receipts.items())},
            },
            "sqlite": self._storage_pages(),
        }

    def _storage_pages(self) -> dict[str, int]:
        """The database's page size, its reusable pages and bytes, and the size of its files (the report's `sqlite`)."""
        raise NotImplementedError

    def prunable_messages(self, cutoff: str, limit: int) -> list[str]:
        rows = self.conn.execute(
            f"SELECT m.message_id FROM agent_messages m WHERE {_PRUNABLE} ORDER BY m.id LIMIT ?", (cutoff, limit)
        ).fetchall()
        return [str(row[0]) for row in rows]

    def prune_payloads(self, message_ids: list[str], when: str) -> int:
        """Drop the payloads (never the rows or their receipts) of these messages; returns how many changed."""
        changed = 0
        for message_id in message_ids:
            cursor = self.conn.execute(
                "UPDATE agent_messages SET payload = NULL, pruned_at = ? WHERE message_id = ? AND payload IS NOT NULL",
                (when, message_id),
            )
            changed += cursor.rowcount
        return changed


# Deliveries waiting for a recipient (parameters: project, recipient, recipient, now_ms, session × 3): to the
# principal, or to a live session registered under it (that caller's own session when it is one); meant for no one
# session or for this caller's; no intake recorded yet.
_WAITING = (
    "d.project = ? AND ((d.target_kind = 'principal' AND d.recipient = ?) OR (d.target_kind = 'session' "
    "AND d.recipient IN (SELECT s.session_id FROM agent_sessions s WHERE s.project = d.project "
    "AND s.principal_id = ? AND s.disconnected_at IS NULL AND s.lease_expires_at_ms > ?) "
    "AND (CAST(? AS TEXT) IS NULL OR d.recipient = ?))) "
    "AND (d.intended_session IS NULL OR d.intended_session = ?) "
    "AND NOT EXISTS (SELECT 1 FROM agent_receipts r WHERE r.delivery_id = d.delivery_id AND r.kind = 'intake')"
)

# A payload may go only when its every delivery has an explicit ACK and a terminal disposition older than the cutoff.
_PRUNABLE = (
    "m.payload IS NOT NULL AND NOT EXISTS (SELECT 1 FROM agent_deliveries d WHERE d.message_id = m.message_id AND ("
    "NOT EXISTS (SELECT 1 FROM agent_receipts a WHERE a.delivery_id = d.delivery_id AND a.kind = 'ack') OR "
    "NOT EXISTS (SELECT 1 FROM agent_receipts t WHERE t.delivery_id = d.delivery_id AND t.kind = 'disposition' "
    f"AND t.state IN {TERMINAL_DISPOSITIONS!r} AND t.created_at < ?)))"
)


def _now_ms() -> int:
    import time

    return int(time.time() * 1000)
