"""The user's "do not X" constraints: extracted from prompts, checked on every action.

Seed 001 keeps this heuristic on purpose: a handful of patterns that catch how
people actually phrase limits ("do not modify tests", "don't touch the
migrations", "never push", "no new dependencies") and turn each into a small
structured constraint ``{"action", "target", "text"}`` stored in the session
state.  Every proposed write, edit, patch or shell command is then checked
against them, whatever the host calls its tools.
"""

from __future__ import annotations

import os
import posixpath
import re

from agentreflex.core.redaction.redact import redact_head
from agentreflex.core.util.lazyre import LazyPattern
from agentreflex.gate.model import CONSTRAINT, Cmd, Hit
from agentreflex.gate.shell.paths import Where, resolve

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

P_CONSTRAINT = 0.9

_NEGATION = LazyPattern(
    r"\b(?:do\s+not|don'?t|dont|never|must\s+not|mustn'?t|should\s+not|shouldn'?t|cannot|"
    r"can'?t|please\s+don'?t|avoid|stop)\s+(.{2,120})",
    re.IGNORECASE,
    hints="do never must should can please avoid stop",
)
_NO_NEW = LazyPattern(
    r"\b(?:no|without(?:\s+adding)?(?:\s+any)?)\s+(?:new\s+|additional\s+|extra\s+)?"
    r"(dependenc(?:y|ies)|deps|packages|libraries|third[- ]party)",
    re.IGNORECASE,
    hints="dependenc deps packages libraries third",
)
_LEAVE = LazyPattern(
    r"\b(?:leave|keep)\s+(.{2,60}?)\s+(?:alone|untouched|unchanged|as is)\b",
    re.IGNORECASE,
    hints="leave keep",
)
_VERBS: dict[str, str] = {
    "modify": "modify",
    "edit": "modify",
    "change": "modify",
    "touch": "modify",
    "alter": "modify",
    "update": "modify",
    "rewrite": "modify",
    "write": "modify",
    "refactor": "modify",
    "mess": "modify",
    "rename": "modify",
    "move": "modify",
    "delete": "delete",
    "remove": "delete",
    "rm": "delete",
    "push": "push",
    "force-push": "push",
    "commit": "commit",
    "merge": "merge",
    "install": "add_dependency",
    "add": "add",
    "run": "run",
    "use": "run",
    "execute": "run",
    "deploy": "run",
    "publish": "run",
}
_STOP = LazyPattern(
    r"\b(?:because|unless|until|since|while|so\s+that|for\s+now|or\s+else|but|and\s+then|"
    r"without|instead|anymore|at\s+all|yet|though|if)\b|[,;:!?()]",
    re.IGNORECASE,
)
_FILLER = LazyPattern(
    r"^(?:the|any|a|an|my|our|your|existing|these|those|this|that|of|with|to|files?\s+in|"
    r"anything\s+(?:in|under|inside)|in|under|inside|files?|up|around)\s+",
    re.IGNORECASE,
)
_DEP_WORDS = LazyPattern(r"dependenc|deps\b|packages?\b|librar|third[- ]party|modules?\b", re.I)
_TEST_WORDS = LazyPattern(
    r"^(?:unit\s+|integration\s+|e2e\s+)?(?:tests?|specs?|test\s+files?|"
    r"test\s+suite|testsuite|fixtures?)$",
    re.IGNORECASE,
)
_TEST_PATH = LazyPattern(
    r"(?:^|/)(?:tests?|__tests__|spec|specs|testing)/|(?:^|/)test_[^/]*$|"
    r"_test\.\w+$|\.(?:test|spec)\.\w+$|(?:^|/)conftest\.py$",
    re.IGNORECASE,
)
_MANIFESTS = LazyPattern(
    r"(?:^|/)(?:requirements[^/]*\.txt|package\.json|pyproject\.toml|"
    r"Cargo\.toml|go\.mod|Gemfile|composer\.json|setup\.py|setup\.cfg|"
    r"Pipfile|environment\.ya?ml|build\.gradle(?:\.kts)?|pom\.xml)$"
)


