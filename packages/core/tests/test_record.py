"""Records behave like the dataclasses they replace, for what this code base uses."""

from __future__ import annotations

import subprocess
import sys
from typing import ClassVar

import pytest
from agentreflex.core.util.record import FrozenRecordError, asdict, field, fields, record, replace


@record(frozen=True)
class Point:
    x: int
    y: int = 0
    label: str = field(default="", repr=False)
    KIND: ClassVar[str] = "point"


@record
class Bag:
    name: str
    items: list[int] = field(default_factory=list)
    origin: Point = field(default_factory=lambda: Point(0))


@record
class Child(Bag):
    extra: bool = False


def test_init_positional_keyword_and_defaults() -> None:
    assert (Point(1).x, Point(1).y) == (1, 0)
    assert Point(1, 2) == Point(x=1, y=2)
    assert Point.KIND == "point" and "KIND" not in fields(Point)


def test_factories_give_fresh_values() -> None:
    first, second = Bag("a"), Bag("b")
    first.items.append(1)
    assert second.items == [] and first.origin is not second.origin


@pytest.mark.parametrize(
    ("args", "kwargs", "message"),
    [
        ((), {}, "missing argument 'x'"),
        ((1, 2, "l", 4), {}, "takes 3 arguments"),
        ((1,), {"x": 2}, "two values for 'x'"),
        ((1,), {"z": 2}, "unexpected arguments ['z']"),
    ],
)
def test_bad_arguments_raise_type_error(
    args: tuple[object, ...], kwargs: dict[str, object], message: str
) -> None:
    with pytest.raises(TypeError, match=message.replace("[", r"\[").replace("]", r"\]")):
        Point(*args, **kwargs)  # type: ignore[arg-type]


def test_equality_repr_and_hash() -> None:
    assert Point(1, 2) != Point(1, 3)
    assert Point(1) != Bag("x")
    assert repr(Point(1, 2, "hidden")) == "Point(x=1, y=2)"
    assert len({Point(1), Point(1), Point(2)}) == 2
    with pytest.raises(TypeError):
        hash(Bag("a"))


def test_frozen_refuses_assignment_and_deletion() -> None:
    point = Point(1)
    with pytest.raises(FrozenRecordError):
        point.x = 2  # type: ignore[misc]
    with pytest.raises(AttributeError):
        del point.y  # type: ignore[misc]
    assert point.x == 1


def test_inheritance_appends_fields_in_order() -> None:
    child = Child("c", [1], Point(2), True)
    assert fields(child) == ("name", "items", "origin", "extra")
    assert child.extra is True and Child("d").extra is False


def test_replace_and_asdict() -> None:
    bag = Bag("a", [1], Point(1, 2))
    assert replace(bag, name="b") == Bag("b", [1], Point(1, 2))
    assert replace(Point(1), y=5) == Point(1, 5)
    assert asdict(bag) == {"name": "a", "items": [1], "origin": {"x": 1, "y": 2, "label": ""}}
    with pytest.raises(TypeError):
        replace(Point(1), nope=1)  # type: ignore[call-arg]


def test_non_default_after_default_is_refused() -> None:
    with pytest.raises(TypeError, match="non-default field 'b'"):

        @record
        class Bad:
            a: int = 0
            b: int  # type: ignore[misc]


def test_importing_record_does_not_import_dataclasses_or_typing() -> None:
    code = (
        "import sys; import agentreflex.core.util.record, agentreflex.core.util.lazyre;"
        "print(sorted(m for m in ('dataclasses', 'typing', 'inspect') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
