"""The same defective request reads the same on every surface that reaches its operation: the same code and the
same field path over MCP (the isError text), HTTP (status, errorCode, error: a body's defect is
validation.bad-body, a query parameter's validation.bad-param), the CLI (`memesh call`: exit 1 and the --json
failure body) and the door itself (`dispatch.run`, what every CLI command calls), and `memesh import FILE` for a
bundle.

Every registered operation (`all_ops()`) is here, each with the surfaces that reach it found from the registry and
the HTTP route table, and its defects derived from its input schema: a new operation or route joins this test by
being registered. An operation only one surface reaches still has its schema files, its generated modules, a loader
that loads, and an unknown field refused.
"""

from __future__ import annotations

import importlib
import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote

import anyio
import httpx
import pytest
from returns.result import Failure

from memesh import hosts
from memesh.app import dispatch
from memesh.app.operations import all_ops
from memesh.app.registry import TOOLS, Op, Tool
from memesh.app.resources import Resources
from memesh.context import CallContext
from memesh.errors import ErrorCode
from memesh.schema import files as schemas
from memesh.transports.cli.app import run
from memesh.transports.http.app import create_app
from memesh.transports.http.endpoint import ApiRoute
from memesh.transports.http.routes import API
from tests.backends import Backend
from tests.parity.defects import DEEP, UNKNOWN, Defect, defects, nested
from tests.transports.mcp.conftest import McpHarness, RawServer

OPS = all_ops()
BAD_BODY, BAD_PARAM = ErrorCode.BAD_BODY.value, ErrorCode.BAD_PARAM.value


def routes_of(op: Op[Any, Any, Any]) -> tuple[ApiRoute, ...]:
    return tuple(route for route in API if route.op is op)


def path_parameters(op: Op[Any, Any, Any]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(name for route in routes_of(op) for name in route.path_parameters))


def is_tool(op: Op[Any, Any, Any]) -> bool:
    return isinstance(op, Tool) and any(tool is op for tool in TOOLS)


@dataclass(frozen=True)
class Case:
    op: Op[Any, Any, Any]
    defect: Defect
    index: int

    @property
    def id(self) -> str:
        return f"{self.op.name}-{self.defect.label}"


CASES = [
    Case(op, defect, index)
    for index, (op, defect) in enumerate((op, defect) for op in OPS for defect in defects(op, path_parameters(op)))
]


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("parity")


@pytest.fixture(scope="module")
def mcp_answers(folder: Path) -> dict[int, str]:
    """Every tool's case sent to one real memesh-mcp process as JSON-RPC lines (escaped JSON, as clients write it):
    the isError text of each, by case."""
    (folder / "mcp").mkdir(exist_ok=True)  # MEMESH_DB_PATH's folder must exist
    # One process for the module: refusals come from the gate, before any store (SQLite, as every surface here).
    db = folder / "mcp" / "db.sqlite"
    harness = McpHarness(folder=folder, db=db, stderr_log=folder / "mcp.log", backend=Backend("sqlite"))
    server = RawServer(harness)
    answers: dict[int, str] = {}
    try:
        server.initialize("parity")
        for case in CASES:
            if is_tool(case.op):
                result = server.call_tool(case.op.name, case.defect.body())["result"]
                assert result["isError"] is True, (case.id, result)
                answers[case.index] = result["content"][0]["text"]
    finally:
        server.close()
    return answers


def _http(db: Path, method: str, path: str, body: dict[str, Any] | None = None) -> httpx.Response:
    """One request to the HTTP API on `db`: a body as escaped JSON (a lone surrogate arrives as the \\ud800
    escape), query parameters in the path."""

    async def go() -> httpx.Response:
        app = create_app(db_path=db)
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1:3737") as client:
            if body is None:
                answer = await client.request(method, path)
            else:
                content = json.dumps(body).encode()
                answer = await client.request(
                    method, path, content=content, headers={"content-type": "application/json"}
                )
        app.close()
        return answer

    return anyio.run(go)


def _path(route: ApiRoute, defect: Defect) -> str:
    values = defect.body()
    path = route.path
    for name in route.path_parameters:
        path = path.replace(f"{{{name}}}", quote(str(values[name]), safe=""))
    return path


def http_answers(case: Case, db: Path) -> dict[str, tuple[str, str]]:
    """(errorCode, error) of each HTTP request that can carry the defect, by method and path; each must be a 400."""
    answers: dict[str, tuple[str, str]] = {}
    for route in routes_of(case.op):
        parameters = tuple(route.path_parameters)
        if "POST" in route.methods:
            answer = _http(db, "POST", _path(route, case.defect), case.defect.body(without=parameters))
            answers[f"POST {route.path}"] = _refusal(answer)
        if "GET" in route.methods and case.defect.as_params:
            query = "&".join(
                f"{quote(name)}={quote(value)}"
                for name, values in case.defect.params(without=parameters).items()
                for value in values
            )
            answer = _http(db, "GET", _path(route, case.defect) + (f"?{query}" if query else ""))
            answers[f"GET {route.path}"] = _refusal(answer)
    return answers


def _refusal(answer: httpx.Response) -> tuple[str, str]:
    body = answer.json()
    assert (answer.status_code, body["success"]) == (400, False), body
    return body["errorCode"], body["error"]


