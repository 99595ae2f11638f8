"""memesh.records.dataclass: the standard dataclass, made when the first instance is — never anything else."""

from __future__ import annotations

import dataclasses
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from memesh.records import dataclass, made


def _pair(**arguments: Any) -> tuple[type, type]:
    """The same class body under the standard decorator and under the deferred one."""

    def body() -> type:
        class Point:
            """A point."""

            x: int
            y: int = 0
            tags: list[str] = dataclasses.field(default_factory=list)

        return Point

    return dataclasses.dataclass(**arguments)(body()), dataclass(**arguments)(body())


@pytest.mark.parametrize(
    "arguments", [{}, {"frozen": True}, {"frozen": True, "eq": False}, {"frozen": True, "kw_only": True}]
)
def test_instances_behave_exactly_as_the_standard_decorators(arguments: dict[str, Any]) -> None:
    standard, deferred = _pair(**arguments)
    kwargs = {"x": 1, "y": 2, "tags": ["a"]}
    a, b = standard(**kwargs), deferred(**kwargs)
    assert repr(a) == repr(b)
    assert [f.name for f in dataclasses.fields(a)] == [f.name for f in dataclasses.fields(b)]
    assert dataclasses.asdict(a) == dataclasses.asdict(b)
    assert (deferred(**kwargs) == b) is (standard(**kwargs) == a)
    assert dataclasses.replace(b, y=5).y == 5
    assert deferred(x=1).tags == [] and deferred(x=1).tags is not deferred(x=1).tags
    if arguments.get("frozen"):
        with pytest.raises(dataclasses.FrozenInstanceError):
            b.x = 3
        assert (hash(deferred(**{**kwargs, "tags": ()})) == hash(standard(**{**kwargs, "tags": ()}))) is bool(
            arguments.get("eq", True)
        )
    if arguments.get("kw_only"):
        with pytest.raises(TypeError):
            deferred(1)
    else:
        assert (deferred(1, 2) == deferred(x=1, y=2)) is (standard(1, 2) == standard(x=1, y=2))
        assert repr(deferred(1, 2)) == repr(deferred(x=1, y=2))


def test_a_class_is_not_made_until_its_first_instance_and_then_it_is_the_standard_dataclass() -> None:
    @dataclass(frozen=True)
    class Late:
        value: str

    assert "__dataclass_fields__" not in vars(Late)  # nothing compiled yet
    assert made(Late) is Late and "__dataclass_fields__" in vars(Late)
    assert Late.__dataclass_params__.frozen  # type: ignore[attr-defined]
    assert Late("a") == Late("a") and Late("a") != Late("b")


def test_a_subclass_made_first_makes_its_bases_and_inherits_their_fields() -> None:
    @dataclass
    class Base:
        a: int

    @dataclass
    class Child(Base):
        b: str = "b"

    child = Child(1)
    assert (child.a, child.b) == (1, "b")
    assert [f.name for f in dataclasses.fields(Child)] == ["a", "b"]
    assert Base(2).a == 2


def test_a_plain_subclass_that_calls_the_deferred_init_gets_it() -> None:
    @dataclass
    class Base:
        a: int

    class Plain(Base):
        def __init__(self) -> None:
            super().__init__(7)
            self.extra = True

    plain = Plain()
    assert plain.a == 7 and plain.extra


def test_threads_making_the_first_instances_at_once_make_the_class_once() -> None:
    @dataclass(frozen=True)
    class Shared:
        n: int

    made_count = 0
    original = dataclasses.dataclass

    def counting(cls: Any = None, /, **arguments: Any) -> Any:
        nonlocal made_count
        made_count += cls is Shared
        return original(cls, **arguments)

    results: list[Shared] = []
    start = threading.Barrier(8)

    def make(n: int) -> None:
        start.wait()
        results.append(Shared(n))

    _eight_threads(make, decorator=counting)
    assert made_count == 1
    assert sorted(result.n for result in results) == list(range(8))


def test_a_class_with_its_own_init_is_refused_at_once() -> None:
    with pytest.raises(TypeError, match="own __init__"):

        @dataclass
        class Own:
            a: int

            def __init__(self) -> None:
                self.a = 1


