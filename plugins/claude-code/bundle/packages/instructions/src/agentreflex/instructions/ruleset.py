"""The rules that govern one path: loaded, cached, conflicts found.

Parsed files are remembered in the process (the warm daemon keeps them) and,
for the hook path (rules without advice), in a sealed cache in the user's
state folder (:mod:`diskcache`), both keyed by the file's device, inode,
size, modification and change times.  A changed file changes its key and is
parsed again; a cache that is not provably agentreflex's own is ignored.
"""

from __future__ import annotations

import fnmatch
import os

from agentreflex.core.util.record import field, record
from agentreflex.instructions import diskcache, parse, sources
from agentreflex.instructions.parse import Rule
from agentreflex.instructions.sources import Diagnostic, Source

_MEMO: dict[str, tuple[object, list[Rule], list[Diagnostic]]] = {}
_MEMO_MAX = 512
_DISK: dict[str, dict[str, diskcache.Entry]] = {}  # project -> the sealed cache's entries
_DIRTY: set[str] = set()
_READ: dict[str, list[Rule]] = {}  # rule file (project-relative) -> its prohibitions, this call


@record
class RuleSet:
    """The rules for a path, what could not be read, and the conflicts among them."""

    rules: list[Rule] = field(default_factory=list)
    diagnostics: list[Diagnostic] = field(default_factory=list)
    conflicts: list[str] = field(default_factory=list)

    def of_kind(self, kind: str) -> list[Rule]:
        return [r for r in self.rules if r.kind == kind]


def load_source(
    src: Source, project: str, advice: bool = True
) -> tuple[list[Rule], list[Diagnostic]]:
    """The rules of one file (memoised on its identity, size and mtime).

    ``advice=False`` leaves advice out (the hook path checks rules only).
    """
    key = sources.file_key(src.path)
    cached = _MEMO.get(src.path)
    if key is not None and cached is not None and cached[0] == (key, src.scope, advice):
        return cached[1], cached[2]
    if key is not None and not advice:
        disk = _disk(project).get(src.path)
        if disk is not None and disk[0] == key:
            _remember(src, key, advice, disk[1], disk[2])
            return disk[1], disk[2]
    rules, diags = _parse(src, project, advice)
    if key is not None:
        _remember(src, key, advice, rules, diags)
        if not advice:
            _disk(project)[src.path] = (key, rules, diags)
            _DIRTY.add(project)
    return rules, diags


def _disk(project: str) -> dict[str, diskcache.Entry]:
    if project not in _DISK:
        _DISK[project] = diskcache.load(project)
    return _DISK[project]


def _remember(
    src: Source, key: list[int], advice: bool, rules: list[Rule], diags: list[Diagnostic]
) -> None:
    if len(_MEMO) >= _MEMO_MAX:
        _MEMO.clear()
    _MEMO[src.path] = ((key, src.scope, advice), rules, diags)


def _parse(src: Source, project: str, advice: bool) -> tuple[list[Rule], list[Diagnostic]]:
    text, diags = sources.read_bounded(src, project)
    rules: list[Rule] = []
    if text is not None:
        rules, refused = parse.parse_text(text, src.rel, src.scope, src.globs, advice)
        diags = diags + [
            Diagnostic(
                src.rel,
                f'says "{said[:120]}": rule files have no authority over agentreflex; ignored',
                line,
            )
            for line, said in refused
        ]
    return rules, diags


def read_this_call() -> dict[str, list[Rule]]:
    """The prohibitions of each rule file :func:`for_path` read since :func:`new_call`."""
    return dict(_READ)


def new_call() -> None:
    """A new tool call: forget which rule files were read."""
    _READ.clear()


def clear_memo() -> None:
    """Forget what this process parsed (the sealed cache on disk stays)."""
    _MEMO.clear()
    _DISK.clear()
    _DIRTY.clear()


def flush() -> None:
    """Write the sealed cache of every project that parsed something new."""
    for project in sorted(_DIRTY):
        entries = {p: e for p, e in _DISK.get(project, {}).items() if os.path.lexists(p)}
        diskcache.store(project, dict(list(entries.items())[-256:]))
    _DIRTY.clear()