@pytest.fixture
def cli_env(folder: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setenv("MEMESH_DIR", str(folder / "cli"))
    monkeypatch.setenv("MEMESH_DB_PATH", str(folder / "cli" / "db.sqlite"))
    yield


@pytest.mark.parametrize("case", [pytest.param(case, id=case.id) for case in CASES])
def test_a_defect_gets_one_code_and_one_field_path_on_every_surface(  # noqa: PLR0917 - parameters and fixtures
    case: Case,
    folder: Path,
    mcp_answers: dict[int, str],
    cli_env: None,
    ctx: CallContext,
    capsys: pytest.CaptureFixture[str],
) -> None:
    refusals: dict[str, tuple[str, str]] = {}  # surface → (code, message)
    match dispatch.run(case.op, Resources(db_path=folder / "door" / "db.sqlite"), case.defect.body(), ctx):
        case Failure(error):
            refusals["door"] = (error.code.value, error.message)
        case other:
            pytest.fail(f"the door admitted {case.id}: {other}")

    if is_tool(case.op):
        refusals["mcp"] = (BAD_BODY, mcp_answers[case.index])
        capsys.readouterr()
        status = run(["call", case.op.name, json.dumps(case.defect.body())])
        cli_body = json.loads(capsys.readouterr().out)
        assert status == 1
        refusals["cli"] = (cli_body["errorCode"], cli_body["error"])

    refusals |= http_answers(case, folder / "http" / "db.sqlite")

    for surface, (code, _) in refusals.items():
        assert code == (BAD_PARAM if surface.startswith("GET ") else BAD_BODY), (surface, refusals)
    assert len({message for _, message in refusals.values()}) == 1, refusals
    if case.defect.label == "unknown key":
        assert f"{UNKNOWN}: Unrecognized key" in refusals["door"][1], refusals


# A hook's input is the canonical input a host module (memesh.hosts) makes of its host's payload: closed like every
# other operation's, so the door refuses what it does not know and nesting too deep. A field a host adds in a later
# version never reaches the door: its host module reads only the fields it knows (checked below on every recorded
# payload of tests/fixtures/hosts).
HOST_PAYLOADS = [op for op in OPS if op.input_schema.startswith("hooks/")]
OURS = [op for op in OPS if not op.input_schema.startswith("hooks/")]
HOST_FIXTURES = sorted((Path(__file__).resolve().parents[1] / "fixtures" / "hosts").glob("*/*.json"))


@pytest.mark.parametrize("op", [pytest.param(op, id=op.name) for op in OURS])
def test_every_operation_refuses_a_field_it_does_not_know(op: Op[Any, Any, Any]) -> None:
    assert schemas.load(op.input_schema).get("additionalProperties") is False
    labels = {defect.label for defect in defects(op, path_parameters(op))}
    assert {"too deep", "unknown key", "lone surrogate in a key"} <= labels


@pytest.mark.parametrize("op", [pytest.param(op, id=op.name) for op in HOST_PAYLOADS])
def test_a_hooks_canonical_input_is_closed_and_refuses_what_nests_too_deep(op: Op[Any, Any, Any]) -> None:
    assert schemas.load(op.input_schema).get("additionalProperties") is False
    assert "too deep" in {defect.label for defect in defects(op, path_parameters(op))}


@pytest.mark.parametrize("case", [pytest.param(case, id=f"{case.parent.name}/{case.stem}") for case in HOST_FIXTURES])
def test_a_field_a_host_adds_is_dropped_by_its_host_module(case: Path) -> None:
    recorded = json.loads(case.read_text())
    host = hosts.module_named(case.parent.name)
    payload = recorded["payload"]
    added = {**payload, "field_of_a_later_version": {"nested": [1, 2, 3]}}
    assert host.normalize(recorded["event"], added) == host.normalize(recorded["event"], payload)


def _generated_module(schema: str) -> str:
    group, _, stem = schema.rpartition("/")
    return f"memesh.generated.{group.replace('/', '.')}.{stem.replace('.', '_').replace('-', '_')}"


@pytest.mark.parametrize("op", [pytest.param(op, id=op.name) for op in OPS])
def test_every_operation_has_its_schema_files_its_generated_modules_and_loads(op: Op[Any, Any, Any]) -> None:
    assert op.output_schema is not None, f"{op.name} has no output schema"
    for schema in (op.input_schema, op.output_schema):
        loaded = schemas.load(schema)
        importlib.import_module(_generated_module(schema))
        described = {key: value for key, value in loaded.items() if key not in ("$schema", "title", "description")}
        assert described != {"type": "object"}, f"{schema} is a bare object: it describes nothing"
    assert callable(op.load())


def test_every_api_route_is_sent_a_defect() -> None:
    for route in API:
        carried = [c for c in CASES if c.op is route.op and ("POST" in route.methods or c.defect.as_params)]
        assert carried, route.path


def test_every_tool_and_every_api_route_has_its_operation_here() -> None:
    ids = {id(op) for op in OPS}
    assert all(id(tool) in ids for tool in TOOLS)
    assert all(id(route.op) in ids for route in API)
    assert {case.op.name for case in CASES} == {op.name for op in OPS}


def test_a_bundle_nested_too_deep_is_refused_alike_by_memesh_import_and_the_import_tool(
    folder: Path, cli_env: None, capsys: pytest.CaptureFixture[str]
) -> None:
    bundle = {"entities": [{"name": "n", "type": "note", "observations": [], "metadata": {"x": nested(DEEP)}}]}
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
    answers: list[Any] = []

    (folder / "mcp-import").mkdir(exist_ok=True)  # MEMESH_DB_PATH's folder must exist
    db = folder / "mcp-import" / "db.sqlite"
    server = RawServer(McpHarness(folder=folder, db=db, stderr_log=folder / "m.log", backend=Backend("sqlite")))
    try:
        server.initialize("parity")
        result = server.call_tool("import", request)["result"]
    finally:
        server.close()
    answers.append(("mcp", result["isError"], result.get("structuredContent") or result["content"][0]["text"]))
    http = _http(folder / "http-import" / "db.sqlite", "POST", "/v1/import", request)
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
