"""Which lines of a long tool output matter, chosen in one streaming pass.

Every *error line* is kept (anything that says error, fail, panic,
exception, traceback, assert, fatal ... after ANSI codes are removed), with
a few lines of context on each side, whole Python tracebacks, and the
expected/actual lines of assertion diffs near a failure.  Then, as far as
the character budget allows: summary lines (``3 failed, 41 passed``,
``test result:``, ``Tests:``), lines naming the goal's terms, the first
lines and the last lines.  Omitted runs become one ``[… lines a-b omitted …]``
marker so the model knows where to look in the saved copy.

Memory is bounded by the budget, not by the input: the optional lines are
capped as they stream past, the context window is a ring.  Only the error
lines are unbounded, and past ``MAX_ERROR_CHARS`` of them the selection
says it is incomplete, so the caller passes the output through untouched
rather than drop one.
"""

from __future__ import annotations

import re
from collections import deque

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable

ANSI = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-Z\\-_]")
ERROR = re.compile(
    r"error|fail|panic|exception|traceback|assert|fatal|abort|segfault|segmentation"
    r"|denied|not ok|✕|✗|✖|"
    "\u00d7",
    re.IGNORECASE,
)
PYTEST_E = re.compile(r"^E\s")  # pytest's assertion-diff lines
DIFF = re.compile(
    r"^\s*(?:[-+]\s|expected|received|actual|got\b|want\b|left|right|>\s|\^)", re.IGNORECASE
)
SUMMARY = re.compile(
    r"\b\d+\s+(?:passed|failed|failing|passing|skipped|errors?|tests?|suites?|warnings?)\b"
    r"|test result:|^\s*(?:Tests|Test Suites|Snapshots|Time):|"
    r"compiled (?:successfully|with)|^=+ .* =+$|^-{3,} FAIL",
    re.IGNORECASE,
)
TRACEBACK_START = "Traceback (most recent call last)"
BEFORE, AFTER, DIFF_WINDOW = 2, 3, 30
HEAD, TAIL = 5, 15
MAX_LINE = 1000
MAX_ERROR_CHARS = 2 * 1024 * 1024
LEAD_CHARS = 1200
GAP_CHARS = 32  # about the length of one "[… lines a-b omitted …]" marker

MANDATORY, SUMMARY_P, GOAL_P, CONTEXT_P, HEAD_P, TAIL_P = 0, 1, 2, 3, 4, 5


def clean(line: str) -> str:
    """``line`` without ANSI codes, trailing whitespace or runaway length."""
    text = ANSI.sub("", line).rstrip("\r\n")
    return text if len(text) <= MAX_LINE else text[: MAX_LINE - 1] + "…"


def is_error(text: str) -> bool:
    """The one definition of an error line (the saver keeps every one; the benchmark checks it)."""
    return ERROR.search(text) is not None or PYTEST_E.match(text) is not None


