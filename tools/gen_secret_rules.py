"""Generate core's secret rules from gitleaks' default configuration.

Why: a secret format list written by hand goes stale and misses providers.
gitleaks maintains 222 rules (MIT); this tool translates its TOML into
``packages/core/src/agentreflex/core/redaction/secret_rules.py``, a plain Python module
the hot path imports without a TOML parser:

* RE2 to Python ``re``: a ``(?i)`` in the middle of a pattern (RE2 scopes it to
  the rest of its group; Python refuses it) becomes a scoped ``(?i:...)``
  group, ``\\z`` becomes ``\\Z``, POSIX classes (``[[:alnum:]]``) are spelled
  out, and every pattern runs with ``re.ASCII`` (RE2's ``\\w``, ``\\d``,
  ``\\s`` and ``\\b`` are ASCII).
* ``keywords`` become ``LazyPattern`` hints, but only when
  ``lazyre.hints_cover`` proves every match holds one (case variants are
  tried, since gitleaks compares keywords with lowered text); otherwise the
  longest literal the pattern itself requires is used, and failing that the
  rule has no hints and always runs.
* ``entropy`` and ``secretGroup`` are kept, and so are the rules' allowlists
  (regexes and stopwords on the secret).

core's extension, ``tools/secret_rules_extra.toml`` (the provider formats
gitleaks has no rule for or misses real tokens of, each with the reason),
is read in the same schema and put first in the same table, so one pipeline
runs every token format and, on the same span, an extension rule names the
finding.  Its regexes are Python ``re`` already and run with Python's
defaults; their secret is the named group ``s`` (else the whole match);
their keywords are their hints and must be proved; gitleaks' global
allowlist is not applied to them (``origin`` tells the two apart).

Rules that cannot be translated, or that cost too much on the hot path, are
listed in the module with the reason.

    uv run python tools/gen_secret_rules.py           # write the module
    uv run python tools/gen_secret_rules.py --check   # fail when it is stale
"""

from __future__ import annotations

import argparse
import hashlib
import re
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
SOURCE = ROOT / "tools" / "gitleaks" / "gitleaks.toml"
EXTENSION = ROOT / "tools" / "secret_rules_extra.toml"
TARGET = (
    ROOT / "packages" / "core" / "src" / "agentreflex" / "core" / "redaction" / "secret_rules.py"
)
GITLEAKS_COMMIT = "b58d3f102cf3a2c84cb7f923d05c25c9b1aed84b"

sys.path.insert(0, str(ROOT / "packages" / "core" / "src"))
from agentreflex.core.util.lazyre import LazyPattern, hints_cover  # noqa: E402

# Rules left out on purpose, with the reason (measured with --measure: a rule
# is too slow when Python's backtracking engine takes > 50 ms on 256 KiB of
# text that holds its keywords).
EXCLUDED: dict[str, str] = {
    "curl-auth-header": (
        "too slow: `.*?(?:[\\r\\n]{1,2}.*?){1,5}` backtracks polynomially in Python's engine; "
        "core's own header and curl rules cover it"
    ),
    "curl-auth-user": (
        "too slow: `.*(?:[\\r\\n]{1,2}.*){1,5}` backtracks polynomially in Python's engine; "
        "core's own `-u user:pass` rule covers it"
    ),
}

_POSIX = {
    "alnum": "a-zA-Z0-9",
    "alpha": "a-zA-Z",
    "digit": "0-9",
    "xdigit": "0-9a-fA-F",
    "upper": "A-Z",
    "lower": "a-z",
    "space": r"\t\n\v\f\r ",
    "word": r"\w",
    "punct": r"!-/:-@\[-`{-~",
}
_FLAG_GROUP = re.compile(r"\(\?([a-zA-Z-]+)\)")


def translate(pattern: str) -> str:
    """An RE2 pattern as a Python ``re`` pattern with the same matches."""
    for name, spelled in _POSIX.items():
        pattern = pattern.replace(f"[:{name}:]", spelled)
    pattern = pattern.replace(r"\z", r"\Z")
    return _scope_flags(pattern)


