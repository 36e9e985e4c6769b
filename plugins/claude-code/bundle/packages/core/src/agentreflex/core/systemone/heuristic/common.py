"""What the built-in engine's rules and its reading of constraints share.

The answer levels, the screened pattern, a text's words and whether an action
changes anything are used by :mod:`~agentreflex.core.systemone.heuristic.engine`'s
rules and by :mod:`~agentreflex.core.systemone.heuristic.constraints` alike.
The engine imports the constraints module, so they live here: in the engine
they would make that import circular.
"""

from __future__ import annotations

import re

from agentreflex.core.systemone.heuristic.reader import Facts

__all__ = [
    "HARD",
    "LIKELY",
    "MUTATING",
    "NO",
    "SOFT",
    "UNLIKELY",
    "UNSURE",
    "YES",
    "Screened",
    "mutates",
    "words_of",
]

# The few levels every rule answers with (why so few: the engine's docstring).
YES, LIKELY, UNSURE, UNLIKELY, NO = 0.92, 0.75, 0.5, 0.2, 0.05


class Screened:
    """A case-insensitive pattern behind a cheap screen.

    ``keys`` are lower-case fragments at least one of which every match contains, so text
    holding none of them is answered without running the regex.  Python's ``re`` tries each
    alternative at each position, about 0.15 µs a character for these patterns (a 300-character
    command costs tens of µs per pattern), while ``in`` on a string runs at C speed.  Text
    that is not ASCII always goes to the regex: case-insensitive matching treats a few
    non-ASCII letters (the Kelvin sign, a long s) as ASCII ones, which ``lower()`` does not.
    """

    __slots__ = ("_regex", "keys", "pattern")

    def __init__(self, pattern: str, *keys: str) -> None:
        self.pattern = pattern
        self.keys = keys
        self._regex: re.Pattern[str] | None = None

    @property
    def regex(self) -> re.Pattern[str]:
        """Compiled on first use: the offline backend imports this module on the hook path."""
        if self._regex is None:
            self._regex = re.compile(self.pattern)
        return self._regex

    def search(self, text: str) -> re.Match[str] | None:
        if text.isascii():
            low = text.lower()
            for key in self.keys:
                if key in low:
                    break
            else:
                return None
        return self.regex.search(text)


HARD = Screened(
    r"(?i)(\brm\s+-[a-z]*[rf]|\bgit\s+reset\s+--hard\b|\bgit\s+push\b.*(?:--force|\s-f\b)"
    r"|\bgit\s+clean\s+-[a-z]*f|\bdrop\s+(?:table|database)\b|\bmkfs\b|\bdd\s+.*\bof=|\btruncate\b"
    r"|\bchmod\s+-R\s+777\b|>\s*/dev/sd[a-z]|\bgit\s+branch\s+-D\b)",
    *("rm", "git", "drop", "mkfs", "dd", "truncate", "chmod", ">"),
)
SOFT = Screened(
    r"(?i)(\brm\b|\bmv\b|\bgit\s+checkout\s+--|\bgit\s+restore\b|\bgit\s+stash\s+drop\b)",
    *("rm", "mv", "git"),
)
_WRITES = Screened(
    r"(?i)(>|\bsed -i\b|\bgit (commit|push|add)\b|\binstall\b|\btee\b)",
    *(">", "sed -i", "git ", "install", "tee"),
)
MUTATING = {"edit", "write", "delete", "notebook"}
_WORD = re.compile(r"[a-z0-9_./-]{3,}")
_STOP = frozenset(
    {
        *("the", "and", "any", "for", "not", "never", "with", "without", "this", "that"),
        *("these", "those", "please", "are", "file", "files", "folder", "directory", "don't"),
        *("dont", "must", "should", "only", "under", "into", "from"),
    }
)


def words_of(text: str) -> set[str]:
    """What a goal, a rule or an action is about: its words of three characters or more,
    lower-case, stop words dropped, so that two texts compare by the words they share."""
    return {w.strip("./-") for w in _WORD.findall(text.lower())} - _STOP - {""}


def mutates(f: Facts) -> bool:
    """Whether the action changes anything: a file tool that writes, or a command that
    deletes, moves or writes.  Rules about edits and changes apply only to these."""
    if f.tool_kind in MUTATING:
        return True
    return f.tool_kind == "shell" and bool(
        HARD.search(f.target) or SOFT.search(f.target) or _WRITES.search(f.target)
    )
