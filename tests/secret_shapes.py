"""Every credential shape the cleaner must catch, the request bodies that carry them down each write path, and the
check that none of them reached the database file: shared by the MCP, HTTP and CLI tests.

Each shape carries its own marker (letters and digits no cleaned text holds by accident), so a leak is found by
searching the database's bytes for it, the WAL included, and every stored string is also checked to be what the
one cleaner would store for it.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

from memesh.core.clean import is_clean

_SHAPES = {
    # The shapes the hostile probe found unredacted.
    "url-userinfo": "https://deploy:{m}@example.com/repo.git",
    "redis-password-only": "redis://:{m}@cache.internal:6379/0",
    "database-url-slash-in-password": "postgres://app:{m}/x9@db.internal:5432/prod",
    "pgp-private-key": "-----BEGIN PGP PRIVATE KEY BLOCK-----\n\nlQOYBG{m}\n-----END PGP PRIVATE KEY BLOCK-----",
    "private-key-assignment": "private_key={m}",
    "credentials-assignment": "credentials={m}",
    "json-escaped-password": '{{\\"password\\":\\"{m}\\"}}',
    "zero-width-inside-key-word": "pass\u200bword={m}",
    "soft-hyphen-inside-api-key": "sk-\u00adproj-{m}",
    "zero-width-inside-github-token": "ghp_{m}\u200b{m}",
    # A few the cleaner always caught, as a baseline.
    "openai-key": "sk-proj-{m}",
    "password-assignment": "password={m}",
    "bearer": "Bearer {m}",
}


def _marker(index: int) -> str:
    return f"Qz7Kx{index:02d}Vb2Lp9Rt4W"


SHAPES: dict[str, tuple[str, str]] = {
    kind: (template.format(m=_marker(index)), _marker(index)) for index, (kind, template) in enumerate(_SHAPES.items())
}
MARKERS = [marker for _, marker in SHAPES.values()]


def remember_body(kind: str) -> dict[str, Any]:
    """A remember request with the shape in every free-text field it has (never the name, which is refused)."""
    secret, _ = SHAPES[kind]
    name = f"leak-{kind}"
    return {
        "name": name,
        "type": f"t {secret}"[:100],
        "title": f"title {secret}"[:200],
        "observations": [f"obs {secret}"],
        "tags": [f"tag:{secret}"[:255]],
        "relations": [{"to": name, "type": f"r {secret}"[:100]}],
    }


def bundle(*, keep_metadata: bool = False) -> dict[str, Any]:
    """An export bundle carrying every shape in each entity's fields, its relations and (for the CLI, which keeps
    them) its metadata, and in the envelope."""
    secrets = " ".join(secret for secret, _ in SHAPES.values())
    entities = []
    for kind, (secret, _) in SHAPES.items():
        entity: dict[str, Any] = {
            "name": f"imported-{kind}",
            "type": f"t {secret}"[:100],
            "title": f"title {secret}",
            "observations": [f"obs {secret}"],
            "tags": [f"tag:{secret}"[:255]],
            "relations": [{"to": f"imported-{kind}", "type": f"r {secret}"[:100]}],
        }
        if keep_metadata:
            entity["metadata"] = {
                "project": secret,
                "source": {"nested": [secret], secret[:40]: "as a key"},
                "replaced_history": [
                    {"replaced_at": secret, "title": secret, "observations": [secret], "tags": [secret[:255]]}
                ],
            }
        entities.append(entity)
    return {"version": f"3.1.0 {secrets}", "exported_at": secrets, "entity_count": len(entities), "entities": entities}


def learn_body(kind: str) -> dict[str, Any]:
    secret, _ = SHAPES[kind]
    return {
        "error": f"{kind} failed near {secret}",
        "fix": f"fix {secret}",
        "root_cause": f"cause {secret}",
        "prevention": f"prevent {secret}",
    }


def task_body(kind: str) -> dict[str, Any]:
    secret, _ = SHAPES[kind]
    return {"project": f"proj-{kind}", "goal": f"goal {secret}", "next": f"next {secret}", "blocked": secret}


def database_bytes(db_path: Path) -> bytes:
    """The database file and its WAL and shared-memory files, as they are on disk."""
    return b"".join(p.read_bytes() for p in sorted(db_path.parent.iterdir()) if p.name.startswith(db_path.name))


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return [s for item in value for s in _strings(item)]
    if isinstance(value, dict):
        return [s for k, v in value.items() for s in [k, *_strings(v)]]
    return []


def stored_strings(db_path: Path) -> list[str]:
    """Every text value in every table MeMesh keeps (JSON columns decoded), read as a plain SQLite client would."""
    conn = sqlite3.connect(db_path)
    try:
        tables = [
            row[0]
            for row in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
            if not row[0].startswith(("sqlite_", "entities_fts")) and row[0] != "schema_migrations"
        ]
        found: list[str] = []
        for table in tables:
            for row in conn.execute(f'SELECT * FROM "{table}"'):
                for value in row:
                    if not isinstance(value, str):
                        continue
                    try:
                        decoded = json.loads(value) if value[:1] in "{[" else value
                    except ValueError:
                        decoded = value
                    found += _strings(decoded)
        return found
    finally:
        conn.close()


def assert_nothing_leaked(db_path: Path) -> None:
    """No shape's marker anywhere in the database's bytes, and every stored string a fixed point of the cleaner."""
    raw = database_bytes(db_path)
    leaked = [kind for kind, (_, marker) in SHAPES.items() if marker.encode() in raw]
    assert leaked == [], f"unredacted in the database file: {leaked}"
    unclean = [text for text in stored_strings(db_path) if not is_clean(text)]
    assert unclean == [], unclean[:5]
