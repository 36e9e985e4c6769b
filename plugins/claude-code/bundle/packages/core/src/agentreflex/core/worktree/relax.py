"""Allow what can be undone: an in-project discard with a snapshot runs, with the undo hint.

``[worktree] allow_undoable`` (the profile sets the default) decides:

- ``off``: nothing changes; discards ask or block as the reflexes decided.
- ``asks``: an ASK_USER whose every finding is an in-project discard below
  becomes a WARN that ends with "undo with `agentreflex undo N`".
- ``discards``: also the work-tree discards the gate blocks (``git reset
  --hard``, ``git checkout -- .``, ``git restore .``, ``git clean -f``).

Only when the snapshot holds everything the command can destroy:

- the snapshot was taken (not skipped by the size bound, not outside git);
- the command is one plain ``git`` or ``rm`` command: no ``;``, ``&&``, pipe,
  redirection, substitution, variable or ``~``, no ``git -C``/``--git-dir``
  (so it acts on the repository that was saved); every path stays inside the
  work tree after symlinks are resolved;
- ``git clean`` without ``-x``/``-X`` (ignored files are not saved) and
  without ``-ff`` (nested repositories); no ``--recurse-submodules``;
- ``rm``: no ignored file, nested repository or submodule under its paths;
- no file with staged changes that differ from the work tree (the staged
  version is not in the snapshot), no unmerged file;
- ``git stash drop [-q] [N | stash@{N}]`` when the snapshot holds that
  stash's changes (the hook saves the stash before it is dropped);
  ``git merge --abort`` when the snapshot holds the work tree, conflicted
  files included (their resolution so far; not the conflict stages).

The finding codes that may be relaxed are the ones a package declares
``undoable`` in its plugin declaration (the gate: its in-project discards).
Destruction outside the project (``rm -rf ~/x``, a path through ``..`` or a
symlink leading out) never relies on undo: those codes are not declared,
and a path that leaves the work tree keeps the gate's answer.
"""

from __future__ import annotations

import os
import re
import shlex

from agentreflex.core.decision import Decision, Finding, Verdict, merge
from agentreflex.core.worktree.observe import Repo, ignored_under

LEVELS = ("off", "asks", "discards")
_SHELL_SYNTAX = re.compile(r"[;&|<>$`(){}\n\\~!*?\[\]]")


def may_relax(decision: Decision, level: str) -> bool:
    """Could ``level`` relax this decision, if the snapshot and the command allow it?"""
    wanted = {"asks": (Verdict.ASK_USER,), "discards": (Verdict.ASK_USER, Verdict.BLOCK)}
    proposed = decision.proposed
    if proposed not in wanted.get(level, ()):
        return False
    blocking = [f for f in decision.findings if f.verdict.rank >= Verdict.ASK_USER.rank]
    return bool(blocking) and all(_undoable_finding(f, level) for f in blocking)


def _undoable_finding(f: Finding, level: str) -> bool:
    from agentreflex.core.registry import undoable_codes

    codes = undoable_codes()  # declared by the packages whose findings they are
    if f.reflex not in codes.get(f.code, ()):
        return False
    rules = f.detail.get("rules") if isinstance(f.detail, dict) else None
    if isinstance(rules, list) and not set(map(str, rules)) <= codes.keys():
        return False
    return f.verdict is Verdict.ASK_USER or level == "discards"


_STASH_DROP = re.compile(r"git stash drop(?: -q| --quiet)?(?: (?:\d+|stash@\{\d+\}))?")


def is_stash_drop(command: str) -> bool:
    """``git stash drop [-q] [N | stash@{N}]``: the one stash the hook saves before it goes."""
    return _STASH_DROP.fullmatch(command.strip()) is not None


def is_merge_abort(command: str) -> bool:
    """``git merge --abort``: the work tree (with its conflicts) back to before the merge."""
    return command.split() == ["git", "merge", "--abort"]


def command_confined(command: str, cwd: str, repo: Repo) -> bool:
    """True when ``command`` can only touch what a snapshot of ``repo`` holds."""
    if is_stash_drop(command) or is_merge_abort(command):
        return True  # a stash drop touches no file; an abort only the work tree and index
    if _SHELL_SYNTAX.search(command):
        return False
    try:
        words = shlex.split(command)
    except ValueError:
        return False
    if len(words) < 2:
        return False
    if words[0] == "git":
        return _git_confined(words[1:], cwd, repo)
    if words[0] == "rm":
        return _rm_confined(words[1:], cwd, repo)
    return False


