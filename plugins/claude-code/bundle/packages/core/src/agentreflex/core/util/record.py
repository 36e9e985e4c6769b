"""Records: dataclass-shaped value classes that cost almost nothing to define.

Why not ``dataclasses``: a hook is a new process on every tool call, so class
definition time is paid every call. On this project's 2-core machines,
importing ``dataclasses`` (it pulls in ``inspect``, ``ast``, ``dis``,
``tokenize``) and processing the ~55 classes a PreToolUse hook defines took
about 35 ms of a 120 ms hook call: 3.5x a bare interpreter start on its own
(``tools/bench_hook.py``). ``dataclasses`` writes and ``exec``s fresh source
for every class; ``record`` attaches one shared generic ``__init__`` instead.

It does only what this code base uses: positional or keyword ``__init__`` with
defaults and ``field(default_factory=...)``, ``__eq__``, ``__repr__``,
``frozen=True`` (immutable and hashable), inheritance, ``replace`` and
``asdict``. Type checkers see records as dataclasses (PEP 681
``dataclass_transform``), so constructor calls stay fully checked.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any, TypeVar, dataclass_transform, overload

    T = TypeVar("T")


__all__ = ["FrozenRecordError", "asdict", "field", "fields", "record", "replace"]


class FrozenRecordError(AttributeError):
    """Raised on assignment to a field of a ``frozen=True`` record."""


_MISSING: Any = object()


class _Field:
    """What ``field()`` returns: a default or a factory, and whether to show it."""

    __slots__ = ("default", "factory", "repr")

    def __init__(self, default: Any, factory: Any, repr: bool) -> None:
        self.default = default
        self.factory = factory
        self.repr = repr


def field(
    *, default: Any = _MISSING, default_factory: Callable[[], Any] = _MISSING, repr: bool = True
) -> Any:
    """A field's default value or factory, as ``dataclasses.field`` takes them."""
    if default is not _MISSING and default_factory is not _MISSING:
        raise ValueError("field() takes a default or a default_factory, not both")
    return _Field(default, default_factory, repr)


class _Spec:
    """A record class's fields in ``__init__`` order, with their defaults."""

    __slots__ = ("defaults", "factories", "frozen", "hidden", "names", "plan")

    def __init__(self, names: tuple[str, ...], frozen: bool) -> None:
        self.names = names
        self.frozen = frozen
        self.defaults: dict[str, Any] = {}
        self.factories: dict[str, Callable[[], Any]] = {}
        self.hidden: set[str] = set()
        self.plan: tuple[tuple[str, str, Any], ...] = ()


def _own_fields(cls: type) -> list[str]:
    """Field names annotated on ``cls`` itself, ClassVars excluded."""
    # own annotations only, and without importing inspect (the point of this module)
    annotations = cls.__dict__.get("__annotations__", {})  # noqa: RUF063
    names = []
    for name, annotation in annotations.items():
        text = annotation if isinstance(annotation, str) else getattr(annotation, "__name__", "")
        if not text.startswith(("ClassVar", "typing.ClassVar")):
            names.append(name)
    return names


def _build_spec(cls: type, frozen: bool) -> _Spec:
    inherited: list[str] = []
    base_specs = [
        b.__dict__["__record__"] for b in reversed(cls.__mro__[1:]) if "__record__" in b.__dict__
    ]
    for base in base_specs:
        inherited.extend(n for n in base.names if n not in inherited)
    own = _own_fields(cls)
    spec = _Spec(tuple(inherited + [n for n in own if n not in inherited]), frozen)
    for base in base_specs:
        spec.defaults.update(base.defaults)
        spec.factories.update(base.factories)
        spec.hidden |= base.hidden
    for name in own:
        value = cls.__dict__.get(name, _MISSING)
        spec.defaults.pop(name, None)
        spec.factories.pop(name, None)
        if isinstance(value, _Field):
            if value.default is not _MISSING:
                spec.defaults[name] = value.default
            elif value.factory is not _MISSING:
                spec.factories[name] = value.factory
            if not value.repr:
                spec.hidden.add(name)
            delattr(cls, name)
        elif value is not _MISSING:
            spec.defaults[name] = value
    _check_order(cls, spec)
    spec.plan = tuple(_plan_entry(spec, name) for name in spec.names)
    return spec


_REQUIRED, _DEFAULT, _FACTORY = "required", "default", "factory"


def _plan_entry(spec: _Spec, name: str) -> tuple[str, str, Any]:
    """How ``__init__`` fills one field when the caller leaves it out."""
    if name in spec.defaults:
        return name, _DEFAULT, spec.defaults[name]
    if name in spec.factories:
        return name, _FACTORY, spec.factories[name]
    return name, _REQUIRED, None


