"""memesh.schema.validation against the reference: for every schema file it accepts exactly what
jsonschema.Draft202012Validator accepts, and its messages read `<path>: <message>` (root issues bare)."""

from __future__ import annotations

import json
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator
from referencing import Registry
from referencing.jsonschema import DRAFT202012

from memesh.context import CallContext
from memesh.errors import ErrorCode
from memesh.schema import files as schemas
from memesh.schema import validation
from memesh.schema.files import SCHEMA_DIR
from memesh.store.sqlite import SqliteStore
from tests.calls import call

SCHEMA_FILES = sorted(SCHEMA_DIR.rglob("*.json"))
SCHEMA_NAMES = [str(path.relative_to(SCHEMA_DIR).with_suffix("")) for path in SCHEMA_FILES]

Json = Any

# Values of every JSON type, used wherever a wrong type should be tried.
ANY_SCALAR = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-5, 200),
    st.sampled_from([0.5, 2.0, -1.0, 1e20, 100.0, 101.0]),
    st.text(max_size=5),
)
ANY_JSON: st.SearchStrategy[Json] = st.recursive(
    ANY_SCALAR,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
    max_leaves=6,
)


def _load(path: Path) -> dict[str, Any]:
    schema: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return schema


def _resolve(schema: Json, root: dict[str, Any]) -> Json:
    while isinstance(schema, dict) and "$ref" in schema:
        node: Any = root
        for part in schema["$ref"][2:].split("/"):
            node = node[part]
        schema = node
    return schema


def _faulty(fault: int, good: st.SearchStrategy[Json], bad: st.SearchStrategy[Json]) -> st.SearchStrategy[Json]:
    """`good`, except `fault` times in a hundred `bad`."""
    return st.integers(0, 99).flatmap(lambda n: bad if n < fault else good)


def _lengths(low: int, high: int | None, fault: int) -> st.SearchStrategy[int]:
    top = high if high is not None else low + 4
    good = st.one_of(
        st.sampled_from(sorted({low, min(low + 1, top), max(top - 1, low), top})), st.integers(low, min(top, low + 30))
    )
    bad = st.sampled_from([n for n in (low - 1, top + 1 if high is not None else -1) if n >= 0] or [low])
    return _faulty(fault, good, bad)


def _numbers(schema: dict[str, Any], fault: int) -> st.SearchStrategy[Json]:
    low = schema.get("minimum", schema.get("exclusiveMinimum", -1000))
    high = schema.get("maximum", schema.get("exclusiveMaximum", 1000))
    good = st.one_of(st.sampled_from([low, high, float(low), float(high), low + 1, high - 1]), st.integers(low, high))
    bad = st.sampled_from([low - 1, high + 1, low - 0.5, high + 0.5, 1.5, float("inf")])
    return _faulty(fault, good, bad)


def near_valid(schema: Json, root: dict[str, Any], fault: int, depth: int = 0) -> st.SearchStrategy[Json]:
    """Instances close to `schema`: `fault` in a hundred nodes get a wrong type, a value just past a boundary,
    a missing required key or an extra key; the rest are valid, often right at a boundary."""
    schema = _resolve(schema, root)
    if schema is True or schema == {}:
        return ANY_JSON
    if schema is False:
        return ANY_SCALAR
    options: list[st.SearchStrategy[Json]] = []
    for composed in ("anyOf", "oneOf"):
        options += [near_valid(option, root, fault, depth) for option in schema.get(composed, ())]
    if "const" in schema:
        options.append(_faulty(fault, st.just(schema["const"]), ANY_SCALAR))
    if "enum" in schema:
        options.append(_faulty(fault, st.sampled_from(schema["enum"]), st.sampled_from(["", "Personal", "other"])))
    kinds = schema.get("type")
    for kind in [kinds] if isinstance(kinds, str) else kinds or []:
        options.append(_of_type(kind, schema, root, fault, depth))
    if not options:
        options.append(ANY_JSON)
    return _faulty(fault, st.one_of(*options), ANY_SCALAR if depth < 3 else st.none())


