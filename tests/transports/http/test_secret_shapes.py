"""Every credential shape, through every HTTP write route, never reaches the database file."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from tests.backends import Backend
from tests.secret_shapes import (
    ORDINARY_TEXT,
    SHAPES,
    assert_nothing_leaked,
    bundle,
    format_batches,
    learn_body,
    remember_body,
    stored_verbatim_misses,
)

if TYPE_CHECKING:
    from tests.transports.http.conftest import Api


def test_no_shape_reaches_the_database_through_any_http_write_route(api: Api, db_file: Path, backend: Backend) -> None:
    for kind in SHAPES:
        api.ok("POST", "/v1/remember", json=remember_body(kind))
        api.ok("POST", "/v1/remember", json={"note": f"A note about {SHAPES[kind][0]}\n\nand more text"})
        api.ok("POST", "/v1/learn", json=learn_body(kind))
    imported = api.ok("POST", "/v1/import", json={"data": bundle(), "merge_strategy": "overwrite"})
    assert imported["errors"] == []
    assert_nothing_leaked(backend.target(db_file))


def test_no_catalogued_format_reaches_the_database_through_remember(api: Api, db_file: Path, backend: Backend) -> None:
    for index, texts in enumerate(format_batches()):
        api.ok("POST", "/v1/remember", json={"name": f"formats-{index}", "type": "note", "observations": texts})
        api.ok("POST", "/v1/remember", json={"note": f"Formats {index}\n\n" + "\n".join(texts)})
    assert_nothing_leaked(backend.target(db_file))


def test_a_learn_project_holding_a_credential_is_refused(api: Api, db_file: Path, backend: Backend) -> None:
    secret, _ = SHAPES["redis-password-only"]
    body = api.fails(
        "POST", "/v1/learn", 400, "validation.bad-body", json={"error": "boom", "fix": "x", "project": secret}
    )
    assert body["error"].startswith("project: ")
    assert_nothing_leaked(backend.target(db_file))


def test_ordinary_code_and_text_are_stored_byte_for_byte_through_remember_and_import(
    api: Api, db_file: Path, backend: Backend
) -> None:
    half = len(ORDINARY_TEXT) // 2
    for index, texts in enumerate((ORDINARY_TEXT[:half], ORDINARY_TEXT[half:])):
        api.ok("POST", "/v1/remember", json={"name": f"ordinary-{index}", "type": "note", "observations": texts})
    entities = [{"name": f"imported-{i}", "type": "note", "observations": [t]} for i, t in enumerate(ORDINARY_TEXT)]
    data = {"version": "3.1.0", "entities": entities, "relations": []}
    assert api.ok("POST", "/v1/import", json={"data": data, "merge_strategy": "overwrite"})["errors"] == []
    assert stored_verbatim_misses(backend.target(db_file), ORDINARY_TEXT) == []