def test_a_recall_from_the_command_line_makes_only_the_classes_it_uses(tmp_path: Path) -> None:
    """The point of deferring: importing the recall and briefing paths leaves most of their dataclasses unmade."""
    code = (
        "import dataclasses, sys\n"
        "import memesh.app.dispatch, memesh.ops.recall, memesh.store.sqlite, memesh.core.briefing\n"
        "classes = [c for m in list(sys.modules.values()) if (m.__name__ or '').startswith('memesh')\n"
        "           for c in vars(m).values() if isinstance(c, type) and c.__module__ == m.__name__\n"
        "           and '__memesh_dataclass_arguments__' in vars(c)]\n"
        "made = [c for m in list(sys.modules.values()) if (m.__name__ or '').startswith('memesh')\n"
        "        for c in vars(m).values() if isinstance(c, type) and c.__module__ == m.__name__\n"
        "        and dataclasses.is_dataclass(c)]\n"
        "print(len(classes), len(made))\n"
    )
    # From a folder of its own: run from the checkout, `-c` would import the bare memesh/ folder first.
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=tmp_path)
    deferred, already = map(int, done.stdout.split())
    assert deferred >= 10  # the briefing's and the model's classes wait for their first instance
    assert already < deferred


def test_every_dataclass_of_memesh_is_made_by_records() -> None:
    """A standard dataclass inheriting from a deferred one would miss its base's fields, so there is one decorator."""
    root = Path(__file__).resolve().parent.parent
    offenders = [
        str(path.relative_to(root))
        for folder in ("memesh", "transports")
        for path in (root / folder).rglob("*.py")
        if path.name != "records.py"
        and any(_standard_dataclass(line) for line in path.read_text(encoding="utf-8").splitlines())
    ]
    assert offenders == []


def _standard_dataclass(line: str) -> bool:
    if line.startswith("from dataclasses import"):
        return "dataclass" in [name.strip() for name in line.split("import", 1)[1].split(",")]
    return line.strip().startswith("@dataclasses.dataclass")


def test_a_made_class_has_the_standard_signature_docstring_and_params() -> None:
    import inspect

    def body() -> type:
        class Plain:
            a: int
            b: str = "x"

        return Plain

    standard: Any = dataclasses.dataclass(frozen=True)(body())
    deferred: Any = dataclass(frozen=True)(body())
    made(deferred)
    assert inspect.signature(deferred) == inspect.signature(standard)
    assert deferred.__doc__ == standard.__doc__ and deferred.__doc__.startswith("Plain(a: ")
    assert repr(deferred.__dataclass_params__) == repr(standard.__dataclass_params__)
    assert deferred.__init__.__qualname__.endswith("Plain.__init__")


def test_threads_that_find_the_class_being_made_wait_for_it_and_each_get_a_whole_instance() -> None:
    @dataclass(frozen=True)
    class Slow:
        n: int
        tags: list[str] = dataclasses.field(default_factory=list)

    original = dataclasses.dataclass

    def slow(cls: Any = None, /, **arguments: Any) -> Any:
        time.sleep(0.02)  # widen the window in which other threads look the constructor up
        return original(cls, **arguments)

    results: list[Slow] = []
    errors: list[BaseException] = []
    start = threading.Barrier(8)

    def make(n: int) -> None:
        start.wait()
        for k in range(20):
            try:
                results.append(Slow(n * 100 + k))
            except BaseException as exc:  # any failure is the finding
                errors.append(exc)

    _eight_threads(make, decorator=slow)
    assert errors == []
    assert sorted(r.n for r in results) == sorted(n * 100 + k for n in range(8) for k in range(20))
    assert all(r.tags == [] for r in results)