def _of_type(
    kind: str, schema: dict[str, Any], root: dict[str, Any], fault: int, depth: int
) -> st.SearchStrategy[Json]:
    if kind == "string":
        lengths = _lengths(schema.get("minLength", 0), schema.get("maxLength"), fault)
        return st.tuples(st.sampled_from(["a", "é", " ", "日", "\n"]), lengths).map(lambda pair: pair[0] * pair[1])
    if kind in ("integer", "number"):
        return _numbers(schema, fault)
    if kind == "boolean":
        return st.booleans()
    if kind == "null":
        return st.none()
    if kind == "array":
        item = near_valid(schema.get("items", True), root, fault, depth + 1)
        lengths = _lengths(schema.get("minItems", 0), schema.get("maxItems"), fault)
        # Long arrays repeat a few drawn items, so a 101-item list costs no more than a 3-item one.
        return st.tuples(st.lists(item, min_size=1, max_size=3), lengths).map(
            lambda pair: [pair[0][i % len(pair[0])] for i in range(pair[1])]
        )
    if kind == "object":
        return _objects(schema, root, fault, depth)
    return ANY_JSON


def _below(cut: int) -> Callable[[int], bool]:
    return lambda n: n < cut


def _objects(schema: dict[str, Any], root: dict[str, Any], fault: int, depth: int) -> st.SearchStrategy[Json]:
    required = set(schema.get("required", ()))
    # Built once, not per draw. A required key is left out `fault` times in a hundred; an optional one half the time.
    fields = [
        (
            key,
            st.integers(0, 99).map(_below(100 - fault if key in required else 50)),
            near_valid(sub, root, fault, depth + 1),
        )
        for key, sub in schema.get("properties", {}).items()
    ]
    extra_key = st.sampled_from(["extra", "metadata", "provenance", "Name", ""])
    extra = _faulty(fault, st.just({}), st.builds(lambda key, value: {key: value}, extra_key, ANY_SCALAR))

    @st.composite
    def build(draw: st.DrawFn) -> dict[str, Any]:
        out: dict[str, Any] = {key: draw(value) for key, present, value in fields if draw(present)}
        out.update(draw(extra))
        return out

    return build()


# Every schema file under its file URI: the reference resolves a `$ref` into another file (the hook inputs'
# `common.json#/$defs/host`) itself, while memesh reads the schema as schemas.load inlines it.
REGISTRY: Registry[Any] = Registry().with_resources(
    (path.as_uri(), DRAFT202012.create_resource(_load(path))) for path in SCHEMA_FILES
)


def _reference(name: str, schema: dict[str, Any]) -> Draft202012Validator:
    return Draft202012Validator({"$id": (SCHEMA_DIR / f"{name}.json").as_uri(), **schema}, registry=REGISTRY)


@cache
def _schema(name: str) -> tuple[dict[str, Any], st.SearchStrategy[Json], Draft202012Validator]:
    """The schema as memesh reads it, its near-valid instance strategy and the reference validator (over the file
    as written), built once per file."""
    written = _load(SCHEMA_DIR / f"{name}.json")
    Draft202012Validator.check_schema(written)
    schema = schemas.load(name)
    # Mostly valid instances (every boundary kept) and mostly faulty ones, so both verdicts are well exercised.
    instances = st.one_of(near_valid(schema, schema, fault=1), near_valid(schema, schema, fault=15))
    refine = schema.get("$defs", {}).get("refine")
    if refine is None:
        return schema, instances, _reference(name, written)
    # An action-discriminated tool: instances near each action's rules too, and the reference holds the input to
    # the top level and its `$defs/refine` together, as memesh.validation does.
    instances = st.one_of(instances, near_valid(refine, schema, fault=1), near_valid(refine, schema, fault=15))
    return schema, instances, _reference(name, {**written, "allOf": [{"$ref": "#/$defs/refine"}]})


@pytest.mark.parametrize("schema_name", SCHEMA_NAMES)
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_validation_accepts_exactly_what_the_reference_validator_accepts(schema_name: str, data: st.DataObject) -> None:
    schema, instances, reference = _schema(schema_name)
    instance = data.draw(instances, label="instance")
    ours = validation.issues(schema, instance)
    theirs = [error.message for error in reference.iter_errors(instance)]
    assert (not ours) == (not theirs), (ours, theirs)


@pytest.mark.parametrize("schema_name", SCHEMA_NAMES)
@settings(max_examples=60, deadline=None)
@given(instance=ANY_JSON)
def test_validation_agrees_with_the_reference_on_arbitrary_json(schema_name: str, instance: Json) -> None:
    schema, _, reference = _schema(schema_name)
    assert (not validation.issues(schema, instance)) == reference.is_valid(instance)


def test_every_schema_file_is_covered() -> None:
    assert "tools/remember.input" in SCHEMA_NAMES
    assert len(SCHEMA_NAMES) == len(list(SCHEMA_DIR.rglob("*.json")))
    for path in SCHEMA_FILES:
        assert validation.unsupported_keywords(_load(path)) == [], path.name


