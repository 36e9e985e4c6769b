"""The built-in engine's screened patterns answer exactly as their regexes do.

A screen's keys must be fragments every match contains; a missing key would
make the engine miss a destructive command or a leaked secret.  Text is
built from the patterns' own pieces in random case, so the matches are there
to be missed.
"""

from __future__ import annotations

import re

from agentreflex.core.systemone.heuristic import common, constraints
from agentreflex.core.systemone.heuristic import engine as builtin
from hypothesis import given, settings
from hypothesis import strategies as st

SCREENED = {
    f"{module.__name__.rpartition('.')[2]}.{name}": value
    for module in (common, constraints, builtin)
    for name, value in vars(module).items()
    if isinstance(value, common.Screened) and (module is common or name not in vars(common))
} | {  # the operations a constraint can name, and the commands that perform them
    f"_OPS[{op.name}].{part}": screen
    for op in constraints._OPS
    for part, screen in (("named", op.named), ("does", op.does))
    if screen is not None
}

PIECES = [
    *("rm", " -rf", " -fr", " -r", "git", " push", " --force", " -f", " reset", " --hard"),
    *(" clean", " -fd", " branch", " -D", " checkout", " --", " restore", " stash", " drop"),
    *("drop", " table", " database", "mkfs", "dd", " if=/dev/zero", " of=/dev/sda", "truncate"),
    *("chmod", " -R", " 777", ">", " /dev/sdb", "mv", "sed -i", "install", "tee", " commit"),
    *(" add", "AKIA", "ABCDEFGHIJKLMNOP", "PRIVATE KEY", "[REDACTED]", ".env", "/.env", "id_rsa"),
    *("id_ed25519", "printenv", "credentials", ".netrc", "secrets.yaml", "secret.json"),
    *("permission denied", "EACCES", "not permitted", "command not found", "rate limit"),
    *("could not resolve host", "connection refused", "unauthorized", "unauthorised"),
    *("forbidden", "no space left", "quota exceeded", "timed out", "timeout", "time out"),
    *("temporarily", "try again", "ECONNRESET", " 502", " 503", "flaky", "deadline exceeded"),
    *("deleted", "removed", "overwritten", "clobbered", "dropped", "forced push", "wiped"),
    *("tests", " all", " pass", " green", " succeed", "suite", "checks", " 12 passed", " fixed"),
    *(" resolved", " verified", " works now", " now works", "build ", "succeeds", "pytest"),
    *("tox", "make", "npm test", "cargo test", "go test", "ruff", "mypy", "ls", "cat", "grep"),
    *("rg", " status", " diff", " ", "x", "_", "/", ".", "-", "é", "\u212a", "\u017f", "\n"),
    # the completion and constraint rules' words
    *("never", "do not", "no ", "instead of", "only", "read-only", " read mode", "plan mode"),
    *("ask before", "approval", "permission", "always", "use ", "prefer", "outside the repo"),
    *(" is", " are", " in ", " under ", "force-push", " --amend", "amend", "rebase", " merge"),
    *("revert", "discard", "filter-repo", "rewriting history", "touch", "modify", "copy", " cp"),
    *("error:", "error TS2322:", "found 2 errors", " 3 failed", "failed: 1", "No module named"),
    *("exit code 1", "exited with code 2", "traceback (most recent", "pre-existing", "still fail"),
    *("remains red", "could not", "couldn't", "unable to", "not yet fixed", "known failure"),
    *("tests/", "e2e/", "test_a.py", "a.spec.ts", "lint", "typecheck", "not found", "no such file"),
]


def _cased(text: str, flips: list[bool]) -> str:
    return "".join(
        c.upper() if flip else c for c, flip in zip(text, flips + [False] * len(text), strict=False)
    )


@settings(max_examples=400, deadline=None)
@given(
    parts=st.lists(st.sampled_from(PIECES), max_size=8),
    flips=st.lists(st.booleans(), max_size=60),
)
def test_screened_patterns_agree_with_their_regexes(parts: list[str], flips: list[bool]) -> None:
    text = _cased("".join(parts), flips)
    for name, screened in SCREENED.items():
        assert bool(screened.search(text)) == bool(screened.regex.search(text)), (name, text)


def test_keys_are_lower_case_and_the_patterns_ignore_case() -> None:
    assert len(SCREENED) >= 9
    for name, screened in SCREENED.items():
        assert all(key == key.lower() for key in screened.keys), name
        assert screened.regex.flags & re.IGNORECASE, name


def test_screen_skips_the_regex_only_on_ascii_text_without_a_key() -> None:
    hard = builtin.Screened(r"(?i)\brm\s+-rf", "rm")
    assert hard.search("RM -RF /") is not None
    assert hard.search("ls -la") is None
    # the Kelvin sign matches "k" case-insensitively: non-ASCII text always runs the regex
    kelvin = builtin.Screened(r"(?i)\bmkfs\b", "mkfs")
    assert kelvin.search("m\u212afs /dev/sda") is not None
