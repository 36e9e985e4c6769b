"""Regular expressions compiled on first use, and skipped on text that cannot match.

Why: ``re`` has no cache that outlives a process, and a hook is a new process on
every tool call. Compiling the ~140 patterns the reflexes define took about
22 ms of a 120 ms PreToolUse hook call on this project's machines, although a
typical call needs a handful of them (``tools/bench_hook.py``). A
``LazyPattern`` is declared at module level exactly like ``re.compile(...)``
and compiles the first time a method needs it.

``hints`` go further: space-separated literal words, one of which every match
of the pattern contains. Text holding none of them cannot match, so the
pattern answers "no match" without compiling or scanning. With
``re.IGNORECASE`` the hints and the text are case-folded before comparing. :func:`hints_cover` proves a pattern's hints from its parsed form; the
workspace test ``tests/test_pattern_hints.py`` runs it on every hinted pattern.
"""

from __future__ import annotations

import re
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterator
    from typing import Any

__all__ = ["LazyPattern", "fold", "hints_cover"]


class LazyPattern:
    """A regex with the ``re.Pattern`` methods this code base uses, compiled lazily."""

    __slots__ = ("_compiled", "_fold", "flags", "hints", "pattern")

    def __init__(self, pattern: str, flags: int | re.RegexFlag = 0, hints: str = "") -> None:
        self.pattern = pattern
        self.flags = int(flags)
        self._fold = bool(self.flags & re.IGNORECASE) or _inline_ignorecase(pattern)
        words = hints.split()
        if self._fold and not hints.isascii():
            raise ValueError("hints of a case-insensitive pattern must be ASCII")
        self.hints = tuple(w.casefold() for w in words) if self._fold else tuple(words)
        self._compiled: re.Pattern[str] | None = None

    @property
    def compiled(self) -> re.Pattern[str]:
        """The compiled ``re.Pattern`` (compiled now if it was not yet)."""
        if self._compiled is None:
            self._compiled = re.compile(self.pattern, self.flags)
        return self._compiled

    def possible(self, string: str, folded: str | None = None) -> bool:
        """False when ``string`` holds none of the hints, so no match is possible.

        ``folded`` is ``fold(string)`` when the caller has it already
        (one text tried against many patterns).
        """
        if not self.hints:
            return True
        # fold(), not lower(): it also maps the letters re.IGNORECASE equates with
        # ASCII ones (the long s, the Kelvin sign, the Turkish i), so it only widens
        if not self._fold:
            return any(hint in string for hint in self.hints)
        text = fold(string) if folded is None else folded
        return any(hint in text for hint in self.hints)

    def search(self, string: str, pos: int = 0, endpos: int = sys.maxsize) -> re.Match[str] | None:
        return self.compiled.search(string, pos, endpos) if self.possible(string) else None

    def match(self, string: str, pos: int = 0, endpos: int = sys.maxsize) -> re.Match[str] | None:
        return self.compiled.match(string, pos, endpos) if self.possible(string) else None

    def fullmatch(
        self, string: str, pos: int = 0, endpos: int = sys.maxsize
    ) -> re.Match[str] | None:
        return self.compiled.fullmatch(string, pos, endpos) if self.possible(string) else None

    def finditer(
        self, string: str, pos: int = 0, endpos: int = sys.maxsize
    ) -> Iterator[re.Match[str]]:
        if not self.possible(string):
            return iter(())
        return self.compiled.finditer(string, pos, endpos)

    def findall(self, string: str, pos: int = 0, endpos: int = sys.maxsize) -> list[Any]:
        return self.compiled.findall(string, pos, endpos) if self.possible(string) else []

    def sub(self, repl: str | Callable[[re.Match[str]], str], string: str, count: int = 0) -> str:
        return self.compiled.sub(repl, string, count) if self.possible(string) else string

    def subn(
        self, repl: str | Callable[[re.Match[str]], str], string: str, count: int = 0
    ) -> tuple[str, int]:
        return self.compiled.subn(repl, string, count) if self.possible(string) else (string, 0)

    def split(self, string: str, maxsplit: int = 0) -> list[str | Any]:
        return self.compiled.split(string, maxsplit) if self.possible(string) else [string]

    def __repr__(self) -> str:
        return f"LazyPattern({self.pattern!r}, {self.flags}, hints={' '.join(self.hints)!r})"


