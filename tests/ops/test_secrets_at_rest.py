"""A credential pasted into a memory is redacted before it reaches the database file or the keyword index."""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from memesh.core.clean import REDACTED
from memesh.store.sqlite import SqliteStore

if TYPE_CHECKING:
    from tests.conftest import Caller

# Each shape the spec names, with a distinctive body so its bytes can be searched for in the file.
SECRETS = {
    "sk": "sk-proj-Q7rT9wX2zV4bN6mK8pL0",
    "ghp": "ghp_Q7rT9wX2zV4bN6mK8pL0aS3dF5gH7jK9lZ1x",
    "gho": "gho_W3eR5tY7uI9oP1aS3dF5gH7jK9lZ1xC3vB5n",
    "github_pat": "github_pat_11AQ7rT9wX2zV4bN6mK8pL0_aS3dF5gH7jK9lZ1x",
    "aws": "AKIAQ7RT9WX2ZV4BN6MK",
    "slack": "xoxb-7781234567-Q7rT9wX2zV4bN6",
    "google": "AIzaSyQ7rT9wX2zV4bN6mK8pL0aS3dF5gH7jK9",
    "jwt": "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJRN3JUOXdYMnpWNGJONm1LOHBMMCJ9.Q7rT9wX2zV4bN6mK8pL0aS3dF5gH7",
    "bearer": "Bearer Q7rT9wX2zV4bN6mK8pL0aS3dF5",
    "pem": (
        "-----BEGIN OPENSSH PRIVATE KEY-----\n"
        "b3BlbnNzaC1rZXktdjEQ7rT9wX2zV4bN6mK8pL0\n"
        "-----END OPENSSH PRIVATE KEY-----"
    ),
    "password": "password=Q7rT9wX2zV4bN6mK8",
    "token": "token=Q7rT9wX2zV4bN6mK8pL0",
}

# The part of every secret above that no cleaned text could contain by accident.
MARKER = b"Q7rT9wX2zV4bN6"


def _files(db_path: Path) -> bytes:
    return b"".join(p.read_bytes() for p in sorted(db_path.parent.iterdir()) if p.name.startswith(db_path.name))


def _body(secret: str) -> str:
    pieces: list[str] = re.findall(r"[A-Za-z0-9]{8,}", secret)
    return max(pieces, key=len)


@pytest.mark.parametrize("kind", sorted(SECRETS))
def test_a_secret_in_an_observation_or_title_is_stored_redacted(
    kind: str, tools: Caller, fresh_db: SqliteStore
) -> None:
    secret = SECRETS[kind]
    out = tools.ok(
        "remember",
        {
            "name": f"leak-{kind}",
            "type": "fact",
            "title": f"creds {secret}"[:200],
            "observations": [f"the key is {secret} keep it safe"],
        },
    )
    assert secret not in out["title"]
    assert REDACTED in out["title"]
    entity = fresh_db.find(f"leak-{kind}")
    assert entity is not None
    assert entity.observations == [f"the key is {REDACTED} keep it safe"]
    assert entity.title == out["title"]


@pytest.mark.parametrize("kind", sorted(SECRETS))
def test_a_secret_in_a_note_is_stored_redacted(kind: str, tools: Caller, fresh_db: SqliteStore) -> None:
    secret = SECRETS[kind]
    out = tools.ok("remember", {"note": f"Rotated {secret}\n\nold value was {secret} in prod"})
    entity = fresh_db.find(out["name"])
    assert entity is not None
    assert all(secret not in text for text in [entity.title or "", *entity.observations])
    assert REDACTED in (entity.title or "")
    assert out["derived"]["observations"] == entity.observations


@pytest.mark.sqlite_only
def test_no_secret_reaches_the_database_files_or_the_keyword_index(
    tools: Caller, fresh_db: SqliteStore, tmp_path: Path
) -> None:
    for kind, secret in SECRETS.items():
        tools.ok(
            "remember",
            {"name": f"leak-{kind}", "type": "fact", "title": f"t {secret}"[:200], "observations": [f"v {secret}"]},
        )
        tools.ok("remember", {"note": f"note {secret}\n\nbody {secret}"})
    tools.ok("remember", {"name": "leak-sk", "replace": True, "observations": [SECRETS["ghp"]]})
    db_path = tmp_path / "memesh" / "knowledge-graph.db"
    raw = _files(db_path)
    assert MARKER not in raw
    fresh_db.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    assert MARKER not in _files(db_path)
    vocabulary = [row[0] for row in fresh_db.conn.execute("SELECT term FROM entities_fts_vocab")]
    assert not [term for term in vocabulary if MARKER.decode().lower()[:8] in term]
    indexed = fresh_db.conn.execute("SELECT group_concat(title || ' ' || observations, ' ') FROM entities_fts")
    assert MARKER.decode() not in indexed.fetchone()[0]
    for secret in SECRETS.values():
        assert tools.ok("recall", {"query": _body(secret)})["entities"] == []


@pytest.mark.sqlite_only
def test_no_secret_from_any_write_path_reaches_the_database_files(
    tools: Caller, fresh_db: SqliteStore, tmp_path: Path
) -> None:
    """learn, task_state, tags and an imported bundle (its nested metadata too) are cleaned like observations."""
    from memesh.ops.import_bundle import import_bundle

    for kind, secret in SECRETS.items():
        tools.ok("learn", {"error": f"auth failed with {secret}", "fix": f"rotated {secret}", "project": "p"})
        tools.ok("remember", {"name": f"tagged-{kind}", "type": "fact", "observations": ["x"], "tags": [secret]})
    tools.ok("task_state", {"project": "p", **dict.fromkeys(["goal", "next", "blocked", "done"], SECRETS["token"])})
    bundle = {
        "entities": [
            {
                "name": "imported",
                "type": "fact",
                "observations": [SECRETS["ghp"]],
                "tags": [SECRETS["aws"]],
                "metadata": {"source": {"url": SECRETS["bearer"], "notes": [SECRETS["password"]]}},
            }
        ]
    }
    request = {"data": bundle, "merge_strategy": "skip"}
    imported = import_bundle(fresh_db, request, ctx=tools.ctx, keep_metadata=True).unwrap()  # type: ignore[arg-type]
    assert imported["imported"] == 1
    db_path = tmp_path / "memesh" / "knowledge-graph.db"
    fresh_db.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    assert MARKER not in _files(db_path)


def test_a_name_holding_a_credential_is_refused_not_stored(tools: Caller, fresh_db: SqliteStore) -> None:
    error = tools.fails("remember", {"name": f"deploy-{SECRETS['ghp']}", "type": "fact", "observations": ["x"]})
    assert error.code == "validation.bad-body"
    assert error.message.startswith("name: holds something shaped like a credential")
    assert SECRETS["ghp"] not in error.message
    assert fresh_db.count() == 0


def test_types_and_relation_types_are_redacted_like_text(tools: Caller, fresh_db: SqliteStore) -> None:
    tools.ok("remember", {"name": "target", "type": "fact", "observations": ["t"]})
    relation = {"to": "target", "type": f"uses {SECRETS['aws']}"}
    out = tools.ok("remember", {"name": "m", "type": SECRETS["ghp"], "observations": ["x"], "relations": [relation]})
    assert out["type"] == REDACTED
    entity = fresh_db.find("m")
    assert entity is not None
    assert [r.type for r in entity.relations] == [f"uses {REDACTED}"]
