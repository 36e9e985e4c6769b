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
from functools import lru_cache

from agentreflex.core.events import ToolCall, ToolKind, ToolResult
from agentreflex.core.lazyre import LazyPattern
from agentreflex.core.redact import redact

SUMMARY_LIMIT = 200

# A test runner is recognised only where a command starts (at the beginning of
# a segment of a compound command, after env assignments and wrappers such as
# ``uv run`` or ``timeout 60``), never as a word inside an argument: ``pip
# install pytest`` or ``git commit -m "prove it"`` run no tests.
_TEST_RUNNERS = LazyPattern(
    r"^(?:"
    r"pytest|py\.test|python3?(?:\.\d+)?\s+-m\s+(?:pytest|unittest)|tox|nox|"
    r"(?:npm|pnpm|yarn|bun)\s+(?:run\s+)?test(?::\S+)?|jest|vitest|mocha|"
    r"node\s+--test|deno\s+test|cargo\s+(?:test|nextest)|go\s+test|gotestsum|"
    r"mvn\s+(?:-\S+\s+)*(?:test|verify)|gradle\w*\s+test|"
    r"make\s+(?:test|check)|ctest|rspec|phpunit|dotnet\s+test|swift\s+test|"
    r"mix\s+test|bats|prove"
    r")(?=$|\s)",
    hints="test tox nox jest mocha verify check rspec phpunit bats prove",
)
# Env assignments and command wrappers that may precede the real command.
_WRAPPERS = LazyPattern(
    r"^(?:(?:[A-Za-z_][A-Za-z0-9_]*=\S*|sudo|env|time|nice|nohup|command|exec|"
    r"xvfb-run(?:\s+-a)?|timeout(?:\s+-\S+)*\s+\S+|"
    r"(?:uv|poetry|pipenv|hatch|pdm|rye)\s+run(?:\s+--?\S+)*|"
    r"npx|bunx|pnpm\s+exec|yarn\s+exec|bundle\s+exec)\s+)+"
)
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
        body = " ".join(call.command.split())
    elif call.kind is ToolKind.PATCH:
        body = "patch " + ", ".join(call.paths) if call.paths else "patch"
    elif call.path:
        body = call.path
    else:
        body = " ".join(f"{k}={v}" for k, v in list(call.input.items())[:3])
    # Redact a window, not the whole input: a multi-megabyte command would
    # otherwise cost seconds on the hook path.  The window is wide enough that
    # a secret starting inside the visible part is seen whole by the rules.
    raw = f"{call.name}: {body}"
    text = redact(raw[: SUMMARY_LIMIT + _REDACT_MARGIN])
    if len(raw) > SUMMARY_LIMIT + _REDACT_MARGIN or len(text) > SUMMARY_LIMIT:
        return text[: SUMMARY_LIMIT - 1] + "…"
    return text


# Longer than any token format the redaction rules know, short of a PEM block
# (which is redacted to the end of the text when its END line is cut off).
_REDACT_MARGIN = 1024


# Words that make a test runner list, describe or dry-run its tests instead of
# running them (pytest --collect-only/--co, cargo test --no-run, make -n test).
_NO_RUN = frozenset(
    {
        "--version",
        "-V",
        "--help",
        "-h",
        "--collect-only",
        "--co",
        "--no-run",
        "--list",
        "--listTests",
        "--list-tests",
        "--dry-run",
        "--dryrun",
        "--just-print",
        "--recon",
        "--fixtures",
        "--markers",
    }
)
# The operators between a compound command's parts, kept (unlike _SEPARATORS).
_OPERATORS = LazyPattern(r"(\|\||&&|;|\||(?<![<>])&(?!>)|\n)")


def is_verification(call: ToolCall) -> bool:
    """Does this shell call really run tests or checks, with an outcome that means something?

    Not when the runner only lists, describes or dry-runs (``--collect-only``,
    ``--version``, ``--no-run``, ``make -n``), runs only if something before
    it fails (``true || pytest``), or has its failure masked (``pytest ||
    true``, ``pytest; true``): its exit status says nothing about the tests.
    """
    if call.kind is not ToolKind.SHELL:
        return False
    parts = _OPERATORS.split(call.command)
    found = False
    for k in range(0, len(parts), 2):
        segs = _segments(parts[k])
        seg = segs[0] if segs else ""
        if not _TEST_RUNNERS.match(seg):
            continue
        before = parts[k - 1] if k > 0 else ""
        after = next((p for p in parts[k + 1 :: 2] if p != "|"), "")
        words = seg.split()
        if before == "||" or after in ("||", ";", "&", "\n") or _NO_RUN.intersection(words):
            if after in (";", "\n") and _TEST_RUNNERS.match(_tail(parts, k)):
                found = True  # "pytest; pytest -x": the last runner's status stands
            continue
        if words[0] in ("make", "gmake") and "-n" in words:
            continue  # make -n prints the recipe, runs nothing
        found = True
    return found


def _tail(parts: list[str], k: int) -> str:
    """The last simple command of a compound one, after part ``k``."""
    rest = [p for p in parts[k + 2 :: 2] if p.strip()]
    segs = _segments(rest[-1]) if rest else []
    return segs[0] if segs else ""


# A runner's closing summary: what really happened, whatever the exit status.
_FAILED = LazyPattern(
    r"\b[1-9]\d* (?:failed|errors?)\b|test result: FAILED|^FAIL\b|\bFAILED \(|"
    r"Tests:\s+\d+ failed|\b\d+ failing\b",
    re.MULTILINE,
    hints="failed error FAIL failing",
)
_NONE_RAN = LazyPattern(
    r"no tests ran|collected 0 items|Ran 0 tests|No tests found|\[no test files\]|"
    r"test result: ok\. 0 passed|\b0 passing\b",
    hints="no tests collected Ran No 0",
)
_PASSED = LazyPattern(
    r"\b[1-9]\d* (?:passed|passing)\b|test result: ok\. [1-9]|^ok\s|^OK\b|Ran [1-9]\d* tests?",
    re.MULTILINE,
    hints="passed passing ok OK Ran",
)


def test_summary(text: str) -> str:
    """``failed``, ``none`` (no test ran), ``passed`` or ``""`` (no summary) from a runner's output."""
    tail = text[-8000:]
    if _FAILED.search(tail):
        return "failed"
    if _PASSED.search(tail):
        return "passed"
    if _NONE_RAN.search(tail):
        return "none"
    return ""


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