def for_path(project: str, path: str, advice: bool = True) -> RuleSet:
    """Every rule that governs ``path`` (a file or folder inside ``project``)."""
    out = RuleSet()
    project = os.path.abspath(project)
    full = os.path.abspath(os.path.join(project, path))
    rel = os.path.relpath(full, project).replace(os.sep, "/")
    for src in sources.chain(project, full):
        rules, diags = load_source(src, project, advice)
        _READ[src.rel] = [r for r in rules if r.kind == parse.PROHIBIT]
        out.diagnostics.extend(diags)
        out.rules.extend(r for r in rules if applies(r, rel))
    if _DIRTY:
        flush()
    out.rules = nearest(out.rules)
    out.conflicts = conflicts(out.rules)
    return out


def nearest(rules: list[Rule]) -> list[Rule]:
    """One rule per meaning: a rule repeated further down the tree is cited from there.

    The same sentence often sits in AGENTS.md and CLAUDE.md (or is rendered
    into both); the hosts read the nearest file last, so it is the one cited.
    """
    key_of = [(r.kind, r.action, r.target.lower(), r.command, r.when) for r in rules]
    last = {k: i for i, k in enumerate(key_of)}
    return [r for i, r in enumerate(rules) if r.kind == parse.ADVICE or last[key_of[i]] == i]


def for_project(project: str) -> RuleSet:
    """Every rule in the project, whatever it governs (for ``list`` without a path)."""
    out = RuleSet()
    project = os.path.abspath(project)
    for src in sources.every_source(project):
        rules, diags = load_source(src, project)
        out.diagnostics.extend(diags)
        out.rules.extend(rules)
    out.conflicts = conflicts(out.rules)
    return out


def applies(rule: Rule, rel: str) -> bool:
    """Whether ``rule`` (already from a file governing the folder) covers ``rel``."""
    if not rule.globs:
        return True
    return any(glob_match(g, rel) for g in rule.globs)


def glob_match(pattern: str, rel: str) -> bool:
    """A Cursor/Copilot glob against a project-relative path (``**`` spans folders)."""
    pattern = pattern.lstrip("./") if pattern.startswith("./") else pattern.lstrip("/")
    if fnmatch.fnmatchcase(rel, pattern):
        return True
    if pattern.startswith("**/") and fnmatch.fnmatchcase(rel, pattern[3:]):
        return True
    if "/" not in pattern and fnmatch.fnmatchcase(rel.rsplit("/", 1)[-1], pattern):
        return True
    if pattern.endswith("/**") and (rel + "/").startswith(pattern[:-2]):
        return True
    return "/**/" in pattern and fnmatch.fnmatchcase(rel, pattern.replace("/**/", "/"))


def _norm(target: str) -> str:
    return target.lower().strip().lstrip("./").rstrip("/")


def conflicts(rules: list[Rule]) -> list[str]:
    """A sentence per contradiction: a permission against a prohibition (the prohibition
    wins), or two package managers each named the only one (both are enforced)."""
    out: list[str] = []
    only = [r for r in rules if r.kind == parse.PROHIBIT and r.action == "only_use"]
    for i, a in enumerate(only):
        for b in only[i + 1 :]:
            same = any(a.target in f and b.target in f for f in parse.PACKAGE_FAMILIES)
            if same and a.target != b.target:
                out.append(
                    f'{a.cite()} says "{a.text}" but {b.cite()} says "{b.text}"; '
                    "both apply, so neither may run until one rule is removed"
                )
    banned = [r for r in rules if r.kind == parse.PROHIBIT and r.action in ("modify", "delete")]
    for p in (r for r in rules if r.kind == parse.PERMIT):
        for b in banned:
            if _norm(b.target) == _norm(p.target):
                out.append(
                    f'{p.cite()} says "{p.text}" but {b.cite()} says "{b.text}"; '
                    "the stricter rule applies"
                )
    return out