def _inside(path: str, cwd: str, repo: Repo) -> bool:
    """``path`` (as the command names it) resolves inside the work tree, not its .git."""
    if os.path.isabs(path):
        return False
    real = os.path.realpath(os.path.join(cwd, path))
    top = os.path.realpath(repo.top)
    if real != top and not real.startswith(top + os.sep):
        return False
    rel = os.path.relpath(real, top)
    return rel.split(os.sep)[0] != ".git"


# The options each subcommand may carry and still only discard what the snapshot holds.
_GIT_FLAGS = {
    "reset": frozenset({"--hard", "-q", "--quiet"}),
    "checkout": frozenset({"-q", "--quiet"}),
    "restore": frozenset({"-W", "--worktree", "-q", "--quiet"}),
}


def _git_confined(args: list[str], cwd: str, repo: Repo) -> bool:
    """``git reset --hard [HEAD]``, ``git checkout [--] PATH...``, ``git restore PATH...``, ``git clean``."""
    sub, rest = args[0], args[1:]
    if sub == "clean":
        return _clean_confined(rest) and all(_inside(p, cwd, repo) for p in _operands(rest))
    dash = rest.index("--") if "--" in rest else len(rest)
    flags, words = rest[:dash], rest[dash + 1 :]
    if sub not in _GIT_FLAGS or not {a for a in flags if a.startswith("-")} <= _GIT_FLAGS[sub]:
        return False
    named = [a for a in flags if not a.startswith("-")]
    if sub == "reset":
        return not words and named in ([], ["HEAD"])  # moving HEAD is more than a discard
    if dash < len(rest) and named not in ([], ["HEAD"]):
        return False  # ``git checkout OTHER -- .`` writes another commit's files too
    # without ``--`` a checkout's word may be a branch: only paths that exist (or ".") count
    exists = all(a == "." or os.path.lexists(os.path.join(cwd, a)) for a in named)
    if sub == "checkout" and dash == len(rest) and not exists:
        return False
    paths = named + words
    return bool(paths) and all(_inside(p, cwd, repo) for p in paths)


def _clean_confined(args: list[str]) -> bool:
    """No ignored files (``-x``, ``-X``) and no nested repositories (``-ff``)."""
    forced = 0
    for a in args:
        if a == "--":
            break
        if a.startswith("--"):
            if a not in ("--force", "--quiet"):
                return False
            forced += a == "--force"
        elif a.startswith("-"):
            letters = a[1:]
            if set(letters) - set("fdq"):
                return False
            forced += letters.count("f")
    return forced == 1


def _operands(args: list[str]) -> list[str]:
    """The words that are not options (everything after ``--`` is one)."""
    if "--" in args:
        k = args.index("--")
        return [a for a in args[:k] if not a.startswith("-")] + args[k + 1 :]
    return [a for a in args if not a.startswith("-")]


def _rm_confined(args: list[str], cwd: str, repo: Repo) -> bool:
    paths = _operands(args)
    if not paths or os.path.exists(os.path.join(repo.top, ".gitmodules")):
        return False
    if not all(_inside(p, cwd, repo) for p in paths):
        return False
    rels = [os.path.relpath(os.path.realpath(os.path.join(cwd, p)), repo.top) for p in paths]
    if any(r == "." for r in rels):
        return False
    return ignored_under(repo, rels) == []


_UNMERGED = frozenset({"DD", "AU", "UD", "UA", "DU", "AA", "UU"})


def snapshot_complete(
    entries: dict[str, str] | None, repo: Repo, unmerged_ok: bool = False
) -> bool:
    """Every uncommitted change is in the snapshot: no nested repository, no staged-and-edited file.

    ``unmerged_ok`` (``git merge --abort``): a conflicted path's work-tree
    bytes (the resolution so far) are what the snapshot holds and what undo
    writes back; the conflict's index stages and MERGE_HEAD are not kept.
    """
    if entries is None:
        return False
    for path, letters in entries.items():
        if path.endswith("/") or os.path.isdir(os.path.join(repo.top, path)):
            return False  # a nested repository: its work is not saved
        if unmerged_ok and letters in _UNMERGED:
            continue
        if letters != "?" and (len(letters) != 2 or "U" in letters or letters in _UNMERGED):
            return False
        if letters != "?" and letters[0] != "." and letters[1] != ".":
            return False  # staged and then edited: the staged bytes are not saved
    return True


def relax(decision: Decision, hint: str) -> None:
    """Turn the discard findings into WARNs carrying ``hint``; recompute the verdict in place."""
    for f in decision.findings:
        if f.verdict.rank >= Verdict.ASK_USER.rank:
            f.verdict = Verdict.WARN
            f.message = f"{f.message} (allowed: {hint})"
            f.detail = {**f.detail, "relaxed_by": "worktree.allow_undoable"}
    merged = merge(decision.findings, decision.mode)
    decision.verdict, decision.proposed = merged.verdict, merged.proposed