# re.IGNORECASE matches U+0130 (capital I with dot) and U+0131 (dotless i)
# with "i", which casefold() leaves as "i" + U+0307 and U+0131: they are mapped
# first. No other character needs it (tests/test_lazyre.py checks them all).
_I_TWINS = {0x130: "i", 0x131: "i"}


def fold(text: str) -> str:
    """``text`` case-folded so that every match under re.IGNORECASE of an ASCII word shows."""
    if not text.isascii():
        text = text.translate(_I_TWINS)
    return text.casefold()


def _inline_ignorecase(pattern: str) -> bool:
    """Whether ``pattern`` opens with global inline flags that include ``i``, as ``(?im)``."""
    if not pattern.startswith("(?"):
        return False
    end = pattern.find(")")
    flags = pattern[2:end]
    return end > 2 and flags.isalpha() and "i" in flags


def hints_cover(pattern: LazyPattern) -> bool:
    """Whether every match of ``pattern`` must contain one of its hints (proved, not sampled).

    Walks the parsed pattern: a run of literals spelling a hint covers it, as
    does a group, a repeat of at least one, or an alternation whose every
    branch is covered. Sufficient, not necessary: ``False`` means "not
    proved". For tests and tools; it imports the regex parser.
    """
    from re import _parser  # type: ignore[attr-defined]

    if not pattern.hints:
        return False
    parsed = _parser.parse(pattern.pattern, pattern.flags)
    if bool(parsed.state.flags & re.IGNORECASE) != pattern._fold:
        return False
    return _covered(parsed, pattern.hints, pattern._fold)


def _covered(seq: Any, hints: tuple[str, ...], fold: bool, prefix: str = "") -> bool:
    """Whether every match of parsed ``seq``, after literal text ``prefix``, holds a hint.

    The prefix carries a literal run into groups and alternations, because
    the parser factors common prefixes out of alternatives (``--pass|--token``
    becomes ``--`` then ``pass|token``).
    """
    from re import _constants as c  # type: ignore[attr-defined]

    run = prefix
    for op, av in seq:
        if op == c.LITERAL:
            run += chr(av).casefold() if fold else chr(av)
            if any(hint in run for hint in hints):
                return True
            continue
        if op == c.AT:  # \b, ^ and $ match no text: the literal run goes on
            continue
        if op == c.IN and _class_covered(av, hints, fold, run):
            return True
        if _group_covered(op, av, hints, fold, run):
            return True
        run = ""
    return False


def _group_covered(op: Any, av: Any, hints: tuple[str, ...], fold: bool, run: str) -> bool:
    """Whether a group, an alternation or a repeat of at least one is covered."""
    from re import _constants as c  # type: ignore[attr-defined]

    if op == c.SUBPATTERN:
        scoped_fold = bool(av[1] & re.IGNORECASE) and not fold
        return not scoped_fold and _covered(av[-1], hints, fold, run)
    if op == c.BRANCH:
        return all(_covered(branch, hints, fold, run) for branch in av[1])
    if op in (c.MAX_REPEAT, c.MIN_REPEAT, c.POSSESSIVE_REPEAT):
        return bool(av[0] >= 1) and _covered(av[2], hints, fold, run)
    return False


def _class_covered(items: Any, hints: tuple[str, ...], fold: bool, run: str) -> bool:
    """Whether a class of plain characters (``[ab]``) completes a hint with every one."""
    from re import _constants as c  # type: ignore[attr-defined]

    if not items or any(op != c.LITERAL for op, _ in items):
        return False
    chars = [chr(v).casefold() if fold else chr(v) for _, v in items]
    return all(any(hint in run + ch for hint in hints) for ch in chars)
