"""Numbered schema migrations, applied in order and recorded in the database's `schema_migrations` table.

A migration is never edited once released: a change to the schema is a new entry at the end.
"""

from __future__ import annotations

from typing import Final

# The keyword index keeps its own copy of the indexed text (rowid = entity id), so a row can always be deleted and
# rebuilt without reproducing what was indexed; CJK runs are stored as bigrams. Words are stored as their Porter
# stems (`porter` wraps unicode61), so "camping" finds "camped" and "support" finds "supporting"; FTS5 stems the
# terms of a MATCH the same way, and the noise guard looks its terms up by stem (memesh.core.porter). The stemmer
# only rewrites ASCII suffixes, so CJK bigrams pass through it unchanged. `memesh reindex --fts` drops and
# recreates exactly these two tables, the current design.
_FTS_TABLES_V2: Final = (
    "CREATE VIRTUAL TABLE entities_fts USING fts5("
    "name, title, observations, tokenize = 'porter unicode61 remove_diacritics 2')",
    "CREATE VIRTUAL TABLE entities_fts_vocab USING fts5vocab(entities_fts, 'row')",
)
FTS_TABLES: Final = _FTS_TABLES_V2
FTS_DROP: Final = ("DROP TABLE IF EXISTS entities_fts_vocab", "DROP TABLE IF EXISTS entities_fts")

# The index as migration 1 created it (a released migration is never edited, so each keeps its own copy).
_FTS_TABLES_V1: Final = (
    "CREATE VIRTUAL TABLE entities_fts USING fts5("
    "name, title, observations, tokenize = 'unicode61 remove_diacritics 2')",
    "CREATE VIRTUAL TABLE entities_fts_vocab USING fts5vocab(entities_fts, 'row')",
)

# Migrations after whose SQL the store refills the keyword index from the stored memories (the index text is built
# in Python: CJK segmentation), in the same transaction.
REFILLS_INDEX: Final = frozenset({2})

MIGRATIONS: Final[tuple[tuple[int, str, str], ...]] = (
    (
        1,
        "entities, observations, tags, relations and the keyword index",
        """
        CREATE TABLE entities (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            name TEXT NOT NULL UNIQUE,
            type TEXT NOT NULL,
            title TEXT,
            namespace TEXT NOT NULL DEFAULT 'personal',
            status TEXT NOT NULL DEFAULT 'active',
            created_at TEXT NOT NULL DEFAULT (datetime('now')),
            metadata TEXT NOT NULL DEFAULT '{}',
            access_count INTEGER NOT NULL DEFAULT 0,
            last_accessed_at TEXT,
            confidence REAL NOT NULL DEFAULT 1.0,
            recall_hits INTEGER NOT NULL DEFAULT 0,
            recall_misses INTEGER NOT NULL DEFAULT 0
        );
        CREATE INDEX idx_entities_status ON entities(status);
        CREATE INDEX idx_entities_namespace ON entities(namespace);
        CREATE INDEX idx_entities_type ON entities(type, id);

        CREATE TABLE observations (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            entity_id INTEGER NOT NULL REFERENCES entities(id) ON DELETE CASCADE,
            content TEXT NOT NULL,
            created_at TEXT NOT NULL DEFAULT (datetime('now'))
        );
        CREATE INDEX idx_observations_entity ON observations(entity_id, id);

        CREATE TABLE tags (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            entity_id INTEGER NOT NULL REFERENCES entities(id) ON DELETE CASCADE,
            tag TEXT NOT NULL,
            UNIQUE (entity_id, tag)
        );
        CREATE INDEX idx_tags_tag ON tags(tag, entity_id);

        CREATE TABLE relations (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            from_entity_id INTEGER NOT NULL REFERENCES entities(id) ON DELETE CASCADE,
            to_entity_id INTEGER NOT NULL REFERENCES entities(id) ON DELETE CASCADE,
            relation_type TEXT NOT NULL,
            metadata TEXT,
            created_at TEXT NOT NULL DEFAULT (datetime('now')),
            UNIQUE (from_entity_id, to_entity_id, relation_type)
        );
        CREATE INDEX idx_relations_to ON relations(to_entity_id);

        {fts}

        -- Row counts kept by triggers, so the noise guard does not count the table on every recall.
        CREATE TABLE counters (name TEXT PRIMARY KEY, value INTEGER NOT NULL);
        INSERT INTO counters (name, value) VALUES ('entities', 0);
        CREATE TRIGGER entities_count_insert AFTER INSERT ON entities
            BEGIN UPDATE counters SET value = value + 1 WHERE name = 'entities'; END;
        CREATE TRIGGER entities_count_delete AFTER DELETE ON entities
            BEGIN UPDATE counters SET value = value - 1 WHERE name = 'entities'; END;

        CREATE TABLE memesh_metadata (key TEXT PRIMARY KEY, value TEXT NOT NULL);
        """.replace("{fts}", ";\n        ".join(_FTS_TABLES_V1) + ";"),
    ),
    (
        2,
        "keyword index stores Porter stems",
        ";\n".join((*FTS_DROP, *_FTS_TABLES_V2)) + ";",
    ),
    (
        3,
        "memories that reached each agent session, for citation credit",
        """
        -- What SessionStart injected and what recall returned in one agent session (Claude Code's session id or
        -- Codex's thread id): a [mem:id] citation in that session credits the memory once, as a recall hit.
        CREATE TABLE session_memories (
            session_id TEXT NOT NULL,
            entity_id INTEGER NOT NULL REFERENCES entities(id) ON DELETE CASCADE,
            source TEXT NOT NULL,
            at TEXT NOT NULL,
            credited INTEGER NOT NULL DEFAULT 0,
            PRIMARY KEY (session_id, entity_id)
        );
        CREATE INDEX idx_session_memories_entity ON session_memories(entity_id);
        """,
    ),
)
