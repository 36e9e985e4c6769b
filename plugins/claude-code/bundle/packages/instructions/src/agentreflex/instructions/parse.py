"""Turning an instruction file into rules: prohibitions, requirements, advice.

A markdown file is cut into items (a list item with its continuation lines,
or a paragraph), each with its line range; code blocks, headings and
frontmatter are not rules.  Each sentence of an item is classified, most
specific first:

- text that tries to switch agentreflex off has no authority: it is kept as
  ``ignored`` and reported, and nothing is derived from it;
- a requirement ("run make lint before committing", "before pushing, run
  `pytest`", "never commit without running the tests");
- a permission ("you may edit generated/"), kept only to report conflicts;
- "only use pnpm", which forbids the other package managers of its family;
- a prohibition, found by the gate's own constraint extractor (the one that
  reads "do not modify tests" in a prompt), kept only when its target is
  concrete: a path, a glob, one word, a package manager, a git action;
- everything else is advice: shown, injected, never a block.

Guessing a block from loose prose would stop agents for rules nobody wrote,
so every doubtful sentence stays advice.
"""

from __future__ import annotations

import re

from agentreflex.core.util.deadline import check as check_time
from agentreflex.core.util.lazyre import LazyPattern
from agentreflex.core.util.record import field, record

PROHIBIT = "prohibit"
REQUIRE = "require"
PERMIT = "permit"
ADVICE = "advice"
IGNORED = "ignored"

TESTS = "tests"
"""The requirement command meaning "the tests": satisfied by any verification run."""

PACKAGE_FAMILIES = (
    frozenset({"npm", "pnpm", "yarn", "bun"}),
    frozenset({"pip", "pip3", "poetry", "uv", "pipenv", "pdm"}),
)


@record
class Rule:
    """One rule, with where it was written.

    ``action``/``target`` follow the gate's constraints (``modify``,
    ``delete``, ``add_dependency``, ``push``, ``commit``, ``merge``, ``run``)
    plus ``only_use``; a requirement has ``command`` and ``when`` (``commit``,
    ``push`` or ``done``).
    """

    file: str
    start: int
    end: int
    text: str
    kind: str
    scope: str = ""
    globs: list[str] = field(default_factory=list)
    action: str = ""
    target: str = ""
    command: str = ""
    when: str = ""

    def cite(self) -> str:
        """``file:line`` or ``file:first-last``."""
        lines = str(self.start) if self.end == self.start else f"{self.start}-{self.end}"
        return f"{self.file}:{lines}"

    def to_json(self) -> dict[str, object]:
        out: dict[str, object] = {
            "file": self.file,
            "lines": [self.start, self.end],
            "kind": self.kind,
            "text": self.text,
        }
        for key in ("action", "target", "command", "when"):
            if getattr(self, key):
                out[key] = getattr(self, key)
        if self.globs:
            out["globs"] = list(self.globs)
        return out


class Item:
    """A list item or paragraph: its text and first/last line (1-based).

    A plain slotted class: a file has hundreds of items and this is the hot path.
    """

    __slots__ = ("end", "start", "text")

    def __init__(self, text: str, start: int, end: int) -> None:
        self.text, self.start, self.end = text, start, end


_BULLET = LazyPattern(r"^\s*(?:[-*+]|\d{1,3}[.)])\s+(.*)$")
_FENCE = LazyPattern(r"^\s*(```|~~~)")
_HEADING = LazyPattern(r"^\s{0,3}#{1,6}\s")
_COMMENT = LazyPattern(r"^\s*<!--.*-->\s*$")


def items(text: str) -> tuple[list[Item], dict[str, str]]:
    """The items of a markdown file, and its frontmatter (``key: value`` lines)."""
    lines = text.splitlines()
    front: dict[str, str] = {}
    i = 0
    if lines and lines[0].strip() == "---":
        for j in range(1, min(len(lines), 200)):
            if lines[j].strip() == "---":
                for raw in lines[1:j]:
                    key, sep, value = raw.partition(":")
                    if sep:
                        front[key.strip().lower()] = value.strip()
                i = j + 1
                break
    out: list[Item] = []
    current: list[str] = []
    start = 0
    fenced = False

    def flush(end: int) -> None:
        if current:
            out.append(Item(" ".join(s.strip() for s in current), start, end))
            current.clear()

    for n in range(i, len(lines)):
        line = lines[n]
        if _FENCE.match(line):
            flush(n)
            fenced = not fenced
            continue
        if fenced:
            continue
        if not line.strip() or _HEADING.match(line) or _COMMENT.match(line):
            flush(n)
            continue
        bullet = _BULLET.match(line)
        if bullet:
            flush(n)
            start = n + 1
            current.append(bullet.group(1))
            continue
        if not current:
            start = n + 1
        current.append(line)
    flush(len(lines))
    return out, front


