"""Every credential shape, through every HTTP write route, never reaches the database file."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from tests.backends import Backend
from tests.secret_shapes import SHAPES, assert_nothing_leaked, bundle, format_batches, learn_body, remember_body

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
