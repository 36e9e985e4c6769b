"""Reading a command's argument list: the values of its options and its operands.

Both :mod:`changes` (what a command writes) and :mod:`envinstall` (installers
pointed at the hook's own Python) need to read options the same way, and
``changes`` imports ``envinstall``; a module of their own lets both share one
reading without a circular import.  :mod:`execopts` reads the options that run
a shell command with it too: a value the tool reads but the gate does not is a
command no rule sees, so each caller says how its tool spells a value.
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


def option_values(
    args: list[str],
    names: tuple[str, ...],
    *,
    flags: str = "",
    attached: bool = True,
    short_equals: bool = False,
    prefixes: bool = False,
) -> list[str]:
    """Every value of the options ``names``, up to ``--``.

    Read as getopt reads them: ``--name V`` and ``--name=V``; ``-x V`` and
    ``-xV`` for one letter; ``-name V`` and ``-name=V`` for a longer name with
    one dash (gdb's ``-ex``, zip's ``-TT``).  Each tool's own spelling on top:

    * ``flags``: the letters of its options that take no value, which may come
      first in a cluster (``rsync -avze CMD``, ``sed -ne SCRIPT``);
    * ``attached`` False: a value is never attached (``gdb -exV`` is ``-e xV``);
    * ``short_equals``: ``-x=V`` means ``V``, not ``=V`` (clap: ``uv pip -p=ENV``);
    * ``prefixes``: an abbreviated long name is that option (getopt_long and
      optparse: ``tar --to-comm=CMD``).  Without the tool's whole option list an
      ambiguous prefix is read too: the tool refuses it, so reading it costs nothing.
    """
    out: list[str] = []
    for i, a in enumerate(args):
        if a == "--":
            break
        if not a.startswith("-") or a == "-":
            continue
        for name in names:
            value = _value(a, name, flags, attached, short_equals, prefixes)
            if value == _NEXT and i + 1 < len(args):
                out.append(args[i + 1])
            elif value is not None and value != _NEXT:
                out.append(value)
            if value is not None:
                break
    return out


_NEXT = "\0"  # the value is the next argument (no argument holds a NUL)


def _value(
    arg: str, name: str, flags: str, attached: bool, short_equals: bool, prefixes: bool
) -> str | None:
    """The value ``arg`` gives option ``name`` (:data:`_NEXT`: the next argument's),
    ``None`` when ``arg`` is not ``name``."""
    if len(name) == 2:  # -x, maybe after other flags: -avx
        body = arg[1:].lstrip(flags) if flags and not arg.startswith("--") else arg[1:]
        if arg.startswith("--") or not body.startswith(name[1]):
            return None
        rest = body[1:]
        if short_equals and rest.startswith("="):
            rest = rest[1:]
        return (rest if attached else None) if rest else _NEXT
    stem, equals, value = arg.partition("=")
    if stem == name or (prefixes and _abbreviates(stem, name)):
        return value if equals else _NEXT
    if attached and not name.startswith("--") and arg.startswith(name):
        return arg[len(name) :]  # zip -TTcmd
    return None


def _abbreviates(stem: str, name: str) -> bool:
    """``--to-comm`` for ``--to-command``, ``-eval`` for gdb's ``-eval-command``
    (with one dash, two letters at least: ``-e`` is a short option)."""
    dashes = 2 if name.startswith("--") else 1
    if stem[:dashes] != name[:dashes] or stem[dashes : dashes + 1] == "-":
        return False
    return len(stem) >= dashes + (1 if dashes == 2 else 2) and name.startswith(stem)