_LAZY_PREFIX = re.compile(r"^(\(\?i\)|\(\?i:)?\[\\w\.-\]\{0,(\d+)\}\?")


def strip_lazy_prefix(pattern: str) -> tuple[str, int]:
    """Drop leading ``[\\w.-]{0,50}?`` identifier prefixes: the same secrets, 8x faster.

    gitleaks puts them there to show the variable name in a finding; with a
    minimum of 0 they change no secret group, but Python's backtracking engine
    tries every length at every position.  The width is returned so an
    allowlist aimed at the whole match can extend it back again.
    """
    width = 0
    while True:
        m = _LAZY_PREFIX.match(pattern)
        if not m:
            return pattern, width
        width += int(m.group(2))
        pattern = (m.group(1) or "") + pattern[m.end() :]


def lead_with_first_chars(pattern: str, flags: int) -> str:
    """``pattern`` with a lookahead for the characters a match can start with, when it
    opens with an alternation of words under ``(?i)``: the same matches, about 2x faster.

    Why: Python's engine skips ahead to a match's first character only when that is a
    plain literal or class; under ``(?i)`` an alternation (``(?i)(?:access|auth|key
    |secret|token)...``, gitleaks' ``generic-api-key``) gets no such skip, so every
    alternative is tried at every position of the text.  ``(?=[ackpst])`` fails at
    most positions in one test.  The lookahead only restates what the pattern
    requires, so what matches, and its groups, are unchanged.
    """
    from re import _constants as sre  # type: ignore[attr-defined]
    from re import _parser  # type: ignore[attr-defined]

    tree = _parser.parse(pattern, flags)
    folded = bool(tree.state.flags & re.IGNORECASE)
    items = list(tree)
    while items and items[0][0] is sre.SUBPATTERN:
        _group, add, drop, sub = items[0][1]
        folded = (folded or bool(add & re.IGNORECASE)) and not drop & re.IGNORECASE
        items = list(sub)
    if not folded or not items or items[0][0] is not sre.BRANCH:
        return pattern
    chars = _first_chars(items, folded, sre)
    if not chars:
        return pattern
    lead = "(?=[" + "".join(sorted({_class_char(c) for c in chars})) + "])"
    flag = _FLAG_GROUP.match(pattern)
    at = flag.end() if flag else 0
    return pattern[:at] + lead + pattern[at:]


def _class_char(ch: str) -> str:
    return "\\" + ch if ch in "\\]^-[" else ch


def _first_chars(items: list[Any], folded: bool, sre: Any) -> set[str] | None:
    """The characters a match of ``items`` can start with (both cases where it folds
    case), or None when that is not a known set of literals."""
    if not items:
        return None
    op, av = items[0]
    if op is sre.LITERAL:
        ch = chr(av)
        return {ch.lower(), ch.upper()} if folded else {ch}
    if op is sre.IN:
        out: set[str] = set()
        for item, value in av:
            if item is not sre.LITERAL:
                return None
            out |= _first_chars([(item, value)], folded, sre) or set()
        return out
    if op is sre.BRANCH:
        out = set()
        for alternative in av[1]:
            chars = _first_chars(list(alternative), folded, sre)
            if chars is None:
                return None
            out |= chars
        return out
    if op is sre.SUBPATTERN:
        _group, add, drop, sub = av
        inner = (folded or bool(add & re.IGNORECASE)) and not drop & re.IGNORECASE
        return _first_chars(list(sub), inner, sre)
    return None