def extract(prompt: str) -> list[dict[str, str]]:
    """Constraints stated in a user prompt, in order, without duplicates."""
    found: list[dict[str, str]] = []
    # redacted before anything is cut from it (a clause's bounded match, its first 160
    # characters): a cut first keeps the head of a secret no rule knows, in the note
    text = redact_head(prompt, 20_000)
    for m in _NO_NEW.finditer(text):
        found.append({"action": "add_dependency", "target": "dependencies", "text": m.group(0)})
    for clause in _clauses(text):
        for m in _NEGATION.finditer(clause):
            c = _parse_clause(m.group(0), m.group(1))
            if c is not None:
                found.append(c)
    for m in _LEAVE.finditer(text):
        target = _clean_target(m.group(1))
        if target:
            found.append({"action": "modify", "target": target, "text": m.group(0)})
    unique: dict[tuple[str, str], dict[str, str]] = {}
    for c in found:
        unique.setdefault((c["action"], c["target"].lower()), c)
    return list(unique.values())


_SENTENCE = LazyPattern(r"[.!?](?:\s|$)|[\n;]")
_JOINED = LazyPattern(
    r",?\s+(?:and|but|or|also)\s+(?=(?:please\s+)?(?:do\s+not|don'?t|dont|never|"
    r"must\s+not|avoid|no\s)\b)",
    re.IGNORECASE,
    hints="and but or also",
)


def _clauses(text: str) -> list[str]:
    """Sentences, further split where a new "don't"/"never" clause is joined on."""
    out: list[str] = []
    for sentence in _SENTENCE.split(text):
        out.extend(p for p in _JOINED.split(sentence) if p.strip())
    return out


def _parse_clause(whole: str, rest: str) -> dict[str, str] | None:
    words = rest.split()
    if not words:
        return None
    verb = words[0].lower().strip(".,;:!")
    action = _VERBS.get(verb)
    if action is None:
        return None
    tail = " ".join(words[1:])
    if verb == "mess" and tail.lower().startswith("with "):
        tail = tail[5:]
    target = _clean_target(tail)
    if action == "add" and (_DEP_WORDS.search(target) or not target):
        action, target = "add_dependency", "dependencies"
    elif action == "add":
        return None
    if action == "add_dependency" and not target:
        target = "dependencies"
    if action in ("push", "commit", "merge"):
        target = target or "*"
    if not target:
        return None
    return {"action": action, "target": target, "text": whole.strip()[:160]}


def _clean_target(text: str) -> str:
    text = _STOP.split(text, maxsplit=1)[0]
    text = re.split(r"(?<![\w/])\.(?:\s|$)|\.$", text, maxsplit=1)[0].strip()
    previous = None
    while previous != text:
        previous = text
        text = _FILLER.sub("", text).strip()
    text = text.strip("`'\" ")
    return " ".join(text.split()[:4])


# --- checking -------------------------------------------------------------


def _targets_path(target: str, path: str) -> bool:
    if not path:
        return False
    low = path.lower()
    t = target.lower().strip("/")
    if _TEST_WORDS.match(t):
        return bool(_TEST_PATH.search(low))
    if "/" in t or "." in t:
        t_norm = t.lstrip("./")
        return (
            low.endswith(t_norm)
            or ("/" + t_norm.rstrip("/") + "/") in ("/" + low)
            or (low.startswith(t_norm))
        )
    words = [w for w in re.split(r"\W+", t) if len(w) > 2]
    parts = [p for p in re.split(r"[/._-]+", low) if p]
    stems = {w.rstrip("s") for w in words}
    return bool(words) and any(p.rstrip("s") in stems for p in parts)


def check_paths(
    constraints: list[dict[str, str]],
    paths: list[str],
    where: Where,
    segment: str,
    deleting: bool = False,
) -> list[Hit]:
    """Constraints violated by writing (or deleting) ``paths``."""
    hits = []
    for c in constraints:
        action = c.get("action", "")
        if action not in ("modify", "delete", "add_dependency"):
            continue
        if action == "delete" and not deleting:
            continue
        for path in paths:
            if action == "add_dependency":
                continue
            rel = next(
                (r for r in _spellings(path, where) if _targets_path(c.get("target", ""), r)), ""
            )
            if rel:
                hits.append(
                    _hit(c, segment, f"It would {'delete' if deleting else 'change'} {rel}.")
                )
                break
    return hits


def _spellings(path: str, where: Where) -> list[str]:
    """``path`` relative to the project as written, and as the links on its way lead.

    A constraint names what the user sees (``tests``): a link made in one call (``ln -s
    tests t``) and written through in the next (``t/fixtures.py``) changes ``tests`` all the
    same (red-team rt38).  The links are there by the time the later call is judged.
    """
    rel = _relative(path, where)
    full = resolve(path, where)
    try:  # a word the parse could not know (``$(cat todo.txt)``) is a marker holding a NUL
        real, project = os.path.realpath(full), os.path.realpath(where.project)
    except (ValueError, OSError):
        return [rel]
    if real == full or not real.startswith(project.rstrip("/") + "/"):
        return [rel]
    return [rel, real[len(project.rstrip("/")) + 1 :]]