def _eight_threads(make: Any, *, decorator: Any) -> None:
    """`make(0)` … `make(7)` on eight threads at once, `dataclasses.dataclass` replaced by `decorator` meanwhile."""
    original = dataclasses.dataclass
    dataclasses.dataclass = decorator
    try:
        threads = [threading.Thread(target=make, args=(n,)) for n in range(8)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    finally:
        dataclasses.dataclass = original


# --- the recorded method tables (generated/dataclass_methods/, written by tools/codegen.py) ---


def _same_code(a: Any, b: Any) -> bool:
    """Two code objects that run alike: the same bytecode, names and constants (nested code compared alike); only
    where they were compiled from (file name, line numbers) may differ."""
    fields = ("co_code", "co_names", "co_varnames", "co_freevars", "co_cellvars", "co_argcount", "co_flags", "co_name")
    if any(getattr(a, name) != getattr(b, name) for name in fields) or len(a.co_consts) != len(b.co_consts):
        return False
    return all(
        _same_code(x, y) if hasattr(x, "co_code") else (type(x) is type(y) and x == y)
        for x, y in zip(a.co_consts, b.co_consts, strict=True)
    )


def test_every_recorded_method_is_the_code_its_text_compiles_to() -> None:
    import importlib
    import pkgutil

    import memesh.generated.dataclass_methods as package

    tables = [
        importlib.import_module(info.name)
        for info in pkgutil.iter_modules(package.__path__, "memesh.generated.dataclass_methods.")
    ]
    assert len(tables) >= 40
    for table in tables:
        assert sys.version_info[:2] == table.PYTHON  # recorded on the Python that runs the suite
        for text, code in table.CODE.items():
            compiled = next(
                c for c in compile(text, "<string>", "exec", dont_inherit=True).co_consts if hasattr(c, "co_code")
            )
            assert _same_code(code, compiled), f"{table.__name__}: {text.splitlines()[1]}"


def test_classes_made_from_the_tables_compile_no_source(tmp_path: Path) -> None:
    """What a recall and a briefing make: every method comes from the recorded table, nothing is compiled."""
    code = (
        "import sys\n"
        "import memesh.records, memesh.values, memesh.model, memesh.core.briefing, memesh.core.query\n"
        "compiled = []\n"
        "sys.addaudithook(lambda event, args: compiled.append(args[0]) if event == 'compile' else None)\n"
        "classes = [c for m in (memesh.values, memesh.model, memesh.core.briefing, memesh.core.query)\n"
        "           for c in vars(m).values() if isinstance(c, type) and c.__module__ == m.__name__\n"
        "           and '__memesh_dataclass_arguments__' in vars(c)]\n"
        "for c in classes: memesh.records.made(c)\n"
        "print(len(classes), len(compiled))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=tmp_path)
    made_count, compiled = map(int, done.stdout.split())
    assert made_count >= 10
    assert compiled == 0


def _recorded_table(body: Any, **arguments: Any) -> dict[str, Any]:
    """The table tools/codegen.py would record for a class made from `body()`: its method texts, compiled."""
    from memesh import records

    noted: list[tuple[str, str]] = []
    records._recorded = noted
    try:
        made(dataclass(**arguments)(body()))
    finally:
        records._recorded = None
    return {
        text: next(c for c in compile(text, "<string>", "exec", dont_inherit=True).co_consts if hasattr(c, "co_code"))
        for _, text in noted
    }


@pytest.mark.parametrize("arguments", [{}, {"frozen": True}, {"frozen": True, "kw_only": True}, {"eq": False}])
def test_a_class_made_from_a_recorded_table_is_the_standard_dataclass(
    arguments: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    import inspect

    from memesh import records

    def body() -> type:
        class Item:
            name: str
            size: int = 1
            tags: list[str] = dataclasses.field(default_factory=list)

            def __post_init__(self) -> None:
                if self.size < 0:
                    raise ValueError("size")

        return Item

    table = _recorded_table(body, **arguments)
    assert table
    used: list[str] = []
    monkeypatch.setitem(records._tables, __name__, _Counting(table, used))
    standard: Any = dataclasses.dataclass(**arguments)(body())
    deferred: Any = made(dataclass(**arguments)(body()))
    assert set(used) == set(table)  # every method came from the table
    a, b = standard(name="x", size=2, tags=["t"]), deferred(name="x", size=2, tags=["t"])
    assert repr(a).split(".")[-1] == repr(b).split(".")[-1]
    assert dataclasses.asdict(a) == dataclasses.asdict(b)
    assert (b == deferred(name="x", size=2, tags=["t"])) is (a == standard(name="x", size=2, tags=["t"]))
    assert dataclasses.replace(b, size=5).size == 5 and deferred(name="y").tags == []
    assert inspect.signature(deferred) == inspect.signature(standard) and deferred.__doc__ == standard.__doc__
    assert repr(deferred.__dataclass_params__) == repr(standard.__dataclass_params__)
    with pytest.raises(ValueError):
        deferred(name="x", size=-1)
    if arguments.get("frozen"):
        with pytest.raises(dataclasses.FrozenInstanceError):
            b.size = 3
        assert hash(deferred(name="x", tags=())) == hash(standard(name="x", tags=()))
    if arguments.get("kw_only"):
        with pytest.raises(TypeError):
            deferred("x")
    assert deferred.__init__.__globals__ is vars(sys.modules[__name__])  # as `exec` with the module's globals


def test_a_text_missing_from_the_table_is_compiled_by_the_standard_decorator(monkeypatch: pytest.MonkeyPatch) -> None:
    from memesh import records

    monkeypatch.setitem(records._tables, __name__, {"def __create_fn__():\n return None": None})
    standard, deferred = _pair(frozen=True)
    a, b = standard(x=1), deferred(x=1)
    assert repr(a) == repr(b) and hash(deferred(x=1, tags=())) == hash(standard(x=1, tags=()))
    assert dataclasses.fields(b)[0].name == "x"


class _Counting(dict[str, Any]):
    """A table that notes each text it is asked for and has."""

    def __init__(self, table: dict[str, Any], used: list[str]) -> None:
        super().__init__(table)
        self.used = used

    def get(self, key: str, default: Any = None) -> Any:
        if key in self:
            self.used.append(key)
        return super().get(key, default)
