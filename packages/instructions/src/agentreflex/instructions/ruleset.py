"""The rules that govern one path: loaded, cached per process, conflicts found.

Parsed files are remembered in this process only (the warm daemon keeps
them), keyed by the file's device, inode, size and modification time.  There
is deliberately no cache on disk: a cache file is something the agent can
write, and a forged entry could drop a rule; re-reading a few small files is
cheaper than proving such a cache honest.  A changed file changes its key and
is parsed again.
"""

from __future__ import annotations

import fnmatch
import os

from agentreflex.core.record import field, record
from agentreflex.instructions import parse, sources
from agentreflex.instructions.parse import Rule
from agentreflex.instructions.sources import Diagnostic, Source

_MEMO: dict[str, tuple[object, list[Rule], list[Diagnostic]]] = {}
_MEMO_MAX = 512


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
    if key is not None:
        if len(_MEMO) >= _MEMO_MAX:
            _MEMO.clear()
        _MEMO[src.path] = ((key, src.scope, advice), rules, diags)
    return rules, diags


def clear_memo() -> None:
    _MEMO.clear()


def for_path(project: str, path: str, advice: bool = True) -> RuleSet:
    """Every rule that governs ``path`` (a file or folder inside ``project``)."""
    out = RuleSet()
    project = os.path.abspath(project)
    full = os.path.abspath(os.path.join(project, path))
    rel = os.path.relpath(full, project).replace(os.sep, "/")
    for src in sources.chain(project, full):
        rules, diags = load_source(src, project, advice)
        out.diagnostics.extend(diags)
        out.rules.extend(r for r in rules if applies(r, rel))
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
    """A sentence per permission that contradicts a prohibition (the prohibition wins)."""
    out: list[str] = []
    banned = [r for r in rules if r.kind == parse.PROHIBIT and r.action in ("modify", "delete")]
    for p in (r for r in rules if r.kind == parse.PERMIT):
        for b in banned:
            if _norm(b.target) == _norm(p.target):
                out.append(
                    f'{p.cite()} says "{p.text}" but {b.cite()} says "{b.text}"; '
                    "the stricter rule applies"
                )
    return out
