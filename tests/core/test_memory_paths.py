"""The memory tool's path space: one spelling per memory, and every refusal in the spec's table."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from returns.result import Failure, Success

from memesh.core.memory_paths import File, Folder, Root, decode_name, encode_name, file_path, parse_path
from memesh.errors import ErrorCode


def refusal(raw: object) -> str:
    match parse_path(raw):
        case Failure(error):
            assert error.code == ErrorCode.BAD_BODY
            return str(error.message)
    raise AssertionError(f"{raw!r} was accepted")


def test_root_and_namespaces_parse_as_directories() -> None:
    assert parse_path("/memories") == Success(Root())
    assert parse_path("/memories/") == Success(Root())
    assert parse_path("/memories/team") == Success(Folder("team"))


def test_a_file_decodes_only_slash_backslash_and_percent() -> None:
    assert parse_path("/memories/personal/Project Apollo.md") == Success(File("personal", "Project Apollo"))
    assert parse_path("/memories/global/a%2Fb%5Cc%25d.md") == Success(File("global", "a/b\\c%d"))
    assert encode_name("a/b\\c%d e") == "a%2Fb%5Cc%25d e"


@given(st.text(st.characters(blacklist_categories=["Cs", "Cc"]), min_size=1, max_size=80))
def test_encoding_a_name_and_decoding_it_gives_the_name_back(name: str) -> None:
    assert decode_name(encode_name(name)) == name


@given(st.text(st.characters(codec="utf-8", blacklist_categories=["Cs", "Cc"]), min_size=1, max_size=60))
def test_every_accepted_file_path_is_the_canonical_spelling_of_its_memory(name: str) -> None:
    match parse_path(file_path("team", name)):
        case Success(File() as where):
            assert where.name == name
            assert where.path == file_path("team", name)
        case Failure(error):  # names remember refuses (blank edges, credentials) are refused here too
            assert error.code == ErrorCode.BAD_BODY


@pytest.mark.parametrize(
    "raw",
    ["/memories-of-you/notes.md", "/etc/passwd", "memories/team/a.md", "/Memories/team/a.md", "", "/"],
)
def test_a_path_not_under_memories_is_refused_without_being_repeated(raw: str) -> None:
    message = refusal(raw)
    if raw not in ("", "/"):
        assert raw not in message


@pytest.mark.parametrize(
    "raw",
    [
        "/memories/team/../personal/a.md",
        "/memories/./team/a.md",
        "/memories//team/a.md",
        "/memories/team/",
        "/memories/team/%2e%2e/a.md",
        "/memories/%2E%2E/a.md",
        "/memories/team/%2e%2E.md",
        "/memories/%2e/a.md",
        "/memories/team\\a.md",
        "/memories/team/a\x00.md",
    ],
)
def test_traversal_empty_segments_backslashes_and_nul_are_refused(raw: str) -> None:
    assert refusal(raw).startswith("Error:")


def test_more_than_two_levels_is_refused() -> None:
    assert "two levels" in refusal("/memories/team/projects/a.md")


def test_an_unknown_namespace_is_refused_naming_the_three() -> None:
    message = refusal("/memories/work/a.md")
    assert all(ns in message for ns in ("personal", "team", "global"))


@pytest.mark.parametrize(
    "raw",
    [
        "/memories/team/a.txt",  # not a memory file
        "/memories/team/.md",  # no name
        "/memories/team/100%.md",  # a bare % is not the spelling of any name
        "/memories/team/a%2fb.md",  # lower-case escape: a second spelling of a%2Fb
        "/memories/team/a%20b.md",  # spaces are written as spaces
        "/memories/team/ padded .md",
        "/memories/team/" + "x" * 256 + ".md",
        "/memories/team/ghp_abcdefghijklmnopqrstuvwxyz0123456789.md",
    ],
)
def test_a_file_name_that_is_not_one_memorys_single_spelling_is_refused(raw: str) -> None:
    assert refusal(raw).startswith("Error:")


@pytest.mark.parametrize("raw", [None, 3, ["/memories"], {"path": "/memories"}])
def test_a_path_that_is_not_a_string_is_refused(raw: object) -> None:
    assert "non-empty string" in refusal(raw)
