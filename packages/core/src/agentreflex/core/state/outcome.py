"""What a tool call was and how it ended, in the few words reflexes need.

* :func:`summarize` - a short, redacted, one-line description of a call.
* :func:`is_verification` - does this shell command run tests/checks?
* :func:`is_mutating_shell` - could this shell command change project files?
* :func:`error_signature` - a normalised failure text, so "the same error
  again" can be recognised across runs (numbers, paths, hex ids and
  timestamps are masked; the most telling line is kept).
* :func:`outcome_of` - success / failure / unknown from a ToolResult, without
  being fooled by the word "error" inside a successful output.
"""

from __future__ import annotations

import re

from agentreflex.core.events import ToolCall, ToolKind, ToolResult
from agentreflex.core.redact import redact

SUMMARY_LIMIT = 200

_TEST_RUNNERS = re.compile(
    r"(?:^|[\s;&|(/])(?:"
    r"pytest|py\.test|python3?\s+-m\s+(?:pytest|unittest)|tox|nox|uv\s+run\s+(?:--\S+\s+)*pytest|"
    r"(?:npm|pnpm|yarn|bun)\s+(?:run\s+)?test|npx\s+(?:jest|vitest|mocha)|jest|vitest|mocha|"
    r"node\s+--test|deno\s+test|cargo\s+(?:test|nextest)|go\s+test|gotestsum|"
    r"mvn\s+(?:-\S+\s+)*(?:test|verify)|gradle\w*\s+test|\./gradlew\s+test|"
    r"make\s+(?:test|check)|ctest|rspec|bundle\s+exec\s+rspec|phpunit|dotnet\s+test|swift\s+test|"
    r"mix\s+test|bats|prove"
    r")(?=$|[\s;&|)])"
)
_READ_ONLY = re.compile(
    r"^\s*(?:ls|cat|head|tail|less|more|grep|rg|ag|find|fd|tree|wc|stat|file|du|df|pwd|echo|"
    r"printf|which|type|git\s+(?:status|log|diff|show|branch|remote|rev-parse|blame)|"
    r"sed\s+-n|awk|jq|env|printenv|whoami|id|uname|date|ps|top|true|false)\b"
)
_MUTATION_HINT = re.compile(
    r"(?:>|\btee\b|\bsed\s+-i|\bmv\b|\bcp\b|\brm\b|\bmkdir\b|\btouch\b|\bchmod\b|\bln\b|"
    r"\bgit\s+(?:commit|apply|am|merge|rebase|reset|checkout|restore|stash|pull|cherry-pick)|"
    r"\bpatch\b|\bnpm\s+(?:install|i|add|uninstall)|\bpip\s+install|\buv\s+(?:add|sync|pip)|"
    r"\bcargo\s+add|\byarn\s+add|\bpnpm\s+add|\bgo\s+get|\bpython3?\s+\S+\.py|\bperl\s+-i)"
)


def summarize(call: ToolCall) -> str:
    """One redacted line of at most SUMMARY_LIMIT chars: ``Bash: npm test``."""
    if call.kind is ToolKind.SHELL:
        body = " ".join(call.command.split())
    elif call.kind is ToolKind.PATCH:
        body = "patch " + ", ".join(call.paths) if call.paths else "patch"
    elif call.path:
        body = call.path
    else:
        body = " ".join(f"{k}={v}" for k, v in list(call.input.items())[:3])
    text = redact(f"{call.name}: {body}")
    return text if len(text) <= SUMMARY_LIMIT else text[: SUMMARY_LIMIT - 1] + "…"


def is_verification(call: ToolCall) -> bool:
    return call.kind is ToolKind.SHELL and bool(_TEST_RUNNERS.search(call.command))


def is_mutating_shell(command: str) -> bool:
    """Conservative: true when the command could change files in the project."""
    if _READ_ONLY.match(command) and not re.search(r">|\|\s*(?:sh|bash|tee)\b", command):
        return False
    return bool(_MUTATION_HINT.search(command))


def is_mutation(call: ToolCall) -> bool:
    if call.mutates_files:
        return True
    return (
        call.kind is ToolKind.SHELL
        and not is_verification(call)
        and is_mutating_shell(call.command)
    )


_MASKS = (
    (re.compile(r"0x[0-9a-fA-F]+"), "0x#"),
    (re.compile(r"\b[0-9a-f]{7,40}\b"), "<hex>"),
    (re.compile(r"\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(?:\.\d+)?"), "<time>"),
    (re.compile(r"(?:/[\w.\-]+)+"), "<path>"),
    (re.compile(r"\d+(?:\.\d+)?"), "#"),
    (re.compile(r"\s+"), " "),
)
_TELLING = re.compile(
    r"(?i)(error|exception|traceback|failed|failure|cannot|can't|not found|no such|denied|"
    r"refused|undefined|panic|fatal|assert)"
)


def error_signature(text: str) -> str:
    """A normalised, redacted failure line (empty when there is nothing to go on)."""
    if not text:
        return ""
    lines = [ln.strip() for ln in text.strip().splitlines() if ln.strip()]
    telling = [ln for ln in lines if _TELLING.search(ln)]
    pick = telling[-1] if telling else lines[-1] if lines else ""
    pick = redact(pick[:500])
    for pattern, repl in _MASKS:
        pick = pattern.sub(repl, pick)
    return pick.strip()[:160]


def outcome_of(result: ToolResult | None) -> str:
    """``success``, ``failure`` or ``unknown``: from flags and exit codes, not from words."""
    if result is None or result.ok is None:
        if result is not None and result.exit_code is not None:
            return "success" if result.exit_code == 0 else "failure"
        return "unknown"
    return "success" if result.ok else "failure"
