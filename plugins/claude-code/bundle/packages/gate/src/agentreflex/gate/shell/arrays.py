"""Indexed arrays as the walk keeps them in the shell's variables (red-team rt89, rt94).

``a=(X Y)`` is kept as ``a[0]``, ``a[1]``, its count as ``a[#]`` and the whole as
``a[@]``: the elements joined by :data:`FIELD_BREAK`, which word expansion turns back
into one field each (``"${a[@]}"``) and an assignment into spaces (``b="${a[@]}"``),
as bash does (https://www.gnu.org/software/bash/manual/bash.html#Arrays).  ``$a`` is
``a[0]``.  An array whose elements can't all be known has a count of ``UNKNOWN`` and
no elements, so every use of it is unknown.
"""

from __future__ import annotations

from agentreflex.gate.model import UNKNOWN

# Between two elements of ``a[@]``: a field ends there however the word is quoted.
FIELD_BREAK = "\x03"
MAX_ITEMS = 64  # an array of more elements is not followed


def elements(env: dict[str, str], name: str) -> list[str] | None:
    """``name``'s elements (a scalar is an array of one, an unset name of none: bash
    exports no arrays); ``None`` when they are not known."""
    count = env.get(name + "[#]")
    if count is None:
        return [env[name]] if name in env else []
    if not count.isdigit():
        return None
    items = [env.get(f"{name}[{k}]") for k in range(int(count))]
    return None if any(i is None for i in items) else [i for i in items if i is not None]


def set_elements(env: dict[str, str], name: str, items: list[str] | None) -> None:
    """Make ``name`` the array of ``items`` (``None``: elements not known)."""
    for old in [v for v in env if v.startswith(name + "[")]:
        del env[old]
    if items is None or len(items) > MAX_ITEMS:
        env[name + "[#]"] = env[name + "[@]"] = env[name] = UNKNOWN
        return
    for k, item in enumerate(items):
        env[f"{name}[{k}]"] = item
    env[name + "[#]"] = str(len(items))
    # no elements is no field at all, which a word's text can't say: unknown
    env[name + "[@]"] = FIELD_BREAK.join(items) if items else UNKNOWN
    env[name] = items[0] if items else ""


def set_element(env: dict[str, str], name: str, index: int | None, value: str) -> None:
    """``a[N]=value``: element N set, or the next one added; a gap left (sparse array)
    or an index not known makes the array unknown."""
    items = elements(env, name)
    if items is None or index is None:
        set_elements(env, name, None)
        return
    if index < 0:
        index += len(items)
    if 0 <= index < len(items):
        items[index] = value
    elif index == len(items):
        items.append(value)
    else:
        items = None
    set_elements(env, name, items)


def element(env: dict[str, str], name: str, index: int | None) -> str:
    """``${a[N]}``: a negative N counts from the end (bash); past the end is unset, read
    as unknown, as an unset name is."""
    items = elements(env, name)
    if items is None or index is None:
        return UNKNOWN
    if index < 0:
        index += len(items)
    return items[index] if 0 <= index < len(items) else UNKNOWN
