"""The same defective request reads the same on every surface: the same code and the same field path over MCP
(the isError text), HTTP (status, errorCode, error) and the CLI (`memesh call`: exit 1 and the --json failure
body), and `memesh import FILE` for a bundle.

The defects are derived from each registered tool's input schema, so a new tool joins this test by being registered.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest

from memesh.app.registry import TOOLS, Tool
from memesh.schema import files as schemas
from memesh.transports.cli.app import run
from memesh.transports.http.app import create_app
from tests.transports.mcp.conftest import McpHarness, RawServer

DEEP = 150


def _nested(depth: int) -> Any:
    value: Any = "x"
    for _ in range(depth):
        value = [value]
    return value


def _wrong(schema: dict[str, Any]) -> Any | None:
    """A value of the wrong JSON type for a property schema, or None when any type would do."""
    kind = schema.get("type")
    if kind == "string" or "enum" in schema:
        return 12345
    if kind in ("integer", "number", "boolean", "array", "object"):
        return "not-the-right-type"
    return None


def defects(tool: Tool[Any, Any, Any]) -> dict[str, dict[str, Any]]:
    """Requests for `tool` that each carry one defect its schema refuses."""
    schema = schemas.load(tool.input_schema)
    base: dict[str, Any] = {}
    refine = schema.get("$defs", {}).get("refine")
    if refine is not None:
        # Action-discriminated (a flat top level, the rules in $defs/refine): the defects of its first action, each
        # request naming that action, its fields as the top level declares them.
        action = refine["oneOf"][0]
        base = {name: prop["const"] for name, prop in action["properties"].items() if "const" in prop}
        top = schema["properties"]
        schema = {**action, "properties": {name: top[name] for name in action["properties"]}}
    properties: dict[str, Any] = {k: v for k, v in schema.get("properties", {}).items() if k not in base}
    required: list[str] = [name for name in schema.get("required", []) if name not in base]
    first = next(iter(properties))
    cases: dict[str, dict[str, Any]] = {"too deep": {**base, first: _nested(DEEP)}}
    if schema.get("additionalProperties") is False:
        cases["unknown key"] = {**base, "not_a_field": 1}
        cases["lone surrogate in a key"] = {**base, "bad\ud800key": 1}
    if required:
        cases["missing required field"] = dict(base)
    for name, prop in properties.items():
        wrong = _wrong(prop)
        if wrong is not None:
            cases["wrong type"] = {**base, name: wrong}
            break
    return cases


CASES = [(tool, label, request) for tool in TOOLS for label, request in defects(tool).items()]
IDS = [f"{tool.name}-{label}" for tool, label, _ in CASES]


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("parity")


@pytest.fixture(scope="module")
def mcp_answers(folder: Path) -> dict[str, str]:
    """Every case sent to one real memesh-mcp process as JSON-RPC lines (escaped JSON, as clients write it); the
    isError text of each."""
    (folder / "mcp").mkdir(exist_ok=True)  # MEMESH_DB_PATH's folder must exist
    harness = McpHarness(folder=folder, db=folder / "mcp" / "db.sqlite", stderr_log=folder / "mcp.log")
    server = RawServer(harness)
    answers: dict[str, str] = {}
    try:
        server.initialize("parity")
        for (tool, _, request), case_id in zip(CASES, IDS, strict=True):
            result = server.call_tool(tool.name, request)["result"]
            assert result["isError"] is True, (case_id, result)
            answers[case_id] = result["content"][0]["text"]
    finally:
        server.close()
    return answers


def _http(db: Path, tool: Tool[Any, Any, Any], request: dict[str, Any]) -> httpx.Response:
    async def go() -> httpx.Response:
        app = create_app(db_path=db)
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1:3737") as client:
            body = json.dumps(request).encode()  # escaped, so a lone surrogate arrives as the \\ud800 escape
            answer = await client.post(f"/v1/{tool.name}", content=body, headers={"content-type": "application/json"})
        app.close()
        return answer

    return anyio.run(go)


@pytest.fixture
def cli_env(folder: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setenv("MEMESH_DIR", str(folder / "cli"))
    monkeypatch.setenv("MEMESH_DB_PATH", str(folder / "cli" / "db.sqlite"))
    yield


@pytest.mark.parametrize(("tool", "label", "request_"), CASES, ids=IDS)
def test_a_defect_gets_one_code_and_one_field_path_on_every_surface(  # noqa: PLR0917 - parameters and fixtures
    tool: Tool[Any, Any, Any],
    label: str,
    request_: dict[str, Any],
    folder: Path,
    mcp_answers: dict[str, str],
    cli_env: None,
    capsys: pytest.CaptureFixture[str],
) -> None:
    case_id = f"{tool.name}-{label}"
    mcp_message = mcp_answers[case_id]

    capsys.readouterr()
    code = run(["call", tool.name, json.dumps(request_)])
    cli_body = json.loads(capsys.readouterr().out)
    assert code == 1
    assert cli_body["errorCode"] == "validation.bad-body"
    assert cli_body["error"] == mcp_message

    if tool.http_post:
        answer = _http(folder / "http" / "db.sqlite", tool, request_)
        assert answer.status_code == 400
        body = answer.json()
        assert (body["success"], body["errorCode"], body["error"]) == (False, "validation.bad-body", mcp_message)


def test_every_tool_has_a_defect_case() -> None:
    assert {tool.name for tool, _, _ in CASES} == {tool.name for tool in TOOLS}


def test_a_bundle_nested_too_deep_is_refused_alike_by_memesh_import_and_the_import_tool(
    folder: Path, cli_env: None, capsys: pytest.CaptureFixture[str]
) -> None:
    bundle = {"entities": [{"name": "n", "type": "note", "observations": [], "metadata": {"x": _nested(DEEP)}}]}
    path = folder / "deep.json"
    path.write_text(json.dumps(bundle))
    capsys.readouterr()
    assert run(["import", str(path), "--json"]) == 1
    from_file = json.loads(capsys.readouterr().out)
    assert run(["call", "import", json.dumps({"data": bundle})]) == 1
    from_tool = json.loads(capsys.readouterr().out)
    assert from_file == from_tool
    assert from_file["errorCode"] == "validation.bad-body"


def test_a_bundle_nested_past_the_json_parser_is_refused_with_the_same_body(
    folder: Path, cli_env: None, capsys: pytest.CaptureFixture[str]
) -> None:
    path = folder / "very-deep.json"
    path.write_text('{"entities": [' + "[" * 5000 + "]" * 5000 + "]}")
    capsys.readouterr()
    assert run(["import", str(path), "--json"]) == 1
    body = json.loads(capsys.readouterr().out)
    assert body["errorCode"] == "validation.bad-body"
    assert "levels deep" in body["error"]


def test_an_import_bundle_with_one_bad_entry_reads_the_same_through_mcp_http_and_the_cli(
    folder: Path, mcp_answers: dict[str, str], cli_env: None, capsys: pytest.CaptureFixture[str]
) -> None:
    bundle = {
        "entities": [
            {"name": "good-entry", "type": "note", "observations": ["fine"]},
            {"name": "bad-entry", "type": "note", "observations": "not a list"},
        ]
    }
    request = {"data": bundle, "merge_strategy": "skip"}
    import_tool = next(tool for tool in TOOLS if tool.name == "import")
    answers: list[Any] = []

    (folder / "mcp-import").mkdir(exist_ok=True)  # MEMESH_DB_PATH's folder must exist
    server = RawServer(McpHarness(folder=folder, db=folder / "mcp-import" / "db.sqlite", stderr_log=folder / "m.log"))
    try:
        server.initialize("parity")
        result = server.call_tool("import", request)["result"]
    finally:
        server.close()
    answers.append(("mcp", result["isError"], result.get("structuredContent") or result["content"][0]["text"]))
    http = _http(folder / "http-import" / "db.sqlite", import_tool, request)
    answers.append(("http", http.status_code != 200, http.json().get("data") or http.json().get("error")))
    capsys.readouterr()
    code = run(["call", "import", json.dumps(request)])
    cli_out = json.loads(capsys.readouterr().out)
    answers.append(("cli", code != 0, cli_out["error"] if code != 0 else cli_out))

    path = folder / "one-bad.json"
    path.write_text(json.dumps(bundle))
    capsys.readouterr()
    file_code = run(["import", str(path), "--merge", "skip", "--json"])
    from_file = json.loads(capsys.readouterr().out)

    (_, mcp_failed, mcp_answer), (_, http_failed, http_answer), (_, cli_failed, cli_answer) = answers
    assert mcp_failed == http_failed == cli_failed
    assert mcp_answer == http_answer == cli_answer
    # The file import reports the same per-entry errors as the tool.
    assert isinstance(cli_answer, dict)
    assert cli_answer["errors"]
    assert file_code == 1
    assert from_file["errors"] == cli_answer["errors"]