def _check_order(cls: type, spec: _Spec) -> None:
    seen_default = False
    for name in spec.names:
        has_default = name in spec.defaults or name in spec.factories
        if seen_default and not has_default:
            raise TypeError(f"{cls.__name__}: non-default field {name!r} follows a default one")
        seen_default = seen_default or has_default


def _init(self: Any, *args: Any, **kwargs: Any) -> None:
    spec: _Spec = type(self).__record__
    if args:
        if len(args) > len(spec.names):
            raise TypeError(
                f"{type(self).__name__}() takes {len(spec.names)} arguments, got {len(args)}"
            )
        for name, value in zip(spec.names, args, strict=False):
            if name in kwargs:
                raise TypeError(f"{type(self).__name__}() got two values for {name!r}")
            kwargs[name] = value
    values = self.__dict__  # written directly: a frozen record's __setattr__ refuses
    for name, kind, fallback in spec.plan:
        value = kwargs.pop(name, _MISSING)
        if value is _MISSING:
            if kind is _DEFAULT:
                value = fallback
            elif kind is _FACTORY:
                value = fallback()
            else:
                raise TypeError(f"{type(self).__name__}() missing argument {name!r}")
        values[name] = value
    if kwargs:
        raise TypeError(f"{type(self).__name__}() got unexpected arguments {sorted(kwargs)}")


def _values(self: Any) -> tuple[Any, ...]:
    return tuple(getattr(self, name) for name in type(self).__record__.names)


def _eq(self: Any, other: object) -> bool:
    if other.__class__ is not self.__class__:
        return NotImplemented  # type: ignore[no-any-return]
    return _values(self) == _values(other)


def _repr(self: Any) -> str:
    spec: _Spec = type(self).__record__
    shown = ", ".join(f"{n}={getattr(self, n)!r}" for n in spec.names if n not in spec.hidden)
    return f"{type(self).__qualname__}({shown})"


def _hash(self: Any) -> int:
    return hash(_values(self))


def _frozen_setattr(self: Any, name: str, value: Any) -> None:
    raise FrozenRecordError(f"cannot assign to field {name!r} of a frozen {type(self).__name__}")


def _frozen_delattr(self: Any, name: str) -> None:
    raise FrozenRecordError(f"cannot delete field {name!r} of a frozen {type(self).__name__}")


def _decorate(cls: type, frozen: bool) -> type:
    cls.__record__ = _build_spec(cls, frozen)  # type: ignore[attr-defined]
    cls.__init__ = _init  # type: ignore[misc]
    cls.__eq__ = _eq  # type: ignore[method-assign,assignment]
    cls.__repr__ = _repr  # type: ignore[method-assign,assignment]
    if frozen:
        cls.__setattr__ = _frozen_setattr  # type: ignore[method-assign,assignment]
        cls.__delattr__ = _frozen_delattr  # type: ignore[method-assign,assignment]
        cls.__hash__ = _hash  # type: ignore[method-assign,assignment]
    else:
        cls.__hash__ = None  # type: ignore[method-assign,assignment]
    return cls


if TYPE_CHECKING:

    @overload
    @dataclass_transform(field_specifiers=(field,))
    def record(cls: type[T], /) -> type[T]: ...

    @overload
    def record(*, frozen: bool = False) -> Callable[[type[T]], type[T]]: ...


def record(cls: Any = None, /, *, frozen: bool = False) -> Any:
    """Make ``cls`` a record; use as ``@record`` or ``@record(frozen=True)``."""
    if cls is None:
        return lambda inner: _decorate(inner, frozen)
    return _decorate(cls, frozen)


def fields(obj: object) -> tuple[str, ...]:
    """The field names of a record (instance or class), in ``__init__`` order."""
    spec: _Spec = obj.__record__  # type: ignore[attr-defined]
    return spec.names


def replace(obj: T, /, **changes: Any) -> T:
    """A copy of record ``obj`` with ``changes`` applied, as ``dataclasses.replace``."""
    values = {name: getattr(obj, name) for name in fields(obj)}
    values.update(changes)
    return type(obj)(**values)


def asdict(obj: Any) -> Any:
    """Plain data from a record, recursing into records, lists, tuples and dicts."""
    if hasattr(type(obj), "__record__"):
        return {name: asdict(getattr(obj, name)) for name in fields(obj)}
    if isinstance(obj, list | tuple):
        return type(obj)(asdict(item) for item in obj)
    if isinstance(obj, dict):
        return {key: asdict(value) for key, value in obj.items()}
    return obj
