"""The size cap as pure functions: whatever goes in, what comes out is within budget and says what was cut."""

from __future__ import annotations

import re
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from memesh.core.sizecap import ENTITY_MAX_BYTES, RESPONSE_MAX_BYTES, cap_entity, cap_envelope, cut_to_fit, json_bytes

CUT = re.compile(r"(.*?) ?… \(\+(\d+) more bytes\)", re.DOTALL)

# Strings from empty to ~15 KB, cheaply: a short random piece repeated.
TEXT = st.tuples(st.text(min_size=1, max_size=6), st.integers(0, 2_500)).map(lambda pair: pair[0] * pair[1])
TAG = st.one_of(st.text(max_size=40), st.just("file:src/app.py"), TEXT.map(lambda t: t[:255]))


@st.composite
def entities(draw: st.DrawFn, index: int = 0) -> dict[str, Any]:
    return {
        "id": index,
        "name": draw(st.text(min_size=1, max_size=60)),
        "title": draw(st.none() | st.text(max_size=200)),
        "observations": draw(st.lists(TEXT, max_size=8)),
        "tags": draw(st.lists(TAG, max_size=40)),
        "relations": [],
    }


def _content(entity: dict[str, Any]) -> int:
    return json_bytes(entity["tags"]) + json_bytes(entity["observations"])


@settings(max_examples=80, deadline=None)
@given(entities())
def test_a_capped_entity_always_fits_8_kb_and_reports_what_it_dropped(entity: dict[str, Any]) -> None:
    capped = cap_entity(entity)
    assert _content(capped) <= ENTITY_MAX_BYTES
    tags = [tag for tag in entity["tags"] if not tag.startswith("file:")]
    assert not any(tag.startswith("file:") for tag in capped["tags"])
    assert capped["tags"] == tags[: len(capped["tags"])]
    observations = entity["observations"]
    shown = capped["observations"]
    was_cut = bool(shown) and shown[0] != observations[0]
    if was_cut:
        assert len(shown) == 1
        assert json_bytes(observations[:1]) > ENTITY_MAX_BYTES
        match = CUT.fullmatch(shown[0])
        assert match is not None
        assert observations[0].startswith(match.group(1))
        assert len(match.group(1).encode()) + int(match.group(2)) == len(observations[0].encode())
    else:
        assert shown == observations[: len(shown)]
    truncated = capped.get("truncated", {})
    if len(shown) < len(observations) or was_cut:
        assert truncated["observations"] == {"shown": len(shown), "total": len(observations)}
    else:
        assert "observations" not in truncated
    if len(capped["tags"]) < len(tags):
        assert truncated["tags"] == {"shown": len(capped["tags"]), "total": len(tags)}
    else:
        assert "tags" not in truncated
    for key in ("id", "name", "title", "relations"):
        assert capped[key] == entity[key]


@settings(max_examples=25, deadline=None)
@given(st.lists(entities(), max_size=10))
def test_a_capped_envelope_always_fits_32_kb_and_reports_omitted_entities(items: list[dict[str, Any]]) -> None:
    envelope = {"entities": items, "retrieval": {"mode": "fts", "truncated": False}}
    capped = cap_envelope(envelope)
    assert json_bytes(capped) <= RESPONSE_MAX_BYTES
    shown = len(capped["entities"])
    assert [e["id"] for e in capped["entities"]] == [e["id"] for e in items[:shown]]
    assert capped["retrieval"] == envelope["retrieval"]
    if shown < len(items):
        assert capped["truncated"] is True
        assert capped["entities_omitted"] == {"shown": shown, "total": len(items)}
    else:
        assert "entities_omitted" not in capped
    cut_any = shown < len(items) or any("truncated" in entity for entity in capped["entities"])
    assert capped.get("truncated", False) is cut_any


def test_an_observation_that_fits_alone_but_not_beside_the_tags_is_dropped_whole() -> None:
    tags = ["t" * 250] * 31  # ~7.8 KB
    capped = cap_entity({"observations": ["o" * 1_000], "tags": tags})
    assert capped["observations"] == []
    assert capped["truncated"] == {"observations": {"shown": 0, "total": 1}}


def test_cut_to_fit_respects_utf8_boundaries_and_the_budget() -> None:
    text = "日本語" * 1_000
    cut = cut_to_fit(text, 500)
    assert cut is not None
    assert json_bytes([cut]) <= 500
    match = CUT.fullmatch(cut)
    assert match is not None
    assert len(match.group(1).encode()) + int(match.group(2)) == len(text.encode())


def test_cut_to_fit_gives_up_when_not_even_the_marker_fits() -> None:
    assert cut_to_fit("x" * 100, 10) is None


def _reference_pack(items: list[str], budget: int) -> list[str]:
    """The packing rule measured the slow, obvious way: every candidate prefix encoded whole."""
    kept: list[str] = []
    for item in items:
        if json_bytes([*kept, item]) > budget:
            break
        kept.append(item)
    return kept


@settings(max_examples=200, deadline=None)
@given(entities())
def test_packing_by_measured_parts_keeps_what_measuring_every_prefix_keeps(entity: dict[str, Any]) -> None:
    tags = [tag for tag in entity["tags"] if not tag.startswith("file:")]
    kept_tags = _reference_pack(tags, ENTITY_MAX_BYTES)
    kept_obs = _reference_pack(entity["observations"], max(0, ENTITY_MAX_BYTES - json_bytes(kept_tags)))
    capped = cap_entity(entity)
    assert capped["tags"] == kept_tags
    if kept_obs or capped["observations"] == []:
        assert capped["observations"] == kept_obs


@settings(max_examples=40, deadline=None)
@given(st.lists(entities(), max_size=12), st.lists(st.text(max_size=300), max_size=3))
def test_entities_are_dropped_exactly_while_the_envelope_measured_whole_is_over_budget(
    items: list[dict[str, Any]], conflicts: list[str]
) -> None:
    envelope: dict[str, Any] = {"entities": items, "retrieval": {"mode": "fts", "truncated": False}}
    if conflicts:
        envelope["conflicts"] = conflicts
    capped = [cap_entity(entity) for entity in items]
    rest = {key: value for key, value in envelope.items() if key != "entities"}
    count = len(capped)
    while count > 0 and json_bytes({"entities": capped[:count], **rest}) > RESPONSE_MAX_BYTES - 128:
        count -= 1
    assert cap_envelope(envelope)["entities"] == capped[:count]