# --- classifying one sentence ---------------------------------------------

_SENTENCES = LazyPattern(r"(?<=[.!?])\s+(?=[A-Z`*_(])|;\s+")
_BACKTICKS = LazyPattern(r"`([^`]{1,200})`")
_EMPHASIS = LazyPattern(r"\*\*|__|(?<![\w*])\*(?=\w)([^*\n]{1,200}?)(?<=\w)\*(?![\w*])")
_LINK = LazyPattern(r"\[([^\]]{0,200})\]\([^)]{0,400}\)")

_OURS = LazyPattern(r"agentreflex|reflex(?:es)?\s+layer|\breflex(?:es)?\b", re.IGNORECASE)
_OFF = LazyPattern(
    r"\b(?:ignore|disable|turn(?:ed)?\s+off|switch(?:ed)?\s+off|bypass|skip|override|"
    r"uninstall|remove|deactivate|no\s+longer\s+appl|(?:does\s+not|doesn'?t|don'?t)\s+apply|"
    r"not\s+binding|has\s+no\s+authority)",
    re.IGNORECASE,
)
_WHEN = (
    r"(?P<when>committing|commits?|you\s+commit|pushing|you\s+push|push|finishing|you\s+finish|"
    r"(?:you(?:'re|\s+are)\s+)?done|submitting|opening\s+a\s+(?:PR|pull\s+request)|"
    r"handing\s+(?:it\s+)?(?:off|back)|completing)"
)
_REQ_BEFORE = LazyPattern(
    r"\b(?:always\s+|must\s+|please\s+|you\s+must\s+)?run\s+(?P<cmd>.{2,80}?)\s+before\s+" + _WHEN,
    re.IGNORECASE,
)
_REQ_LEAD = LazyPattern(
    r"\bbefore\s+" + _WHEN + r"\s*,?\s*(?:always\s+|you\s+must\s+|please\s+|make\s+sure\s+to\s+)?"
    r"run\s+(?P<cmd>.{2,80})",
    re.IGNORECASE,
)
_REQ_WITHOUT = LazyPattern(
    r"\b(?:do\s+not|don'?t|never)\s+(?P<when>commit|push|finish)\w*\s+(?:anything\s+)?without\s+"
    r"(?:first\s+)?running\s+(?P<cmd>.{2,80})",
    re.IGNORECASE,
)
_REQ_AFTER = LazyPattern(
    r"\b(?:always\s+|must\s+|please\s+)?run\s+(?P<cmd>.{2,80}?)\s+after\s+(?:any\s+|every\s+|each\s+)?"
    r"(?:changes?|changing|editing|edits|modifying|modifications)",
    re.IGNORECASE,
)
_PERMIT = LazyPattern(
    r"\b(?:you\s+)?(?:may|can|are\s+allowed\s+to|(?:it\s+is|it'?s)\s+(?:ok|okay|fine)\s+to|"
    r"feel\s+free\s+to)\s+(?:edit|modify|change|touch|update|regenerate|rewrite)\s+(?P<target>.{1,80})",
    re.IGNORECASE,
)
_ONLY_USE = LazyPattern(
    r"\b(?:only|always)\s+use\s+(?P<tool>pnpm|yarn|npm|bun|uv|poetry|pip|pipenv|pdm)\b|"
    r"\buse\s+(?P<tool2>pnpm|yarn|npm|bun|uv|poetry|pip|pipenv|pdm)\b[^.]{0,20}?\b(?:not|instead\s+of|rather\s+than)\b",
    re.IGNORECASE,
)
_WORD = LazyPattern(r"^[A-Za-z][\w.+-]{1,40}$")
_FILLERS = LazyPattern(r"^(?:the|all|any|every|our|a|an)\s+", re.IGNORECASE)
_TEST_WORDS = LazyPattern(
    r"^(?:the\s+|all\s+|our\s+)?(?:(?:unit|full|whole)\s+)?(?:tests?|test\s+suite|testsuite|specs?)$",
    re.IGNORECASE,
)


