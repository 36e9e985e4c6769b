"""The proposed call, keyed and classified exactly as core's store keys recorded ones.

The exact-repeat floor compares the *proposed* call's fingerprint with the
fingerprints core's store recorded for earlier calls, so both come from core's
own functions (``agentreflex.core.state.fingerprint`` and ``.outcome``).  The
one thing added here is a narrower notion of a "read" than core's evidence
rule, for the exploration-loop detector: a test run is not exploring.

Stdlib only: imported on the hook path.
"""

from __future__ import annotations

from agentreflex.core.events import EventKind, ToolKind
from agentreflex.core.state import outcome
from agentreflex.core.state.fingerprint import fingerprint

TYPE_CHECKING = False
if TYPE_CHECKING:
    from agentreflex.core.events import ToolCall, ToolResult

__all__ = [
    "call_fingerprint",
    "error_signature",
    "is_read_command",
    "looks_like_read",
    "looks_like_verification",
    "result_outcome",
]


def call_fingerprint(call: ToolCall) -> str:
    """Stable key of a call: tool kind plus normalised input (core's function)."""
    return fingerprint(call)


def result_outcome(kind: EventKind, result: ToolResult | None) -> str:
    """success / failure / unknown, as the store will record this post-tool event."""
    if kind is EventKind.POST_TOOL_FAILURE:
        return "failure"
    return outcome.outcome_of(result)


def error_signature(result: ToolResult | None) -> str:
    """Normalised failure text, so "the same error" survives line numbers and ids."""
    if result is None:
        return ""
    return outcome.error_signature(result.error or result.output)


def looks_like_verification(call: ToolCall) -> bool:
    """A shell call that runs a test suite."""
    return outcome.is_verification(call)


# Read-only shell commands, matched where a command line starts.  An optional
# "Tool: " prefix lets the same test run on the one-line summaries the store
# keeps for recorded actions.  Plain string tests, not a regex: every PreToolUse
# call asks, and compiling the equivalent pattern cost more than the whole
# test (tests/test_calls.py holds the two to the same answers):
#   ^\s*(?:\w+:\s*)?(cat|less|...|sed -n|git (log|show|diff|status|blame|grep))\b
_READ_COMMANDS = (
    "cat",
    "less",
    "head",
    "tail",
    "grep",
    "rg",
    "ag",
    "ls",
    "find",
    "fd",
    "tree",
    "wc",
    "file",
    "stat",
    "sed -n",
    "git log",
    "git show",
    "git diff",
    "git status",
    "git blame",
    "git grep",
)


def _read_command_at(text: str, i: int) -> bool:
    """One of the read-only commands starts at ``i``, ending on a word boundary."""
    for word in _READ_COMMANDS:
        if text.startswith(word, i):
            end = i + len(word)
            # \b after a letter: the end, or a character \w does not match
            if end == len(text) or not (text[end].isalnum() or text[end] == "_"):
                return True
    return False


def is_read_command(text: str) -> bool:
    """A shell command line that only looks at things."""
    # str.isspace is what \s matches, str.isalnum plus "_" what \w matches
    rest = text.lstrip()
    if _read_command_at(rest, 0):
        return True
    # or after a "Tool:" prefix: word characters up to the first colon
    colon = rest.find(":")
    return (
        colon > 0
        and rest[:colon].replace("_", "a").isalnum()
        and _read_command_at(rest[colon + 1 :].lstrip(), 0)
    )


def looks_like_read(call: ToolCall) -> bool:
    """A call that only gathers information (file reads, searches, read-only shell)."""
    if call.kind in (ToolKind.READ, ToolKind.SEARCH, ToolKind.WEB):
        return True
    return call.kind is ToolKind.SHELL and is_read_command(call.command)
