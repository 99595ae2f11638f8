"""The patterns compiled on first use, and the ASCII shortcuts in front of them, answer exactly as the regular
expressions they replaced did (compiled here at once, as the modules did before)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from memesh.core import clean, messages, terms
from memesh.core.lazy_pattern import LazyPattern, plain_ascii
from memesh.transports.cli import terminal

# The patterns as the modules compiled them at import, before the shortcuts.
UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
UNSAFE_IN_A_LINE = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")
CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
INVISIBLE = re.compile("[\u00ad\u034f\u061c\u180e\u200b-\u200f\u2060-\u2064\ufeff]")
UNSEEN = "\\s\x00-\x1f\x7f-\x9f\u00ad\u034f\u061c\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff"
EDGES = re.compile(f"^[{UNSEEN}]+|[{UNSEEN}]+$")
INSIDE = re.compile(f"[{UNSEEN}]")
CJK_RUN = re.compile(f"[{terms._CJK_CLASS}]+")

# ASCII (controls, whitespace and printable alike) mixed with the characters the patterns are about.
TEXT = st.text(
    alphabet=st.one_of(
        st.characters(max_codepoint=0x7F),
        st.sampled_from("\x85\x9f\u00a0\u00ad\u034f\u2028\u2029\u202a\u202e\u2066\u2069\u200b\ufeff\u3000é"),
        st.sampled_from("認証方式한국어カタカナ\U00020001"),
    ),
    max_size=40,
)


def _escaped(match: re.Match[str]) -> str:
    return f"\\u{ord(match.group()):04x}"


@given(TEXT)
def test_terminal_output_is_escaped_exactly_as_before(text: str) -> None:
    before = "\r" + UNSAFE.sub(_escaped, text[1:]) if text.startswith("\r") else UNSAFE.sub(_escaped, text)
    assert terminal.safe(text) == before
    assert terminal.one_line(text) == UNSAFE_IN_A_LINE.sub(_escaped, text)


@given(TEXT)
def test_stored_text_is_cleaned_exactly_as_before(text: str) -> None:
    stripped = CONTROL.sub("", text.replace("\r\n", "\n"))
    assert clean.strip_controls(text) == stripped
    assert clean._visible(text) == INVISIBLE.sub("", stripped)
    assert (INVISIBLE.search(text) is not None) == (not text.isascii() and clean._INVISIBLE.search(text) is not None)


@given(TEXT)
def test_message_scopes_are_read_exactly_as_before(text: str) -> None:
    import unicodedata

    expected = unicodedata.normalize("NFC", text)
    while (trimmed := unicodedata.normalize("NFC", EDGES.sub("", expected))) != expected:
        expected = trimmed
    assert messages.scope_text(text) == expected
    assert messages.seen(text) == INSIDE.sub("", text)


@given(TEXT)
def test_search_terms_are_made_exactly_as_before(text: str) -> None:
    before = CJK_RUN.sub(lambda m: " " + " ".join(terms._bigrams(m.group())) + " ", text)
    assert terms.segment(text) == before
    assert all(terms.is_cjk_char(ch) == (CJK_RUN.fullmatch(ch) is not None) for ch in text)


@given(st.text(max_size=30))
def test_plain_ascii_is_ascii_without_a_control_character(text: str) -> None:
    controls = [ch for ch in text if ord(ch) < 0x20 or ord(ch) == 0x7F]
    assert plain_ascii(text) == (text.isascii() and not controls)
    assert plain_ascii(text, tab_newline=True) == (text.isascii() and all(ch in "\t\n" for ch in controls))


def test_a_lazy_pattern_compiles_once_on_first_use() -> None:
    pattern = LazyPattern("[\u2066-\u2069]+", re.IGNORECASE)
    assert pattern._compiled is None
    assert pattern.sub("", "a\u2066b") == "ab" and pattern.search("x") is None
    assert pattern.compiled is pattern.compiled and pattern.compiled.flags & re.IGNORECASE


def test_an_ascii_recall_and_remember_compile_none_of_the_wide_patterns(tmp_path: Path) -> None:
    code = (
        "from memesh.core import clean, messages, storable, terms\n"
        "from memesh.transports.cli import terminal\n"
        "terms.query_terms('auth cache'); terms.segment('the auth cache'); clean.clean_text('a note\\twith tab\\n')\n"
        "messages.scope_text('reviewer'); messages.seen('demo'); terminal.safe('{\"a\": 1}\\n')\n"
        "lazy = [terms._CJK_RUN, clean._CONTROL, clean._INVISIBLE, messages._EDGES, messages._INSIDE,\n"
        "        terminal._UNSAFE, terminal._UNSAFE_IN_A_LINE, storable._SURROGATE]\n"
        "print(sum(p._compiled is not None for p in lazy))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=tmp_path)
    assert done.stdout.strip() == "0"


SURROGATE = re.compile("[\ud800-\udfff]")
CONTROL_RUN = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]+")


@given(st.one_of(TEXT, st.text(alphabet=st.sampled_from("ab\r\n\t\ud800\udfff\x0b"), max_size=12)))
def test_briefing_text_and_storable_text_are_made_exactly_as_before(text: str) -> None:
    from memesh.core import briefing_text, storable

    assert briefing_text.strip_control_chars(text) == CONTROL_RUN.sub(" ", text)
    assert storable.to_storable(text) == SURROGATE.sub("\ufffd", text)