def check_observed(
    constraints: list[dict[str, str]], notes: dict[str, Any], previous_tool: str
) -> list[Hit]:
    """Constraints the previous tool call broke, seen in the work tree after the fact.

    Core records each tool call's real changes (``worktree_changes``, keyed by
    tool-use id): a ``perl -pi`` or a script that rewrote a test is found
    here whatever its words were.  Only the change of the call just before
    is checked, so the next step is stopped once and the agent can put the
    file back (the undo hint names the snapshot taken before that call).
    """
    changes = notes.get("worktree_changes") or []
    last = changes[-1] if isinstance(changes, list) and changes else None
    if not isinstance(last, dict) or not previous_tool or last.get("tool") != previous_tool:
        return []
    snaps = notes.get("worktree_snapshot") or []
    n = snaps[-1].get("n") if snaps and isinstance(snaps[-1], dict) else None
    written = [str(p) for p in [*last.get("created", []), *last.get("modified", [])]]
    deleted = [str(p) for p in last.get("deleted", [])]
    hits: list[Hit] = []
    for c in constraints:
        action = c.get("action", "")
        if action not in ("modify", "delete"):
            continue
        paths = deleted if action == "delete" else written + deleted
        broken = [p for p in paths if _targets_path(c.get("target", ""), p)]
        if broken:
            what = f"The previous command changed {', '.join(broken[:5])}."
            if n is not None:
                what += f" Put it back with `agentreflex undo {n} {' '.join(broken[:5])}`."
            hits.append(_hit(c, "the previous command", what))
    return hits


def check_manifest_edit(
    constraints: list[dict[str, str]], path: str, new: str, old: str, segment: str
) -> list[Hit]:
    """ "No new dependencies" against an edit that adds lines to a dependency manifest."""
    if not any(c.get("action") == "add_dependency" for c in constraints):
        return []
    if not _MANIFESTS.search(path):
        return []
    added = [line for line in new.splitlines() if line.strip() and line not in old.splitlines()]
    deps = [
        line
        for line in added
        if re.search(r"[\w-]+\s*(?:[<>=~^!]=?|\":\s*\"[\^~]?\d|=\s*\"|@\d)", line)
    ]
    if not deps:
        return []
    c = next(c for c in constraints if c.get("action") == "add_dependency")
    return [_hit(c, segment, f"It adds a dependency to {posixpath.basename(path)}.")]


_INSTALLERS: dict[str, frozenset[str]] = {
    "npm": frozenset({"install", "i", "add"}),
    "pnpm": frozenset({"add", "install", "i"}),
    "yarn": frozenset({"add"}),
    "bun": frozenset({"add", "install", "i"}),
    "pip": frozenset({"install"}),
    "pip3": frozenset({"install"}),
    "uv": frozenset({"add", "pip"}),
    "poetry": frozenset({"add"}),
    "cargo": frozenset({"add", "install"}),
    "go": frozenset({"get", "install"}),
    "gem": frozenset({"install"}),
    "bundle": frozenset({"add"}),
    "composer": frozenset({"require"}),
    "pipx": frozenset(),
    "conda": frozenset({"install"}),
    "brew": frozenset({"install"}),
    "apt": frozenset({"install"}),
    "apt-get": frozenset({"install"}),
    "pdm": frozenset({"add"}),
    "hatch": frozenset(),
    "dotnet": frozenset({"add"}),
    "deno": frozenset({"add", "install"}),
}


def check_command(constraints: list[dict[str, str]], cmds: list[Cmd], where: Where) -> list[Hit]:
    """Constraints violated by the commands a shell call would run."""
    if not constraints:
        return []
    hits: list[Hit] = []
    for cmd in cmds:
        hits.extend(_check_cmd(constraints, cmd, where))
    return hits


