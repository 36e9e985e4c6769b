"""Reading a command's argument list: the values of its options and its operands.

Both :mod:`changes` (what a command writes) and :mod:`envinstall` (installers
pointed at the hook's own Python) need to read options the same way, and
``changes`` imports ``envinstall``; a module of their own lets both share one
reading without a circular import.
"""

from __future__ import annotations

__all__ = ["operands", "option_values"]


def operands(args: list[str], takes_value: frozenset[str] = frozenset()) -> list[str]:
    """Non-option arguments, skipping the values of options in ``takes_value``."""
    out: list[str] = []
    i = 0
    ended = False
    while i < len(args):
        a = args[i]
        if ended or a == "-" or not a.startswith("-"):
            out.append(a)
        elif a == "--":
            ended = True
        elif a in takes_value:
            i += 1
        i += 1
    return out


def option_values(args: list[str], names: tuple[str, ...]) -> list[str]:
    """Every value of the options ``names`` (``-o X``, ``-oX``, ``--output=X``)."""
    out: list[str] = []
    for i, a in enumerate(args):
        if a == "--":
            break
        for name in names:
            if a == name and i + 1 < len(args):
                out.append(args[i + 1])
            elif name.startswith("--") and a.startswith(name + "="):
                out.append(a[len(name) + 1 :])
            elif not name.startswith("--") and a.startswith(name) and len(a) > len(name):
                out.append(a[len(name) :])
    return out