def _refs(node: Json) -> list[str]:
    if isinstance(node, dict):
        return [
            *([node["$ref"]] if isinstance(node.get("$ref"), str) else []),
            *(r for v in node.values() for r in _refs(v)),
        ]
    if isinstance(node, list):
        return [ref for item in node for ref in _refs(item)]
    return []


def test_a_reference_into_another_file_names_a_definition_of_its_folder_that_refers_to_nothing_itself() -> None:
    # schemas.load copies what such a reference names into the schema: a reference inside the copy would name the
    # wrong document. Every schema memesh loads is then free of references into other files.
    across = [(path, ref) for path in SCHEMA_FILES for ref in _refs(_load(path)) if not ref.startswith("#")]
    assert across, "the hook inputs share their definitions through hooks/common.json"
    for path, ref in across:
        file, _, pointer = ref.partition("#")
        target: Any = _load(path.parent / file)
        for part in pointer.strip("/").split("/"):
            target = target[part]
        assert isinstance(target, dict) and _refs(target) == [], (path.name, ref)
    for name in SCHEMA_NAMES:
        assert all(ref.startswith("#") for ref in _refs(schemas.load(name))), name


HAND_PICKED: list[tuple[str, Json]] = [
    ("tools/remember.input", {"name": "a", "type": "b", "observations": ["x" * 10_000]}),
    ("tools/remember.input", {"name": "a", "type": "b", "observations": ["x" * 10_001]}),
    ("tools/remember.input", {"name": "", "type": "b"}),
    ("tools/remember.input", {"name": "a" * 255, "type": "b" * 100}),
    ("tools/remember.input", {"name": "a" * 256, "type": "b"}),
    ("tools/remember.input", {"note": "n" * 20_000}),
    ("tools/remember.input", {"note": "n" * 20_001}),
    ("tools/remember.input", {"title": "t" * 200}),
    ("tools/remember.input", {"title": "t" * 201}),
    ("tools/remember.input", {"observations": ["o"] * 100, "tags": ["t"] * 50}),
    ("tools/remember.input", {"observations": ["o"] * 101}),
    ("tools/remember.input", {"tags": ["t"] * 51}),
    ("tools/remember.input", {"relations": [{"to": "x", "type": "y"}] * 51}),
    ("tools/remember.input", {"relations": [{"to": "x"}]}),
    ("tools/remember.input", {"relations": [{"to": "x", "type": "y", "weight": 1}]}),
    ("tools/remember.input", {"relations": [{"to": "", "type": "y"}]}),
    ("tools/remember.input", {"namespace": "team"}),
    ("tools/remember.input", {"namespace": "Team"}),
    ("tools/remember.input", {"replace": 1}),
    ("tools/remember.input", {"replace": False}),
    ("tools/remember.input", []),
    ("tools/remember.input", None),
    ("tools/recall.input", {"limit": 1}),
    ("tools/recall.input", {"limit": 100}),
    ("tools/recall.input", {"limit": 100.0}),
    ("tools/recall.input", {"limit": 0}),
    ("tools/recall.input", {"limit": 101}),
    ("tools/recall.input", {"limit": 1.5}),
    ("tools/recall.input", {"limit": True}),
    ("tools/recall.input", {"query": "q" * 1000}),
    ("tools/recall.input", {"query": "q" * 1001}),
    ("tools/forget.input", {"name": "a", "observation": ""}),
    ("tools/forget.input", {"observation": "x"}),
    ("tools/recall.output", {"entities": [], "retrieval": {"mode": "fts", "truncated": False}, "truncated": True}),
    ("tools/recall.output", {"entities": [], "retrieval": {"mode": "fts", "truncated": False}, "truncated": False}),
    ("tools/remember.output", {"stored": True}),
    (
        "tools/message.input",
        {"action": "ack", "project": "p", "recipient": "r", "message_id": "m", "idempotency_key": "k"},
    ),
    ("tools/message.input", {"action": "ack", "project": "p", "recipient": "r", "message_id": "m"}),
    (
        "tools/message.input",
        {"action": "send", "project": "p", "sender": "s", "recipient": "r", "idempotency_key": "k"},
    ),
    ("tools/message.input", {"action": "discover", "project": "p", "cursor": "c"}),
    ("tools/message.input", {"action": "poll", "project": "p", "recipient": "r", "wait_ms": 30001}),
    ("tools/message.input", {"action": "bogus", "project": "p"}),
]


