"""Indexed arrays as the walk keeps them in the shell's variables (red-team rt89, rt94,
rt102).

``a=(X Y)`` is kept as ``a[0]``, ``a[1]``, its set indices as ``a[!]`` (``"0 1"``), its
count as ``a[#]`` and the whole as ``a[@]``: the elements joined by
:data:`FIELD_BREAK`, which word expansion turns back into one field each
(``"${a[@]}"``) and an assignment into spaces (``b="${a[@]}"``), as bash does
(https://www.gnu.org/software/bash/manual/bash.html#Arrays).  An array may have gaps
(``a[5]=x``, ``a=([3]=x)``, ``unset 'a[1]'``): ``a[@]`` is then the set elements in
index order, a negative index counts from one past the largest set index, and ``+=``
appends after it, as bash does.  ``$a`` is ``a[0]``.  An element not set reads as
unknown, as an unset name does.  An array whose elements can't all be known has a
count of ``UNKNOWN`` and no elements, so every use of it is unknown.
"""

from __future__ import annotations

from agentreflex.gate.model import UNKNOWN

# Between two elements of ``a[@]``: a field ends there however the word is quoted.
FIELD_BREAK = "\x03"
MAX_ITEMS = 64  # an array of more elements is not followed


def table(env: dict[str, str], name: str) -> dict[int, str] | None:
    """``name``'s elements by index (a scalar is an array of one, an unset name of none:
    bash exports no arrays); ``None`` when they are not known."""
    count = env.get(name + "[#]")
    if count is None:
        return {0: env[name]} if name in env else {}
    if not count.isdigit():
        return None
    keys = env.get(name + "[!]", "").split()
    items = {int(k): env.get(f"{name}[{k}]") for k in keys}
    known = {k: v for k, v in items.items() if v is not None}
    return known if len(known) == len(items) else None


def elements(env: dict[str, str], name: str) -> list[str] | None:
    """``name``'s elements in index order (``"${a[@]}"``); ``None`` when not known."""
    items = table(env, name)
    return None if items is None else [items[k] for k in sorted(items)]


def indices(env: dict[str, str], name: str) -> list[str] | None:
    """``name``'s set indices in order (``"${!a[@]}"``); ``None`` when not known."""
    items = table(env, name)
    return None if items is None else [str(k) for k in sorted(items)]


def set_elements(env: dict[str, str], name: str, items: list[str] | None) -> None:
    """Make ``name`` the array of ``items`` from index 0 (``None``: not known)."""
    set_table(env, name, None if items is None else dict(enumerate(items)))


def set_table(env: dict[str, str], name: str, items: dict[int, str] | None) -> None:
    """Make ``name`` the array of ``items`` by index (``None``: elements not known)."""
    for old in [v for v in env if v.startswith(name + "[")]:
        del env[old]
    if items is None or len(items) > MAX_ITEMS:
        env[name + "[#]"] = env[name + "[@]"] = env[name] = UNKNOWN
        return
    keys = sorted(items)
    for k in keys:
        env[f"{name}[{k}]"] = items[k]
    env[name + "[#]"] = str(len(keys))
    env[name + "[!]"] = " ".join(str(k) for k in keys)
    # no elements is no field at all, which a word's text can't say: unknown
    env[name + "[@]"] = FIELD_BREAK.join(items[k] for k in keys) if keys else UNKNOWN
    env[name] = items.get(0, UNKNOWN)


def next_index(items: dict[int, str]) -> int:
    """Where ``a+=(X)`` puts X: one past the largest set index (bash's manual)."""
    return max(items) + 1 if items else 0


def _absolute(items: dict[int, str], index: int | None) -> int | None:
    """``index`` with a negative one counted from one past the largest set index;
    ``None`` where bash refuses it (``bad array subscript``) or it is not known."""
    if index is not None and index < 0:
        index += next_index(items)
    return None if index is None or index < 0 else index


def set_element(env: dict[str, str], name: str, index: int | None, value: str) -> None:
    """``a[N]=value``: element N set (a gap may be left before it); an index not known
    makes the array unknown."""
    items = table(env, name)
    at = None if items is None else _absolute(items, index)
    if items is not None and at is not None:
        items[at] = value
    set_table(env, name, None if at is None else items)


def added(env: dict[str, str], name: str, index: int | None, value: str) -> str:
    """``a[N]+=value``'s new element N: its old value then ``value``; an element not set
    of an array the command set is empty, as in bash (a name it didn't set may be the
    agent shell's: unknown)."""
    items = table(env, name) if name in env else None
    at = None if items is None else _absolute(items, index)
    return UNKNOWN if items is None or at is None else items.get(at, "") + value


def unset_element(env: dict[str, str], name: str, index: int | None) -> None:
    """``unset 'a[N]'``: element N removed, the others keeping their indices."""
    items = table(env, name)
    at = None if items is None else _absolute(items, index)
    if items is not None and at is not None:
        items.pop(at, None)
    set_table(env, name, None if at is None else items)


def element(env: dict[str, str], name: str, index: int | None) -> str:
    """``${a[N]}``: a negative N counts from one past the largest set index (bash); an
    element not set is read as unknown, as an unset name is."""
    items = table(env, name)
    at = None if items is None else _absolute(items, index)
    return UNKNOWN if items is None or at is None else items.get(at, UNKNOWN)