def _scope_flags(pattern: str) -> str:
    """Turn RE2's ``(?i)`` in mid-pattern (in force to the end of its group) into ``(?i:...)``.

    A flag group at the very start stays global, as in Python.  Within an
    alternation the scoped group is closed and reopened around each ``|``.
    """
    out: list[str] = []
    open_flags: list[list[str]] = [[]]  # per depth: flag groups opened at that depth
    i, n, in_class = 0, len(pattern), False
    while i < n:
        ch = pattern[i]
        if ch == "\\":
            out.append(pattern[i : i + 2])
            i += 2
            continue
        if in_class:
            if ch == "]":
                in_class = False
            out.append(ch)
            i += 1
            continue
        if ch == "[":
            in_class = True
            out.append(ch)
            if pattern[i + 1 : i + 2] == "^":
                out.append("^")
                i += 1
            if pattern[i + 1 : i + 2] == "]":
                out.append("]")
                i += 1
            i += 1
            continue
        m = _FLAG_GROUP.match(pattern, i)
        if m and i > 0:
            out.append(f"(?{m.group(1)}:")
            open_flags[-1].append(m.group(1))
            i = m.end()
            continue
        if m:  # leading global flags
            out.append(m.group(0))
            i = m.end()
            continue
        if ch == "(":
            open_flags.append([])
            out.append(ch)
        elif ch == ")":
            out.append(")" * len(open_flags.pop()))
            out.append(ch)
        elif ch == "|" and open_flags[-1]:
            flags = open_flags[-1]
            out.append(")" * len(flags) + "|" + "".join(f"(?{f}:" for f in flags))
        else:
            out.append(ch)
        i += 1
    out.append(")" * len(open_flags.pop()))
    return "".join(out)


def _variants(word: str) -> list[str]:
    seen: list[str] = []
    for v in (word, word.lower(), word.upper(), word.capitalize()):
        if v not in seen:
            seen.append(v)
    return seen


def choose_hints(pattern: str, flags: int, keywords: list[str]) -> str:
    """The fewest proved hints: keywords (with case variants), else a required literal."""
    if keywords:
        words = [v for k in keywords for v in _variants(k)]
        if hints_cover(LazyPattern(pattern, flags, " ".join(words))):
            return _prune(pattern, flags, words)
    literal = _required_literal(pattern, flags)
    return literal


def _prune(pattern: str, flags: int, words: list[str]) -> str:
    """Drop the hint words the proof does not need (fewer false wake-ups)."""
    kept = list(dict.fromkeys(words))
    for w in list(kept):
        trial = [k for k in kept if k != w]
        if trial and hints_cover(LazyPattern(pattern, flags, " ".join(trial))):
            kept = trial
    probe = LazyPattern(pattern, flags, " ".join(kept))
    return " ".join(probe.hints if probe._fold else kept)


def _required_literal(pattern: str, flags: int) -> str:
    """The longest literal run (3+ characters) on the pattern's top level, if proved."""
    candidates = sorted(
        {m for m in re.findall(r"(?:\\.|[A-Za-z0-9_\-])+", pattern) if len(m) >= 3},
        key=lambda m: (-len(m), m),  # ties by name: the module must not depend on hash order
    )
    for cand in candidates:
        word = re.sub(r"\\(.)", r"\1", cand)
        for length in range(len(word), 2, -1):
            for start in range(len(word) - length + 1):
                piece = word[start : start + length]
                if " " in piece:
                    continue
                if hints_cover(LazyPattern(pattern, flags, piece)):
                    probe = LazyPattern(pattern, flags, piece)
                    return " ".join(probe.hints)
    return ""


def _allow(rule: dict[str, object]) -> tuple[tuple[str, ...], tuple[str, ...], str]:
    """A rule's allowlists on the secret: (regexes, stopwords, target)."""
    regexes: list[str] = []
    stopwords: list[str] = []
    target = "secret"
    for allow in rule.get("allowlists", []) or []:  # type: ignore[union-attr]
        if allow.get("paths") or allow.get("condition") == "AND":  # type: ignore[union-attr]
            continue  # path allowlists need a file name; AND needs one
        regexes += [translate(r) for r in allow.get("regexes", [])]  # type: ignore[union-attr]
        stopwords += list(allow.get("stopwords", []))  # type: ignore[union-attr]
        target = str(allow.get("regexTarget", target))  # type: ignore[union-attr]
    return tuple(regexes), tuple(stopwords), target