class Selector:
    """Feed lines in order with :meth:`add`; :meth:`render` the kept view at the end."""

    def __init__(self, keep_chars: int, goal_terms: Iterable[str] = ()) -> None:
        terms = [re.escape(t) for t in goal_terms if t]
        self.goal = re.compile("|".join(terms), re.IGNORECASE) if terms else None
        self.keep_chars = keep_chars
        self.kept: dict[int, tuple[int, str]] = {}
        self.optional_chars = 0
        self.error_chars = 0
        self.errors = 0
        self.count = 0
        self.incomplete = False
        self._ring: deque[tuple[int, str]] = deque(maxlen=max(BEFORE, TAIL))
        self._after = 0
        self._since_error = DIFF_WINDOW + 1
        self._in_traceback = False

    def add(self, raw: str) -> None:
        n = self.count
        self.count += 1
        text = clean(raw)
        if self._mandatory(text):
            self._keep_mandatory(n, text)
        elif self._after > 0:
            self._after -= 1
            self._keep(n, text, CONTEXT_P)
        elif SUMMARY.search(text):
            self._keep(n, text, SUMMARY_P)
        elif self.goal is not None and self.goal.search(text):
            self._keep(n, text, GOAL_P)
        elif n < HEAD:
            self._keep(n, text, HEAD_P)
        self._since_error += 1
        self._ring.append((n, text))

    def _mandatory(self, text: str) -> bool:
        if TRACEBACK_START in text:
            self._in_traceback = True
            return True
        if self._in_traceback:
            if text[:1] not in (" ", "\t", "") and not text.startswith("During handling"):
                self._in_traceback = False  # the exception line closes the traceback
            return True
        if is_error(text):
            return True
        return self._since_error <= DIFF_WINDOW and DIFF.search(text) is not None

    def _keep_mandatory(self, n: int, text: str) -> None:
        self.errors += 1
        self.error_chars += len(text) + 1
        if self.error_chars > MAX_ERROR_CHARS:
            self.incomplete = True
            return
        for m, before in list(self._ring)[-BEFORE:]:
            if m not in self.kept:
                self._keep(m, before, CONTEXT_P)
        self.kept[n] = (MANDATORY, text)
        self._after = AFTER
        self._since_error = 0

    def _keep(self, n: int, text: str, priority: int) -> None:
        if n in self.kept or self.optional_chars + len(text) > self.keep_chars * 2:
            return
        self.kept[n] = (priority, text)
        self.optional_chars += len(text) + 1

    def first_errors(self, limit: int = LEAD_CHARS) -> str:
        """The first error lines, for the top of the view.

        Why: hosts preview a long tool result by its beginning (Claude Code
        2.1.328 shows the model the first 2 KB of an output it persisted),
        so the failing assertion must come first, not after the head lines.
        """
        out: list[str] = []
        used = 0
        for n in sorted(self.kept):
            priority, text = self.kept[n]
            if priority == MANDATORY and text.strip():
                if used + len(text) + 1 > limit:
                    out.append("[… more below …]")
                    break
                out.append(text)
                used += len(text) + 1
        return "\n".join(out)

    def render(self) -> tuple[str, int]:
        """The kept lines in order with gap markers, and how many input lines they stand for."""
        for n, text in self._ring:  # the tail
            if n >= self.count - TAIL and n not in self.kept:
                self.kept[n] = (TAIL_P, text)
        chosen = self._within_budget()
        out: list[str] = []
        prev = -1
        for n in sorted(chosen):
            if n > prev + 1:
                out.append(_gap(prev + 1, n - 1))
            out.append(self.kept[n][1])
            prev = n
        if prev < self.count - 1:
            out.append(_gap(prev + 1, self.count - 1))
        return "\n".join(out), len(chosen)

    def _within_budget(self) -> set[int]:
        chosen = {n for n, (p, _) in self.kept.items() if p == MANDATORY}
        used = sum(len(self.kept[n][1]) + 1 for n in chosen)
        for priority in (CONTEXT_P, SUMMARY_P, TAIL_P, GOAL_P, HEAD_P):
            for n, (p, text) in sorted(self.kept.items()):
                # a line away from the others also costs an omission marker
                cost = len(text) + 1 + (0 if {n - 1, n + 1} & chosen else GAP_CHARS)
                if p == priority and used + cost <= self.keep_chars:
                    chosen.add(n)
                    used += cost
        return chosen


def _gap(first: int, last: int) -> str:
    if first == last:
        return f"[… line {first + 1} omitted …]"
    return f"[… lines {first + 1}-{last + 1} omitted …]"


_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_.-]{3,}")
_STOP = frozenset(
    [
        "that",
        "this",
        "with",
        "from",
        "have",
        "when",
        "then",
        "them",
        "they",
        "what",
        "will",
        "would",
        "should",
        "could",
        "into",
        "please",
        "make",
        "sure",
        "about",
        "there",
        "their",
        "your",
        "just",
        "also",
        "only",
        "than",
        "each",
        "which",
        "while",
        "test",
        "tests",
        "file",
        "files",
        "code",
        "line",
        "lines",
        "run",
        "fix",
    ]
)


def goal_terms(goal: str, limit: int = 12) -> list[str]:
    """Distinctive words of the goal (file names, identifiers), for matching lines."""
    seen: dict[str, None] = {}
    for word in _WORD.findall(goal):
        low = word.lower().strip(".-")
        if len(low) >= 4 and low not in _STOP:
            seen.setdefault(low, None)
    return list(seen)[:limit]