def _check_cmd(constraints: list[dict[str, str]], cmd: Cmd, where: Where) -> list[Hit]:
    hits: list[Hit] = []
    name, args = cmd.name, cmd.args
    words = [a for a in args if not a.startswith("-")]
    git_sub = (
        next(
            (
                a
                for i, a in enumerate(args)
                if not a.startswith("-") and (i == 0 or args[i - 1] not in ("-C", "-c"))
            ),
            "",
        )
        if name == "git"
        else ""
    )
    for c in constraints:
        action, target = c.get("action", ""), c.get("target", "")
        if action in ("push", "commit", "merge") and git_sub == action:
            generic = target.lower() in (
                "*",
                "",
                "code",
                "changes",
                "anything",
                "remote",
                "upstream",
                "it",
                "them",
            )
            if generic or _mentions(target, args):
                hits.append(_hit(c, cmd.text, f"It runs git {action}."))
        elif action == "add_dependency" and name in _INSTALLERS:
            subs = _INSTALLERS[name]
            if words and (not subs or words[0] in subs) and _installs_package(name, words, args):
                hits.append(_hit(c, cmd.text, f"It installs a new package with {name}."))
        elif action == "run":
            t = target.lower().split()[0] if target else ""
            if t and (
                t == name
                or (t in ("migrations", "migration") and "migrat" in " ".join(args))
                or (len(t) > 3 and t in " ".join(cmd.argv).lower())
            ):
                hits.append(_hit(c, cmd.text, f"It runs {target}."))
    written = _written_paths(cmd, where)
    if written:
        hits.extend(check_paths(constraints, written, where, cmd.text))
    deleted = _deleted_paths(cmd, where)
    if deleted:
        hits.extend(check_paths(constraints, deleted, where, cmd.text, deleting=True))
    return hits


def _installs_package(name: str, words: list[str], args: list[str]) -> bool:
    rest = words[1:]
    if name in ("uv",) and words[:2] == ["pip", "install"]:
        rest = words[2:]
    if name in ("pip", "pip3", "uv") and any(
        a in ("-r", "--requirement", "-e", "--editable") for a in args
    ):
        return False
    return bool([w for w in rest if w not in (".",)])


def _mentions(target: str, args: list[str]) -> bool:
    return any(target.lower() in a.lower() for a in args)


_WRITERS = frozenset(
    {"sed", "perl", "tee", "cp", "mv", "touch", "truncate", "patch", "install", "ln", "chmod"}
)


def _written_paths(cmd: Cmd, where: Where) -> list[str]:
    out = [
        t
        for op, t in cmd.redirects
        if op in (">", ">>", ">|", "&>", "&>>") and t and not t.startswith("/dev/")
    ]
    name, args = cmd.name, cmd.args
    files = [a for a in args if not a.startswith("-")]
    if (name == "sed" and any(a.startswith("-i") or a == "--in-place" for a in args)) or (
        name == "perl" and any(a.startswith("-pi") or a.startswith("-i") for a in args)
    ):
        out += files[1:]
    elif name in ("tee", "touch", "truncate"):
        out += files
    elif name in ("cp", "mv", "install", "ln") and len(files) >= 2:
        out.append(files[-1])
        if name == "mv":
            out += files[:-1]
    elif name == "git" and files[:1] in (["checkout"], ["restore"]) and "--" in args:
        out += args[args.index("--") + 1 :]
    elif name == "git" and files[:1] == ["mv"]:
        out += files[1:]
    return [resolve(p, where, cmd.cwd) for p in out]


def _deleted_paths(cmd: Cmd, where: Where) -> list[str]:
    if cmd.name in ("rm", "unlink", "rmdir", "shred") or (
        cmd.name == "git" and cmd.args[:1] == ["rm"]
    ):
        files = [a for a in cmd.args if not a.startswith("-") and a != "rm"]
        return [resolve(p, where, cmd.cwd) for p in files]
    return []


def _relative(path: str, where: Where) -> str:
    full = resolve(path, where)
    project = where.project.rstrip("/")
    if full.startswith(project + "/"):
        return full[len(project) + 1 :]
    return full


def _hit(c: dict[str, str], segment: str, what: str) -> Hit:
    said = c.get("text", "")
    return Hit(
        "GATE-CONSTRAINT",
        CONSTRAINT,
        P_CONSTRAINT,
        segment,
        f'The user said "{said}". {what} Find a way that respects it, or ask the user.',
    )


def from_state(values: list[Any]) -> list[dict[str, str]]:
    """Constraints noted in the session state (tolerant of odd shapes)."""
    out: list[dict[str, str]] = []
    for v in values:
        items = (
            v if isinstance(v, list) else v.get("constraints", [v]) if isinstance(v, dict) else []
        )
        for item in items:
            if isinstance(item, dict) and isinstance(item.get("action"), str):
                out.append({k: str(val) for k, val in item.items()})
    seen: set[tuple[str, str]] = set()
    unique = []
    for c in out:
        key = (c.get("action", ""), c.get("target", "").lower())
        if key not in seen:
            seen.add(key)
            unique.append(c)
    return unique