def extension_rules(path: Path) -> list[tuple[object, ...]]:
    """core's own token formats, as rows of the table (``origin`` "core")."""
    rows: list[tuple[object, ...]] = []
    for rule in tomllib.loads(path.read_text())["rules"]:
        rid, pattern = rule["id"], rule["regex"]
        if not str(rule.get("why", "")).strip():
            raise SystemExit(f"{path.name}: {rid} says not why gitleaks' rules are not enough")
        hints = " ".join(rule["keywords"])
        lazy = LazyPattern(pattern, 0, hints)
        if not hints_cover(lazy):
            raise SystemExit(f"{path.name}: {rid}: a match may hold none of {hints!r}")
        group = re.compile(pattern).groupindex.get("s", 0)
        rows.append(
            (rid, pattern, " ".join(lazy.hints), (), 0.0, group, (), (), "secret", 0, "core")
        )
    return rows


def generate(source: Path, extension: Path = EXTENSION) -> str:
    raw = source.read_bytes()
    config = tomllib.loads(raw.decode())
    rules: list[tuple[object, ...]] = extension_rules(extension)
    folded_index: dict[str, list[int]] = {}
    exact_index: dict[str, list[int]] = {}
    for index, row in enumerate(rules):
        folds = LazyPattern(str(row[1]), 0, str(row[2]))._fold
        for word in str(row[2]).split():
            (folded_index if folds else exact_index).setdefault(word, []).append(index)
    skipped: list[tuple[str, str]] = []
    unhinted: list[str] = []
    for rule in config["rules"]:
        rid = rule["id"]
        if rid in EXCLUDED:
            skipped.append((rid, EXCLUDED[rid]))
            continue
        if "regex" not in rule:
            skipped.append((rid, "no regex (path-only rule): needs a file name, not text"))
            continue
        try:
            pattern, prefix = strip_lazy_prefix(translate(rule["regex"]))
            re.compile(pattern, re.ASCII)
        except re.error as exc:
            skipped.append((rid, f"does not translate to Python re: {exc}"))
            continue
        pattern = lead_with_first_chars(pattern, re.ASCII)
        keywords = list(rule.get("keywords", []))
        hints = choose_hints(pattern, re.ASCII, keywords)
        # Not proved: the rule keeps gitleaks' own precondition (one of its
        # keywords, case-folded, occurs in the text), which is a rule
        # semantic, not a hint.
        requires = () if hints else tuple(sorted({k.casefold() for k in keywords}))
        if not hints and not requires:
            unhinted.append(rid)
        index = len(rules)
        folds = LazyPattern(pattern, re.ASCII, hints)._fold
        for word in hints.split():
            (folded_index if folds else exact_index).setdefault(word, []).append(index)
        for word in requires:
            folded_index.setdefault(word, []).append(index)
        regexes, stopwords, target = _allow(rule)
        rules.append(
            (
                rid,
                pattern,
                hints,
                requires,
                float(rule.get("entropy", 0.0)),
                int(rule.get("secretGroup", 0)),
                regexes,
                stopwords,
                target,
                prefix,
                "gitleaks",
            )
        )
    allow = config.get("allowlist", {})
    digest = hashlib.sha256(raw).hexdigest()
    global_regexes = tuple(translate(r) for r in allow.get("regexes", []))
    lines = [
        '"""Secret token formats: gitleaks\' default configuration and core\'s extension.  DO NOT EDIT.',
        "",
        "Generated by ``tools/gen_secret_rules.py`` from ``tools/gitleaks/gitleaks.toml``",
        f"(gitleaks commit {GITLEAKS_COMMIT[:12]}, sha256 {digest[:16]}, MIT licence in",
        "``tools/gitleaks/LICENSE``) and, first, ``tools/secret_rules_extra.toml`` (the",
        "formats gitleaks misses, each with the reason).  Edit those or the tool, not this",
        "file; ``--check`` fails in CI when this module is stale.",
        "``agentreflex.core.redaction.redact`` applies the rules.",
        "",
        "Plain constants, so importing costs a hook process almost nothing: a rule's",
        "regex is compiled (gitleaks' with ``re.ASCII``: RE2's classes are ASCII) only when",
        "one of its words occurs in the text.  ``hints`` are proved by",
        "``lazyre.hints_cover`` (``tests/test_pattern_hints.py``); ``requires`` is",
        "set only where they could not be, and is gitleaks' own keyword",
        "precondition (the rule fires only on text holding one of them).",
        '"""',
        "",
        "A = 256  # re.ASCII",
        "",
        "# (id, regex, hints, requires, entropy floor, secret group, allowlist regexes,",
        "#  allowlist stopwords, allowlist target, width of the identifier prefix dropped,",
        '#  origin).  origin "gitleaks": run with re.ASCII (RE2\'s classes are ASCII) and',
        "#  gitleaks' global allowlist; \"core\": core's extension, Python's defaults, no",
        "#  global allowlist.",
        "Rule = tuple[",
        "    str,",
        "    str,",
        "    str,",
        "    tuple[str, ...],",
        "    float,",
        "    int,",
        "    tuple[str, ...],",
        "    tuple[str, ...],",
        "    str,",
        "    int,",
        "    str,",
        "]",
        f"RULES: tuple[Rule, ...] = {tuple(rules)!r}",
        "",
        "# word -> indexes into RULES: FOLDED words are looked for in the case-folded",
        "# text, EXACT ones in the text as it is.",
        f"FOLDED_WORDS: tuple[tuple[str, tuple[int, ...]], ...] = {_index(folded_index)!r}",
        f"EXACT_WORDS: tuple[tuple[str, tuple[int, ...]], ...] = {_index(exact_index)!r}",
        "",
        "# gitleaks' global allowlist, applied to the secret of every generated rule.",
        f"GLOBAL_ALLOW_REGEXES: tuple[str, ...] = {global_regexes!r}",
        f"GLOBAL_STOPWORDS: tuple[str, ...] = {tuple(allow.get('stopwords', []))!r}",
        "",
        "# Rules with neither a proved hint nor keywords: they would run on every text.",
        f"UNHINTED: tuple[str, ...] = {tuple(unhinted)!r}",
        "",
        "# Rules not translated, with the reason.",
        f"SKIPPED: tuple[tuple[str, str], ...] = {tuple(skipped)!r}",
        "",
    ]
    return _format("\n".join(lines))


