"""Curation over free text: whatever a transcript holds or an agent submits, nothing raises and no secret stays."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from memesh.core.clean import redact
from memesh.core.transcripts import recent_turns, recorded_cwd, visible_turns
from memesh.core.work_package import cleaned_result, result_problem

SECRETS = st.sampled_from(["ghp_" + "a" * 36, "sk-" + "b" * 40, "password=hunter2", "AKIA" + "C" * 16, ""])
TEXT = st.builds(
    lambda before, secret, after: before + secret + after, st.text(max_size=40), SECRETS, st.text(max_size=40)
)


@settings(max_examples=200, deadline=None)
@given(data=st.binary(max_size=2000))
def test_any_bytes_parse_without_raising(data: bytes) -> None:
    turns = visible_turns(data)
    recorded_cwd(data)
    assert len(recent_turns(turns).turns) <= len(turns)


@settings(max_examples=200, deadline=None)
@given(texts=st.lists(TEXT, max_size=5), kinds=st.lists(st.sampled_from(["user", "assistant"]), max_size=5))
def test_visible_turns_keep_no_secret(texts: list[str], kinds: list[str]) -> None:
    lines = []
    for text, kind in zip(texts, kinds, strict=False):
        content = text if kind == "user" else [{"type": "text", "text": text}]
        lines.append(json.dumps({"type": kind, "message": {"content": content}, "cwd": "/w"}))
    for turn in visible_turns("\n".join(lines).encode()):
        assert redact(turn.text) == turn.text


@settings(max_examples=200, deadline=None)
@given(name=TEXT.filter(lambda t: t.strip()), observations=st.lists(TEXT, min_size=1, max_size=4), tag=TEXT)
def test_a_submitted_result_is_stored_without_secrets(name: str, observations: list[str], tag: str) -> None:
    result = {"name": name, "type": "digest", "observations": observations, "tags": [tag or "t"]}
    cleaned = cleaned_result(result)
    for text in [cleaned["name"], *cleaned["observations"], *cleaned["tags"]]:
        assert redact(text) == text
    result_problem("digest", result)