@pytest.mark.parametrize(("schema_name", "instance"), HAND_PICKED)
def test_validation_agrees_with_the_reference_on_boundary_cases(schema_name: str, instance: Json) -> None:
    schema, _, reference = _schema(schema_name)
    assert (not validation.issues(schema, instance)) == reference.is_valid(instance)


REMEMBER = _load(SCHEMA_DIR / "tools" / "remember.input.json")
RECALL = _load(SCHEMA_DIR / "tools" / "recall.input.json")


def test_a_field_issue_is_prefixed_with_its_path() -> None:
    assert validation.issues(REMEMBER, {"name": 5, "type": "t"}) == [
        "name: Invalid input: expected string, received number"
    ]


def test_a_nested_issue_names_the_full_path() -> None:
    [issue] = validation.issues(
        REMEMBER, {"name": "a", "type": "t", "relations": [{"to": "x", "type": "y"}, {"to": "x"}]}
    )
    assert issue.startswith("relations.1.type: ")


def test_a_root_issue_is_the_message_alone() -> None:
    [issue] = validation.issues(REMEMBER, ["not", "an", "object"])
    assert issue == "Invalid input: expected object, received array"


def test_an_unknown_key_is_named() -> None:
    assert validation.issues(RECALL, {"query": "x", "serach": True}) == ["serach: Unrecognized key"]
    assert validation.issues(REMEMBER, {"relations": [{"to": "x", "type": "y", "weight": 2}]}) == [
        "relations.0.weight: Unrecognized key"
    ]


def test_several_issues_are_all_reported_in_document_order() -> None:
    assert validation.issues(RECALL, {"limit": 0, "query": 3}) == [
        "limit: Too small: expected number to be >=1",
        "query: Invalid input: expected string, received number",
    ]


MESSAGE = _load(SCHEMA_DIR / "tools" / "message.input.json")


def test_an_action_missing_a_field_names_that_field() -> None:
    send = {"action": "send", "project": "p", "sender": "s", "recipient": "r", "idempotency_key": "k"}
    assert validation.issues(MESSAGE, send) == ["payload: Invalid input: expected value, received undefined"]


def test_a_field_another_action_takes_is_an_unknown_key_for_this_one() -> None:
    assert validation.issues(MESSAGE, {"action": "discover", "project": "p", "cursor": "c"}) == [
        "cursor: Unrecognized key"
    ]


def test_an_unknown_action_lists_the_actions() -> None:
    [issue] = validation.issues(MESSAGE, {"action": "shout", "project": "p"})
    assert issue.startswith('action: Invalid option: expected one of "send"|"discover"')


def test_only_unknown_keys_are_reported_by_unknown_key_issues() -> None:
    assert validation.unknown_key_issues(RECALL, {"limit": 0, "bogus": 1}) == ["bogus: Unrecognized key"]


def test_dispatch_joins_issues_into_one_bad_body_message(fresh_db: SqliteStore, ctx: CallContext) -> None:
    error = call("recall", fresh_db, {"limit": 0, "query": 3}, ctx).failure()
    assert error.code == ErrorCode.BAD_BODY
    assert error.message == (
        "limit: Too small: expected number to be >=1; query: Invalid input: expected string, received number"
    )


def test_dispatch_reports_a_root_issue_without_a_path(fresh_db: SqliteStore, ctx: CallContext) -> None:
    error = call("forget", fresh_db, "just a string", ctx).failure()
    assert error.code == ErrorCode.BAD_BODY
    assert error.message == "Invalid input: expected object, received string"


def test_dispatch_refuses_an_unknown_tool(fresh_db: SqliteStore, ctx: CallContext) -> None:
    error = call("consolidate", fresh_db, {}, ctx).failure()
    assert error.code == ErrorCode.BAD_BODY
    assert "consolidate" in error.message


def test_with_nulls_meaning_absent_unknown_keys_are_reported_with_the_rest_as_on_every_surface(
    fresh_db: SqliteStore, ctx: CallContext
) -> None:
    error = call("recall", fresh_db, {"limit": 0, "bogus": None}, ctx, nulls_mean_absent=True).failure()
    assert error.message == "bogus: Unrecognized key; limit: Too small: expected number to be >=1"
    ok = call("recall", fresh_db, {"query": None, "limit": None, "tag": None}, ctx, nulls_mean_absent=True)
    assert ok.unwrap()["retrieval"] == {"mode": "fts", "truncated": False}


def test_without_nulls_meaning_absent_a_null_is_a_type_error(fresh_db: SqliteStore, ctx: CallContext) -> None:
    error = call("recall", fresh_db, {"query": None}, ctx).failure()
    assert error.message == "query: Invalid input: expected string, received null"