def _index(index: dict[str, list[int]]) -> tuple[tuple[str, tuple[int, ...]], ...]:
    return tuple((word, tuple(ids)) for word, ids in sorted(index.items()))


def _format(text: str) -> str:
    """The module as ``ruff format`` writes it, so CI's format check passes."""
    done = subprocess.run(
        [sys.executable, "-m", "ruff", "format", "--stdin-filename", str(TARGET), "-"],
        input=text,
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
    )
    return done.stdout


def measure(source: Path) -> None:
    """Time every rule on 256 KiB of text holding its keywords (to pick EXCLUDED)."""
    import random
    import time

    config = tomllib.loads(source.read_text())
    rng = random.Random(1)
    for rule in config["rules"]:
        if "regex" not in rule:
            continue
        try:
            compiled = re.compile(translate(rule["regex"]), re.ASCII)
        except re.error:
            continue
        words = list(rule.get("keywords", [])) or ["x"]
        parts = []
        while sum(map(len, parts)) < 256 * 1024:
            parts.append(rng.choice(words) + " = " + "".join(rng.choices("ab/.:-_ 0\n", k=40)))
        text = " ".join(parts)
        t0 = time.perf_counter()
        for _ in compiled.finditer(text):
            pass
        ms = (time.perf_counter() - t0) * 1000
        if ms > 20:
            print(f"{ms:9.1f} ms  {rule['id']}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="fail when the module is stale")
    parser.add_argument("--measure", action="store_true", help="time each rule")
    args = parser.parse_args(argv)
    if args.measure:
        measure(SOURCE)
        return 0
    text = generate(SOURCE, EXTENSION)
    if args.check:
        current = TARGET.read_text() if TARGET.exists() else ""
        if current != text:
            print(f"{TARGET.relative_to(ROOT)} is stale: run tools/gen_secret_rules.py")
            return 1
        print(f"{TARGET.relative_to(ROOT)} is up to date")
        return 0
    TARGET.write_text(text)
    print(f"wrote {TARGET.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
