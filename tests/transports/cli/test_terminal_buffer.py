"""What the CLI prints reaches the stream in one filtered write, not one per piece, with the filter's guarantees."""

from __future__ import annotations

import io
import sys

import pytest

from memesh.transports.cli.terminal import HELD_CHARS, SafeStream, terminal_safe, unwrapped


class Recording(io.StringIO):
    """A text stream that keeps each write it was given."""

    def __init__(self, *, line_buffering: bool = False, write_through: bool = False) -> None:
        super().__init__()
        self.writes: list[str] = []
        self.line_buffering_ = line_buffering
        self.write_through = write_through

    @property
    def line_buffering(self) -> bool:
        return self.line_buffering_

    def write(self, text: str) -> int:
        self.writes.append(text)
        return super().write(text)


def test_many_prints_to_a_pipe_reach_it_as_one_filtered_write(monkeypatch: pytest.MonkeyPatch) -> None:
    inner = Recording()
    monkeypatch.setattr(sys, "stdout", inner)
    with terminal_safe():
        for index in range(100):
            print(f"line {index}\x1b]52;c;x\x07")
    assert len(inner.writes) == 1
    assert inner.getvalue() == "".join(f"line {index}\\u001b]52;c;x\\u0007\n" for index in range(100))


def test_a_terminal_gets_each_line_as_it_is_printed_and_stderr_each_write() -> None:
    terminal, stderr = Recording(line_buffering=True), Recording(write_through=True)
    out, err = SafeStream(terminal), SafeStream(stderr)
    out.write("first ")
    assert terminal.writes == []
    out.write("line\n")
    assert terminal.writes == ["first line\n"]
    err.write("a warning\x9b")
    assert stderr.writes == ["a warning\\u009b"]


def test_a_large_output_is_written_in_pieces_of_the_held_size() -> None:
    inner = Recording()
    stream = SafeStream(inner)
    for _ in range(3):
        stream.write("x" * (HELD_CHARS // 2))
    assert [len(text) for text in inner.writes] == [HELD_CHARS]
    stream.flush()
    assert [len(text) for text in inner.writes] == [HELD_CHARS, HELD_CHARS // 2]


def test_a_carriage_return_that_starts_a_write_is_kept_and_any_other_is_escaped() -> None:
    inner = Recording()
    stream = SafeStream(inner)
    stream.write("before\r")
    stream.write("\rredrawn\r")
    stream.flush()
    assert inner.getvalue() == "before\\u000d\rredrawn\\u000d"


def test_a_prompt_is_written_before_the_answer_is_read_and_a_progress_line_after_what_was_held() -> None:
    inner = Recording()
    stream = SafeStream(inner)
    stream.write("Continue? [y/N] ")
    stream.flush()  # what print(..., flush=True) and input() do
    assert inner.writes == ["Continue? [y/N] "]
    stream.write("held")
    raw = unwrapped(stream)  # type: ignore[arg-type]
    raw.write("\r\x1b[K")
    assert inner.writes[-2:] == ["held", "\r\x1b[K"]


def test_what_is_held_when_the_command_ends_reaches_the_stream(monkeypatch: pytest.MonkeyPatch) -> None:
    inner = Recording()
    monkeypatch.setattr(sys, "stdout", inner)
    with pytest.raises(KeyboardInterrupt), terminal_safe():
        print("done so far")
        raise KeyboardInterrupt
    assert inner.getvalue() == "done so far\n"
    assert sys.stdout is inner