# What any rule pattern below needs, in one pass: an item without it is advice
# (most of a rule file), and costs one search instead of the whole classifier.
_TRIGGER = LazyPattern(
    r"\b(?:do\s+not|don'?t|dont|never|must\s+not|mustn'?t|should\s+not|shouldn'?t|cannot|"
    r"can'?t|avoid|stop)\s+(?:please\s+)?(?:modify|edit|change|touch|alter|update|rewrite|write|"
    r"refactor|mess|rename|move|delete|remove|rm|push|force-push|commit|merge|install|add|run|"
    r"use|execute|deploy|publish)\b|"
    r"\b(?:no|without)\s+(?:adding\s+)?(?:any\s+)?(?:new\s+|additional\s+|extra\s+)?"
    r"(?:dependenc|deps|packages|libraries|third)|"
    r"\b(?:leave|keep)\b.{0,60}?\b(?:alone|untouched|unchanged|as\s+is)\b|"
    r"\brun\b.{0,100}?\b(?:before|after)\b|\bbefore\b.{0,60}?\brun\b|without\s+(?:first\s+)?running|"
    r"\b(?:only|always)\s+use\b|\buse\s+\S+.{0,20}?\b(?:not|instead\s+of|rather\s+than)\b|"
    r"\b(?:may|can|allowed\s+to|ok(?:ay)?\s+to|fine\s+to|free\s+to)\s+(?:edit|modify|change|touch|"
    r"update|regenerate|rewrite)\b|"
    r"agentreflex|reflex",
)
# Words one of which every _TRIGGER match holds: a substring test is far cheaper than the regex.
_KEYS = ("not", "n't", "never", "avoid", "stop", "no ", "without", "leave", "keep", "run")
_KEYS2 = ("only", "always", "use", "may ", "can ", "allowed", "ok", "fine to", "free to", "reflex")


def triggered(text: str) -> bool:
    """Whether ``text`` may hold a rule (else it is advice, whatever it says)."""
    low = text.lower()
    if not any(k in low for k in _KEYS) and not any(k in low for k in _KEYS2):
        return False
    return _TRIGGER.search(low) is not None


def classify(
    item: Item, file: str, scope: str, globs: list[str], advice: bool = True
) -> tuple[list[Rule], list[str]]:
    """The rules in one item, and a note for each sentence that had no authority.

    ``advice=False`` (the hook path) leaves advice out: only rules are checked there.
    """
    if not triggered(item.text):
        if not advice:
            return [], []
        plain = _EMPHASIS.sub(lambda m: m.group(1) or "", _LINK.sub(r"\1", item.text))
        return [Rule(file, item.start, item.end, _short(plain), ADVICE, scope, list(globs))], []
    plain = _LINK.sub(r"\1", item.text)
    ticks = [m.group(1) for m in _BACKTICKS.finditer(plain)]
    plain = _EMPHASIS.sub(lambda m: m.group(1) or "", plain)
    rules: list[Rule] = []
    refused: list[str] = []
    for sentence in _SENTENCES.split(plain):
        sentence = sentence.strip()
        if not sentence:
            continue
        found = _classify_sentence(sentence, ticks)
        if found is None:
            continue
        for kind, extra in found:
            if kind == IGNORED:
                refused.append(sentence)
            rules.append(
                Rule(
                    file=file,
                    start=item.start,
                    end=item.end,
                    text=_short(sentence),
                    kind=kind,
                    scope=scope,
                    globs=list(globs),
                    **extra,
                )
            )
    if not rules and advice:
        rules.append(
            Rule(file, item.start, item.end, _short(plain), ADVICE, scope=scope, globs=list(globs))
        )
    return rules, refused


def _classify_sentence(sentence: str, ticks: list[str]) -> list[tuple[str, dict[str, str]]] | None:
    if _OURS.search(sentence) and _OFF.search(sentence):
        return [(IGNORED, {})]
    bare = sentence.replace("`", "")
    for pattern in (_REQ_WITHOUT, _REQ_LEAD, _REQ_BEFORE, _REQ_AFTER):
        m = pattern.search(bare)
        if m:
            cmd = _command(m.group("cmd"), ticks)
            if cmd:
                when = _when(m.group("when")) if pattern is not _REQ_AFTER else "done"
                return [(REQUIRE, {"command": cmd, "when": when})]
    m = _ONLY_USE.search(bare)
    if m:
        tool = (m.group("tool") or m.group("tool2")).lower()
        return [(PROHIBIT, {"action": "only_use", "target": tool})]
    m = _PERMIT.search(bare)
    if m:
        target = _target(m.group("target"), ticks)
        if target:
            return [(PERMIT, {"action": "modify", "target": target})]
    return _prohibitions(bare, ticks) or None


def _prohibitions(sentence: str, ticks: list[str]) -> list[tuple[str, dict[str, str]]]:
    from agentreflex.gate.api import extract_constraints

    out: list[tuple[str, dict[str, str]]] = []
    for c in extract_constraints(sentence):
        action = c.get("action", "")
        target = c.get("target", "")
        if action in ("modify", "delete"):
            target = _target(target, ticks)
        elif action == "run":
            target = target if _WORD.match(target) else ""
            if _USE.search(c.get("text", "")) and target.lower() not in _PROGRAMS:
                target = ""  # "don't use var", "never use any in TypeScript": style, not a program
        elif action not in ("add_dependency", "push", "commit", "merge"):
            target = ""
        if target:
            out.append((PROHIBIT, {"action": action, "target": target}))
    return out


