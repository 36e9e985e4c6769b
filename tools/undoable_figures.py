"""How many of the gate corpus's asks and blocks ``[worktree] allow_undoable`` would lift.

    uv run python tools/undoable_figures.py [--json]

Every command of ``packages/gate/tests/corpus/*/*.jsonl`` (deduplicated) is
checked by the gate (``check_command``) in each profile, with the working
directory a scratch repository holding uncommitted work (an edit, a staged
edit, untracked files), as an agent's project usually does.  A command
counts as lifted at a level when :mod:`agentreflex.core.worktree.relax` would
turn its answer into a WARN with the undo hint: every blocking finding an
in-project discard code, the command one plain ``git``/``rm`` command whose
paths stay in the work tree.  The figures behind the profile defaults in
core's README ("Allow what can be undone").
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

from agentreflex.core.decision import Finding, Mode, Verdict, merge
from agentreflex.core.worktree import observe, relax
from agentreflex.gate.check import check_command

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT / "packages" / "gate" / "tests" / "corpus"
PROFILES = ("lean", "balanced", "thorough")


def commands() -> list[str]:
    seen: dict[str, None] = {}
    for path in sorted(CORPUS.glob("*/*.jsonl")):
        for line in path.read_text().splitlines():
            if line.strip():
                seen.setdefault(json.loads(line)["command"], None)
    return list(seen)


def scratch(root: Path) -> Path:
    repo = root / "proj"
    (repo / "src").mkdir(parents=True)
    (repo / "src" / "app.py").write_text("print('app')\n")
    (repo / "README.md").write_text("readme\n")
    env = {**os.environ, "GIT_CONFIG_GLOBAL": "/dev/null", "GIT_CONFIG_NOSYSTEM": "1"}
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@example.invalid"]
    subprocess.run([*git, "init", "-q"], cwd=repo, env=env, check=True)
    subprocess.run([*git, "add", "-A"], cwd=repo, env=env, check=True)
    subprocess.run([*git, "commit", "-qm", "init"], cwd=repo, env=env, check=True)
    (repo / "src" / "app.py").write_text("print('app, edited')\n")
    (repo / "src" / "new.py").write_text("NEW = 1\n")
    (repo / "README.md").write_text("readme, staged\n")
    subprocess.run([*git, "add", "README.md"], cwd=repo, env=env, check=True)
    return repo


def lifted(command: str, repo: Path, found: observe.Repo, profile: str) -> tuple[str, str]:
    """The gate's verdict, and the lowest level that lifts it ("" when none does)."""
    verdict, proposals = check_command(command, cwd=str(repo), profile=profile)
    findings = [
        Finding("gate", p.code, Verdict(p.verdict), p.message, detail={"rules": list(p.rules)})
        for p in proposals
    ]
    decision = merge(findings, Mode.ENFORCED)
    if not relax.command_confined(command, str(repo), found):
        return verdict, ""
    if relax.is_stash_drop(command):
        return verdict, ""  # the scratch repository has no stash: the hook saves none, lifts none
    for level in ("asks", "discards"):
        if relax.may_relax(decision, level):
            return verdict, level
    return verdict, ""


def figures() -> dict[str, object]:
    cmds = commands()
    out: dict[str, object] = {"commands": len(cmds)}
    with tempfile.TemporaryDirectory() as tmp:
        repo = scratch(Path(tmp))
        found = observe.find_repo(str(repo))
        assert found is not None
        for profile in PROFILES:
            verdicts: Counter[str] = Counter()
            lifts: Counter[str] = Counter()
            examples: dict[str, list[str]] = {"asks": [], "discards": []}
            for command in cmds:
                verdict, level = lifted(command, repo, found, profile)
                verdicts[verdict] += 1
                if level:
                    lifts[f"{verdict} at {level}"] += 1
                    examples[level].append(command)
            out[profile] = {"verdicts": dict(verdicts), "lifted": dict(lifts), "examples": examples}
    return out


def main(argv: list[str]) -> int:
    result = figures()
    if "--json" in argv:
        print(json.dumps(result, indent=2))
        return 0
    print(f"{result['commands']} distinct corpus commands, cwd a repository with uncommitted work")
    for profile in PROFILES:
        data = result[profile]
        assert isinstance(data, dict)
        print(f"\n{profile}: gate verdicts {data['verdicts']}")
        print(f"  lifted to WARN + undo hint: {data['lifted'] or 'none'}")
        for level, shown in data["examples"].items():
            for command in shown[:12]:
                print(f"    [{level}] {command}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
