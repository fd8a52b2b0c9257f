"""A base for small immutable records that costs nothing to define (issue 5).

``@dataclass(frozen=True, slots=True)`` builds each class's methods from source at import; this
base has them once, so defining a record is as cheap as defining a plain class.
"""

from __future__ import annotations

from dataclasses import FrozenInstanceError
from operator import attrgetter
from typing import Any, ClassVar

set_field = object.__setattr__
"""How a record's ``__init__`` stores a field past the frozen ``__setattr__``."""


class FrozenRecord:
    """What ``@dataclass(frozen=True, slots=True)`` generates, written once for every record.

    ``dataclass`` compiles six methods from source per class at import, ~0.7 ms a class, and
    every ``ade search`` defines a dozen records (issue 5). Each record lists its fields (two or
    more) in ``__slots__`` and writes its own ``__init__``; equality, hashing, ``repr``,
    immutability, ``__match_args__`` and pickling/copying behave as the dataclass versions did.
    ``__slots__`` is in field order (the order of ``repr``, equality and the constructor).
    """

    __slots__ = ()
    __match_args__: ClassVar[tuple[str, ...]] = ()
    _fields: ClassVar[tuple[str, ...]]
    _values: ClassVar[attrgetter[tuple[Any, ...]]]

    def __init_subclass__(cls) -> None:
        fields: tuple[str, ...] = cls.__dict__["__slots__"]
        if len(fields) < 2:  # attrgetter of one name returns the value, not a 1-tuple
            raise TypeError(f"{cls.__name__}: a FrozenRecord needs two or more fields")
        cls._fields = fields
        cls._values = attrgetter(*fields)
        setattr(cls, "__match_args__", fields)  # noqa: B010 (mypy refuses a plain assignment)

    def __repr__(self) -> str:
        parts = ", ".join(f"{name}={getattr(self, name)!r}" for name in self._fields)
        return f"{type(self).__qualname__}({parts})"

    def __eq__(self, other: object) -> bool:
        if other.__class__ is self.__class__:
            return self._values(self) == self._values(other)
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self._values(self))

    def __setattr__(self, name: str, value: object) -> None:
        raise FrozenInstanceError(f"cannot assign to field {name!r}")

    def __delattr__(self, name: str) -> None:
        raise FrozenInstanceError(f"cannot delete field {name!r}")

    def __getstate__(self) -> tuple[Any, ...]:
        return self._values(self)

    def __setstate__(self, state: tuple[Any, ...]) -> None:
        for name, value in zip(self._fields, state, strict=True):
            set_field(self, name, value)
