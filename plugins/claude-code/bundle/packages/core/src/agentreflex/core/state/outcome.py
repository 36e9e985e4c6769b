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

from functools import lru_cache

from agentreflex.core import testrun
from agentreflex.core.events import ToolCall, ToolKind, ToolResult
from agentreflex.core.redaction.redact import redact_head, redact_line, redact_shown
from agentreflex.core.util.lazyre import LazyPattern

SUMMARY_LIMIT = 200

# What a test run is, and which words are wrappers, is core.testrun's answer.
_TEST_RUNNERS = testrun.RUNNERS
_WRAPPERS = testrun.WRAPPERS
# Command separators: ; && || | & newlines, subshells and substitutions.
_SEPARATORS = LazyPattern(r"\|\||&&|[;|&\n(){}`]|\$\(")
# Redirections that change no project file (kept out of the ">" mutation hint).
_HARMLESS_REDIRECTS = LazyPattern(r"\d*>&\d+|&>\s*/dev/null|\d*>>?\s*/dev/null", hints=">")
_READ_ONLY = LazyPattern(
    r"^(?:ls|cat|head|tail|less|more|grep|rg|ag|find|fd|tree|wc|stat|file|du|df|pwd|echo|"
    r"printf|which|type|git\s+(?:status|log|diff|show|branch|remote|rev-parse|blame)|"
    r"sed\s+-n|awk|jq|env|printenv|whoami|id|uname|date|ps|top|true|false)(?=$|\s)",
    hints="ls cat head tail less more grep rg ag find fd tree wc stat file du df pwd echo printf which type git sed awk jq env printenv whoami id uname date ps top true false",
)
# What turns a read-only command into a writing one (find -delete, echo > f).
_READ_ONLY_BREAKERS = LazyPattern(
    r">|\s-(?:delete|exec|execdir|ok|fprint\w*)(?=$|\s)", hints="> delete exec ok fprint"
)
_MUTATION_HINT = LazyPattern(
    r"(?:>|\btee\b|\bsed\s+-i|\bmv\b|\bcp\b|\brm\b|\bmkdir\b|\btouch\b|\bchmod\b|\bln\b|"
    r"\bgit\s+(?:commit|apply|am|merge|rebase|reset|checkout|restore|stash|pull|cherry-pick)|"
    r"\bpatch\b|\bnpm\s+(?:install|i|add|uninstall)|\bpip\s+install|\buv\s+(?:add|sync|pip)|"
    r"\bcargo\s+add|\byarn\s+add|\bpnpm\s+add|\bgo\s+get|\bpython3?\s+\S+\.py|\bperl\s+-i|"
    r"\s-(?:delete|exec|execdir)(?=$|\s))"
)
# A bare shell at the end of a pipe runs whatever it is fed.
_SHELL = LazyPattern(r"^(?:ba|z|da|k)?sh(?:\s+-\S+)*$", hints="sh")


@lru_cache(maxsize=16)
def _segments(command: str) -> tuple[str, ...]:
    """The simple commands of a compound one, wrappers stripped, first word's dir dropped.

    Cached: one event asks about the same command several times (is it a
    test run, does it change files, is it the same action as before).
    """
    out: list[str] = []
    for part in _SEPARATORS.split(command):
        seg = _WRAPPERS.sub("", part.strip()).strip()
        if not seg:
            continue
        first, sep, rest = seg.partition(" ")
        first = first.rsplit("/", 1)[-1] or first  # ./gradlew, .venv/bin/pytest
        out.append(first + sep + rest)
    return tuple(out)


def summarize(call: ToolCall) -> str:
    """One redacted line of at most SUMMARY_LIMIT chars: ``Bash: npm test``."""
    if call.kind is ToolKind.SHELL:
        body = call.command  # its whitespace collapsed after redaction (redact_line)
    elif call.kind is ToolKind.PATCH:
        body = "patch " + ", ".join(call.paths) if call.paths else "patch"
    elif call.path:
        body = call.path
    else:
        body = " ".join(f"{k}={redact_shown(v)}" for k, v in list(call.input.items())[:3])
    # Redact a window, not the whole input: a multi-megabyte command would
    # otherwise cost seconds on the hook path (redact_line: no piece of a cut secret).
    return redact_line(f"{call.name}: {body}", SUMMARY_LIMIT)


def is_verification(call: ToolCall, cwd: str = "") -> bool:
    """Does this shell call really run a test framework whose exit status is its own?

    Not when the runner only lists or dry-runs, is masked (``pytest || true``,
    ``pytest | head``), or resolves to something else (a shell function, a
    ``./pytest`` file, a make target that only echoes): see core.testrun.
    """
    if call.kind is not ToolKind.SHELL:
        return False
    return testrun.is_test_run(call.command, cwd)


def test_summary(text: str) -> str:
    """``failed``, ``none`` (no test ran), ``passed`` or ``""`` (no summary) from a runner's output."""
    return testrun.summary(text)


def is_mutating_shell(command: str) -> bool:
    """Conservative: true when any segment of the command could change project files."""
    text = _HARMLESS_REDIRECTS.sub(" ", command)
    for seg in _segments(text):
        if _READ_ONLY.match(seg) and not _READ_ONLY_BREAKERS.search(seg):
            continue
        if _MUTATION_HINT.search(seg) or _SHELL.match(seg):
            return True
    return False


def is_mutation(call: ToolCall) -> bool:
    if call.mutates_files:
        return True
    return (
        call.kind is ToolKind.SHELL
        and not is_verification(call)
        and is_mutating_shell(call.command)
    )


_MASKS = (
    (LazyPattern(r"0x[0-9a-fA-F]+"), "0x#"),
    (LazyPattern(r"\b[0-9a-f]{7,40}\b"), "<hex>"),
    (LazyPattern(r"\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(?:\.\d+)?"), "<time>"),
    (LazyPattern(r"(?:/[\w.\-]+)+"), "<path>"),
    (LazyPattern(r"\d+(?:\.\d+)?"), "#"),
    (LazyPattern(r"\s+"), " "),
)
_TELLING = LazyPattern(
    r"(?i)(error|exception|traceback|failed|failure|cannot|can't|not found|no such|denied|"
    r"refused|undefined|panic|fatal|assert)",
    hints="error exception traceback fail cannot can't not no denied refused undefined panic fatal assert",
)


def error_signature(text: str) -> str:
    """A normalised, redacted failure line (empty when there is nothing to go on)."""
    if not text:
        return ""
    lines = [ln.strip() for ln in text.strip().splitlines() if ln.strip()]
    telling = [ln for ln in lines if _TELLING.search(ln)]
    pick = telling[-1] if telling else lines[-1] if lines else ""
    pick = redact_head(pick, 500)
    for pattern, repl in _MASKS:
        pick = pattern.sub(repl, pick)
    return pick.strip()[:160]


def outcome_of(result: ToolResult | None) -> str:
    """``success``, ``failure`` or ``unknown``: from exit codes and flags, not from words.

    Where the host reports the exit code, that is the truth.
    """
    if result is not None and result.exit_code is not None:
        return "success" if result.exit_code == 0 else "failure"
    if result is None or result.ok is None:
        return "unknown"
    return "success" if result.ok else "failure"
