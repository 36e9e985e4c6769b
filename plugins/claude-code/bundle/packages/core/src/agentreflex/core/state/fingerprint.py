"""Stable fingerprints of tool calls, for exact-repeat detection.

Two calls have the same fingerprint when they would do the same thing: same
tool kind and the same normalised input (whitespace collapsed, a leading
``sleep N;`` or ``time``/``timeout N`` dropped, volatile keys such as
descriptions and timeouts dropped).  The host's tool name is not part
of it, so Claude's ``Bash`` and Codex's ``exec_command`` running the same
command match.
"""

from __future__ import annotations

from agentreflex.core.events import ToolCall, ToolKind
from agentreflex.core.util import fastjson
from agentreflex.core.util.digest import sha256_hex
from agentreflex.core.util.lazyre import LazyPattern

_VOLATILE = frozenset(
    {
        "description",
        "timeout",
        "run_in_background",
        "justification",
        "yield_time_ms",
        "max_output_tokens",
        "workdir",
        "login",
        "tty",
        "sandbox_permissions",
        "prefix_rule",
    }
)
_SPACE = LazyPattern(r"\s+")
# What may go before a command without changing what it does: a pause (``sleep 2;``,
# ``sleep 1 &&``), a no-op (``true &&``, ``: ;``) and timing (``time``, ``time -p``,
# ``timeout 60``), so ``sleep 3; npm install`` is the ``npm install`` that failed before.
_NO_OP_PREFIX = LazyPattern(
    r"^(?:(?:sleep\s+\d+(?:\.\d+)?[smhd]?|true|:)\s*(?:;|&&)\s*|"
    r"(?:time(?:\s+-p)?|timeout(?:\s+--?[a-z-]+(?:[= ]\S+)?)*\s+\d+(?:\.\d+)?[smhd]?)\s+)+",
    hints="sleep true : time timeout",
)


def normalise_command(command: str) -> str:
    """A command as the work it does: whitespace collapsed, a leading pause or timer dropped."""
    text = _SPACE.sub(" ", command).strip()
    return _NO_OP_PREFIX.sub("", text) or text


def canonical_input(call: ToolCall) -> str:
    """The part of a call that decides what it does, as a stable string."""
    if call.kind is ToolKind.SHELL:
        return normalise_command(call.command)
    if call.kind is ToolKind.PATCH:
        return call.patch.strip()
    data = {k: v for k, v in call.input.items() if k not in _VOLATILE}
    return fastjson.dumps(data, sort_keys=True, default=str, ensure_ascii=False)


# Kinds whose tools differ by name, not only by input: ``Grep`` and ``Glob``
# with the same pattern, or two MCP tools given the same arguments, are
# different calls.  Shell, file and patch tools stay name-agnostic so the same
# command through another host's tool name still matches.
_NAMED_KINDS = frozenset({ToolKind.OTHER, ToolKind.MCP, ToolKind.SEARCH, ToolKind.WEB})


def fingerprint(call: ToolCall) -> str:
    """16 hex chars of SHA-256 over kind (and name, where it matters) and canonical input."""
    kind = call.kind.value
    if call.kind in _NAMED_KINDS:
        kind = f"{kind}:{call.name.strip().lower()}"
    return sha256_hex(f"{kind}\0{canonical_input(call)}", 16)
