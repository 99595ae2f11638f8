"""The one table from error codes to MCP results, and what an unexpected exception may tell the client."""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st
from mcp import types
from returns.result import Failure, Success

from memesh.errors import ErrorCode, MemeshError
from memesh.transports.mcp.results import (
    DELIVERY,
    REASON_MAX,
    compact_json,
    short_reason,
    to_call_result,
    unexpected_failure,
)


def test_the_delivery_table_covers_every_error_code() -> None:
    assert set(DELIVERY) == set(ErrorCode)


def test_every_error_code_becomes_a_tool_error_carrying_its_message() -> None:
    for code in ErrorCode:
        result = to_call_result(Failure(MemeshError(code, f"went wrong: {code}", {"detail": 1})))
        assert result.is_error is True
        assert result.structured_content is None
        assert result.content == [types.TextContent(type="text", text=f"went wrong: {code}")]


def test_a_success_is_sent_as_compact_json_text_and_as_structured_content() -> None:
    data = {"name": "café", "title": None, "tags": ["a", "b"]}
    result = to_call_result(Success(data))
    assert result.is_error is False
    assert result.structured_content == data
    assert result.content == [types.TextContent(type="text", text='{"name":"café","title":null,"tags":["a","b"]}')]
    assert compact_json(data) == json.dumps(data, ensure_ascii=False, separators=(",", ":"))


def test_an_unexpected_failure_names_the_tool_and_the_exception_type() -> None:
    result = unexpected_failure("recall", RuntimeError("cursor closed"))
    assert result.is_error is True
    assert result.content == [types.TextContent(type="text", text='Tool "recall" failed: RuntimeError: cursor closed')]


def test_paths_in_an_exception_message_are_blanked_out() -> None:
    reason = short_reason(OSError(13, "Permission denied", "/home/ann/.memesh/knowledge-graph.db"))
    assert reason == "PermissionError: [Errno 13] Permission denied: '<path>'"
    assert short_reason(ValueError(r"bad C:\Users\ann\db and ~/x/y")) == "ValueError: bad <path> and <path>"


def test_words_with_slashes_are_not_mistaken_for_paths() -> None:
    assert short_reason(ValueError("read/write conflict")) == "ValueError: read/write conflict"


def test_an_exception_without_a_message_is_named_by_its_type() -> None:
    assert short_reason(KeyError()) == "KeyError"


@given(st.text(), st.lists(st.text(alphabet="abcdefgh.-_", min_size=1), min_size=1))
def test_a_reason_is_one_short_line_without_the_path_it_was_given(text: str, parts: list[str]) -> None:
    path = "/" + "/".join(parts)
    reason = short_reason(RuntimeError(f"{text} {path}"))
    assert "\n" not in reason
    assert "\r" not in reason
    assert len(reason) <= REASON_MAX
    assert f" {path}" not in reason


def test_a_quoted_path_with_spaces_is_blanked_whole() -> None:
    reason = short_reason(FileNotFoundError(2, "No such file or directory", "/home/ann lee/my notes/db.sqlite"))
    assert reason == "FileNotFoundError: [Errno 2] No such file or directory: '<path>'"
