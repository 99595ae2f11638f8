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
FTS_TOKENIZE: Final = "porter unicode61 remove_diacritics 2"  # also what the PostgreSQL store's postings hold
_FTS_TABLES_V2: Final = (
    f"CREATE VIRTUAL TABLE entities_fts USING fts5(name, title, observations, tokenize = '{FTS_TOKENIZE}')",
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
    (
        4,
        "dream proposals: curation staged by agents, waiting for a human to accept or reject",
        # `source_ids` is a JSON id array for entity clusters and improvements, and the retained evidence object
        # for a transcript. `package_id` is unique: two agents submitting for one work package stage one row.
        # `fingerprints` records each source's content when staged, so accept can tell a source that changed.
        """
        CREATE TABLE dream_proposals (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            project TEXT NOT NULL,
            cluster_key TEXT NOT NULL,
            kind TEXT NOT NULL,
            source_kind TEXT NOT NULL,
            source_ids TEXT NOT NULL,
            proposed_digest TEXT NOT NULL,
            package_id TEXT,
            fingerprints TEXT NOT NULL DEFAULT '{}',
            status TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'applied', 'rejected')),
            reason TEXT,
            created_at TEXT NOT NULL DEFAULT (datetime('now')),
            reviewed_at TEXT,
            applied_entity TEXT
        );
        CREATE UNIQUE INDEX idx_dream_proposals_package ON dream_proposals(package_id) WHERE package_id IS NOT NULL;
        CREATE INDEX idx_dream_proposals_status ON dream_proposals(status, id);
        CREATE INDEX idx_dream_proposals_cluster ON dream_proposals(project, cluster_key);
        """,
    ),
    (
        5,
        "agent messages: messages, deliveries, events, cursors, receipts and session registrations",
        """
        -- One row per sent message. payload is the JSON-encoded body, NULL once retention pruned it
        -- (payload_bytes keeps its size for the audit). A send is idempotent on (project, sender, key).
        CREATE TABLE agent_messages (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            message_id TEXT NOT NULL UNIQUE,
            project TEXT NOT NULL,
            sender TEXT NOT NULL,
            sender_host TEXT NOT NULL,
            content_type TEXT NOT NULL,
            privacy TEXT NOT NULL,
            correlation_id TEXT,
            reply_to TEXT,
            payload TEXT,
            payload_bytes INTEGER NOT NULL,
            pruned_at TEXT,
            idempotency_key TEXT NOT NULL,
            request_digest TEXT NOT NULL,
            created_at TEXT NOT NULL,
            UNIQUE (project, sender, idempotency_key)
        );

        -- Exactly one delivery per message: the recipient and how it is addressed.
        CREATE TABLE agent_deliveries (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            delivery_id TEXT NOT NULL UNIQUE,
            message_id TEXT NOT NULL UNIQUE REFERENCES agent_messages(message_id),
            project TEXT NOT NULL,
            recipient TEXT NOT NULL,
            target_kind TEXT NOT NULL,
            intended_session TEXT,
            created_at TEXT NOT NULL
        );
        CREATE INDEX idx_agent_deliveries_inbox ON agent_deliveries(project, recipient, target_kind, id);

        -- The notification stream a poll reads; id is the position an opaque cursor stands for.
        CREATE TABLE agent_message_events (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            project TEXT NOT NULL,
            recipient TEXT NOT NULL,
            target_kind TEXT NOT NULL,
            message_id TEXT NOT NULL,
            delivery_id TEXT NOT NULL,
            created_at TEXT NOT NULL
        );
        CREATE INDEX idx_agent_events_inbox ON agent_message_events(project, recipient, target_kind, id);
        CREATE INDEX idx_agent_events_delivery ON agent_message_events(delivery_id);

        -- Opaque cursors: a random token standing for one position in one exact inbox.
        CREATE TABLE agent_message_cursors (
            token TEXT PRIMARY KEY,
            project TEXT NOT NULL,
            recipient TEXT NOT NULL,
            target_kind TEXT NOT NULL,
            position INTEGER NOT NULL,
            created_at TEXT NOT NULL,
            UNIQUE (project, recipient, target_kind, position)
        );

        -- Every fact about a delivery, in order: the recipient's receipts (intake, ack, disposition, activation)
        -- and the router's (dispatch, host_accept, host_reject). Receipts are idempotent on their key.
        CREATE TABLE agent_receipts (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            delivery_id TEXT NOT NULL,
            message_id TEXT NOT NULL,
            kind TEXT NOT NULL,
            state TEXT,
            detail TEXT,
            fact_source TEXT NOT NULL,
            actor TEXT,
            session_id TEXT,
            source_host TEXT,
            idempotency_key TEXT,
            request_digest TEXT,
            created_at TEXT NOT NULL
        );
        CREATE INDEX idx_agent_receipts_delivery ON agent_receipts(delivery_id, id);
        CREATE UNIQUE INDEX idx_agent_receipts_key ON agent_receipts(delivery_id, kind, idempotency_key)
            WHERE idempotency_key IS NOT NULL;

        -- Sessions the local router registered: presence (connected, lease, disconnected) and generation.
        CREATE TABLE agent_sessions (
            session_id TEXT NOT NULL,
            generation INTEGER NOT NULL,
            principal_id TEXT NOT NULL,
            host_kind TEXT NOT NULL,
            project TEXT NOT NULL,
            work_summary TEXT,
            connected_at TEXT NOT NULL,
            lease_expires_at_ms INTEGER NOT NULL,
            disconnected_at TEXT,
            PRIMARY KEY (session_id, generation)
        );
        CREATE INDEX idx_agent_sessions_project ON agent_sessions(project, principal_id);

        -- The logical payload bytes still stored, kept by triggers so a quota check does not sum the table.
        INSERT INTO counters (name, value) VALUES ('agent_message_payload_bytes', 0);
        CREATE TRIGGER agent_payload_count_insert AFTER INSERT ON agent_messages WHEN NEW.payload IS NOT NULL
            BEGIN UPDATE counters SET value = value + NEW.payload_bytes
                WHERE name = 'agent_message_payload_bytes'; END;
        CREATE TRIGGER agent_payload_count_prune AFTER UPDATE OF payload ON agent_messages
            WHEN OLD.payload IS NOT NULL AND NEW.payload IS NULL
            BEGIN UPDATE counters SET value = value - OLD.payload_bytes
                WHERE name = 'agent_message_payload_bytes'; END;
        """,
    ),
    (
        8,
        "names in NFC without control characters; tags, types and relation types cleaned as labels",
        # memesh_key / memesh_label are the cleaner's clean_key and clean_label, registered by the store for the
        # migrations. A name whose cleaned form another memory already has keeps its old spelling (OR IGNORE):
        # two memories are never merged behind the owner's back.
        """
        UPDATE OR IGNORE entities SET name = memesh_key(name)
            WHERE name != memesh_key(name) AND memesh_key(name) != '';
        UPDATE entities SET type = memesh_label(type) WHERE type != memesh_label(type) AND memesh_label(type) != '';
        UPDATE OR IGNORE tags SET tag = memesh_label(tag) WHERE tag != memesh_label(tag);
        UPDATE OR IGNORE relations SET relation_type = memesh_label(relation_type)
            WHERE relation_type != memesh_label(relation_type);
        """,
    ),
    (
        11,
        "the Claude Code Stop gate's memory: which waiting message ids it already blocked a turn for, per session",
        """
        CREATE TABLE agent_stop_gate (
            session_id TEXT NOT NULL,
            message_id TEXT NOT NULL,
            blocked_at TEXT NOT NULL,
            PRIMARY KEY (session_id, message_id)
        ) WITHOUT ROWID;
        """,
    ),
    (
        12,
        "embeddings of hybrid recall: one blob of vectors per memory, from the model named beside it",
        """
        -- One int8 vector per observation, in observation order (memesh.adapters.embedding). Written only while
        -- recall mode is hybrid; a memory without a row (or with another model's) is simply not scored by meaning.
        CREATE TABLE entity_vectors (
            entity_id INTEGER PRIMARY KEY REFERENCES entities(id) ON DELETE CASCADE,
            model TEXT NOT NULL,
            vectors BLOB NOT NULL
        );
        """,
    ),
    (
        13,
        "a memory that reached a session and was not cited there counts one recall miss",
        """
        -- Set when a Stop found the memory uncited (recall_misses + 1); a later citation in the same session turns
        -- that miss into the hit (recall_misses - 1, recall_hits + 1), so each session counts a memory once.
        ALTER TABLE session_memories ADD COLUMN missed INTEGER NOT NULL DEFAULT 0;
        """,
    ),
    (
        14,
        "the lesson guards' memory: which lessons already stopped a command, per session (each stops once)",
        """
        CREATE TABLE guard_stops (
            session_id TEXT NOT NULL,
            entity_id INTEGER NOT NULL REFERENCES entities(id) ON DELETE CASCADE,
            stopped_at TEXT NOT NULL,
            PRIMARY KEY (session_id, entity_id)
        ) WITHOUT ROWID;
        """,
    ),
    (
        15,
        "the keyword postings read from their index alone (a covering primary key)",
        """
        -- Nothing here: PostgreSQL's postings table gains a covering primary key in its migration 15; FTS5 keeps its
        -- own index. The number is taken so both engines count the same migrations (db copy needs one version).
        """,
    ),
    (
        16,
        "people: team members (their tokens as hashes), the audit of writes, and who wrote each row",
        """
        -- A member's token is shown once and kept only as its SHA-256 (tokens are 256 random bits: no salt needed).
        -- A revoked member keeps its row (the audit names it), so a name is unique among the unrevoked only.
        CREATE TABLE members (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            name TEXT NOT NULL,
            role TEXT NOT NULL,
            projects TEXT,
            token_hash TEXT NOT NULL UNIQUE,
            created_at TEXT NOT NULL,
            expires_at TEXT,
            revoked_at TEXT,
            last_used_at TEXT
        );
        CREATE UNIQUE INDEX idx_members_active_name ON members(name) WHERE revoked_at IS NULL;

        -- Append-only: who did what, when. The triggers refuse any change to a written row.
        CREATE TABLE audit_log (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            at TEXT NOT NULL,
            actor TEXT NOT NULL,
            action TEXT NOT NULL,
            target TEXT,
            detail TEXT NOT NULL DEFAULT '{}'
        );
        CREATE TRIGGER audit_log_no_update BEFORE UPDATE ON audit_log
        BEGIN SELECT RAISE(ABORT, 'audit_log is append-only'); END;
        CREATE TRIGGER audit_log_no_delete BEFORE DELETE ON audit_log
        BEGIN SELECT RAISE(ABORT, 'audit_log is append-only'); END;

        -- Who wrote each row: the member behind the token on memesh serve, else the local author setting. NULL for
        -- what was written before (an install's own memories).
        ALTER TABLE entities ADD COLUMN author TEXT;
        CREATE INDEX idx_entities_author ON entities(author, id);
        ALTER TABLE observations ADD COLUMN author TEXT;
        ALTER TABLE relations ADD COLUMN author TEXT;
        ALTER TABLE dream_proposals ADD COLUMN author TEXT;
        ALTER TABLE agent_messages ADD COLUMN author TEXT;
        """,
    ),
    (
        17,
        "OAuth 2.1 for /mcp: registered clients, authorization requests and their codes, tokens (as hashes)",
        """
        -- Every credential is kept only as its SHA-256 (each is 256 random bits): a client secret, the approval
        -- page's request handle and nonce, an authorization code, an access or refresh token. Times are Unix
        -- seconds. Docs: docs/adr/0013-oauth-for-remote-mcp.md.
        CREATE TABLE IF NOT EXISTS oauth_clients (
            client_id TEXT PRIMARY KEY,
            metadata TEXT NOT NULL,
            secret_hash TEXT,
            created_at INTEGER NOT NULL
        );
        -- One authorization request from /authorize to its code's exchange: pending, then identified (a member's
        -- token was entered on the approval page), then approved (a code was issued), then used.
        CREATE TABLE IF NOT EXISTS oauth_requests (
            id_hash TEXT PRIMARY KEY,
            client_id TEXT NOT NULL REFERENCES oauth_clients(client_id) ON DELETE CASCADE,
            params TEXT NOT NULL,
            nonce_hash TEXT,
            created_at INTEGER NOT NULL,
            expires_at INTEGER NOT NULL,
            member_id INTEGER REFERENCES members(id),
            owner_key TEXT,
            identified INTEGER NOT NULL DEFAULT 0,
            code_hash TEXT UNIQUE,
            used_at INTEGER
        );
        -- Access and refresh tokens of one approval (`grant_id`): a refresh rotates both, and a refresh token
        -- presented again after its rotation revokes the whole grant. `member_id` NULL: the owner approved, whose
        -- remote token's hash at the time is `owner_key` (rotating that token ends those grants).
        CREATE TABLE IF NOT EXISTS oauth_tokens (
            token_hash TEXT PRIMARY KEY,
            kind TEXT NOT NULL,
            client_id TEXT NOT NULL REFERENCES oauth_clients(client_id) ON DELETE CASCADE,
            grant_id TEXT NOT NULL,
            member_id INTEGER REFERENCES members(id),
            owner_key TEXT,
            scopes TEXT NOT NULL DEFAULT '',
            resource TEXT,
            created_at INTEGER NOT NULL,
            expires_at INTEGER NOT NULL,
            revoked_at INTEGER
        );
        CREATE INDEX IF NOT EXISTS idx_oauth_tokens_grant ON oauth_tokens(grant_id);
        CREATE INDEX IF NOT EXISTS idx_oauth_tokens_client ON oauth_tokens(client_id);
        CREATE INDEX IF NOT EXISTS idx_oauth_requests_client ON oauth_requests(client_id);
        """,
    ),
)