_USE = LazyPattern(r"\b(?:use|using)\s", re.IGNORECASE)
_PROGRAMS = frozenset(
    (
        *("sudo", "doas", "su", "docker", "podman", "kubectl", "helm", "terraform", "curl"),
        *("wget", "ssh", "scp", "rsync", "git", "npx", "npm", "pnpm", "yarn", "bun", "pip"),
        *("pip3", "pipx", "uv", "poetry", "conda", "brew", "apt", "apt-get", "yum", "dnf"),
        *("gh", "aws", "gcloud", "az", "make", "cargo", "go", "node", "python", "python3"),
    )
)
"""Programs a "never use X" names (anything else after "use" is style advice)."""


def _target(raw: str, ticks: list[str]) -> str:
    """A concrete path target from a phrase, or "" (then the sentence is advice)."""
    words = raw.replace("`", "").split()
    pathy = [w.strip(".,;:()\"'") for w in words if "/" in w or "*" in w or _dotted(w)]
    if pathy:
        return pathy[0]
    for tick in ticks:
        if tick in raw and " " not in tick.strip():
            return tick.strip()
    phrase = _FILLERS.sub("", " ".join(words)).strip(".,;:")
    if _TEST_WORDS.match(phrase):
        return "tests"
    if len(phrase.split()) == 1 and _WORD.match(phrase) and len(phrase) >= 3:
        return phrase
    return ""


def _dotted(word: str) -> bool:
    w = word.strip(".,;:()\"'")
    return "." in w and bool(re.match(r"^[\w.-]+\.[A-Za-z0-9]{1,8}$|^\.[\w.-]+$", w))


_KNOWN_RUNNERS = frozenset(
    (
        *("make", "just", "npm", "pnpm", "yarn", "bun", "npx", "pytest", "ruff", "mypy"),
        *("tox", "nox", "uv", "cargo", "go", "gradle", "mvn", "composer", "bundle", "rake"),
        *("dotnet", "deno", "pre-commit", "eslint", "prettier", "tsc", "black", "flake8"),
        *("pylint", "poetry", "pdm", "hatch", "python", "python3", "./gradlew", "bazel"),
        *("cmake", "ctest"),
    )
)


def _command(raw: str, ticks: list[str]) -> str:
    """The command a requirement names: a backticked span, a known runner, or the tests."""
    for tick in ticks:
        if tick and tick in raw:
            return " ".join(tick.split())
    phrase = raw.strip().rstrip(".,;:!").strip()
    phrase = re.split(r"\s+(?:and|then|to|so|first|locally|again)\b", phrase, maxsplit=1)[0]
    if _TEST_WORDS.match(phrase):
        return TESTS
    words = phrase.split()
    if words and len(words) <= 4 and words[0].lower() in _KNOWN_RUNNERS:
        return " ".join(words)
    return ""


def _when(word: str) -> str:
    w = word.lower()
    if "commit" in w:
        return "commit"
    if "push" in w:
        return "push"
    return "done"


def _short(text: str, limit: int = 240) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def parse_text(
    text: str, file: str, scope: str, globs: list[str] | None = None, advice: bool = True
) -> tuple[list[Rule], list[tuple[int, str]]]:
    """Every rule of one file, and the sentences refused for claiming authority over us.

    ``globs`` from the caller (Copilot's ``applyTo``) are overridden by the
    file's own frontmatter (Cursor's ``globs``); a Cursor rule that neither
    applies always nor names globs is attached by hand, so it is advice.
    """
    found, front = items(text)
    file_globs = _globs(front) if front else list(globs or [])
    manual = (
        file.endswith(".mdc") and not file_globs and front.get("alwaysapply", "").lower() != "true"
    )
    rules: list[Rule] = []
    refused: list[tuple[int, str]] = []
    for item in found:
        check_time()  # a file of 256 KiB of rules, before a tool call: the hook's time holds
        got, bad = classify(item, file, scope, file_globs, advice)
        if manual:
            got = [r if r.kind in (ADVICE, IGNORED) else _as_advice(r) for r in got]
        rules.extend(got)
        refused.extend((item.start, b) for b in bad)
    return rules, refused


def _as_advice(rule: Rule) -> Rule:
    return Rule(rule.file, rule.start, rule.end, rule.text, ADVICE, rule.scope, list(rule.globs))


def _globs(front: dict[str, str]) -> list[str]:
    raw = front.get("globs") or front.get("applyto") or ""
    raw = raw.strip().strip("[]")
    return [g.strip().strip("\"'") for g in raw.split(",") if g.strip().strip("\"'")]
