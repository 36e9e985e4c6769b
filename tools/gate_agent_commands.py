"""Judge the shell commands real coding agents ran (rt77) and count the verdicts.

    uv run --frozen python tools/gate_agent_commands.py [--show ASK_USER,BLOCK] [--json]

``tools/agent_commands.jsonl`` holds one command a line, each with the agent
that ran it and the transcript it was taken from (Claude Code session exports,
Codex runs logged by automaker, Cursor and Claude Code sessions saved by
SpecStory, all committed to public repositories).  The commands are only
judged, never run.  Each is judged in a fresh git project with a home folder
beside it, as the hook judges a command in a real session; the agent's own
checkout (``project``, e.g. ``/Users/kyin/Projects/praDeep``) is spelled as
that project's path, so ``rm /Users/kyin/Projects/praDeep/web/x.spec.ts`` is
judged as the in-project delete it was, not as a delete outside the project,
and the agent's home (``home``) as the probe's home.

No secret of the transcripts is kept: a token or password an agent typed is
replaced, in the saved set, by a made-up value of the same kind (a SiYuan token
by ``REDACTED0token1``, a database password by ``Qm7tRw2xkP``), so the gate
still sees a typed secret where the agent typed one.
"""

from __future__ import annotations

import argparse
import collections
import json
import subprocess
import tempfile
from pathlib import Path

from agentreflex.gate.check import check_command

SET = Path(__file__).resolve().parent / "agent_commands.jsonl"


def _project(root: Path) -> Path:
    """A committed git project under ``root/home``, like the tests' fixture."""
    project = root / "home" / "project"
    (project / "src").mkdir(parents=True)
    (project / "src" / "app.py").write_text("print('hi')\n")
    (project / ".gitignore").write_text("dist/\n__pycache__/\n")
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run([*git, "init", "-q"], cwd=project, check=True)
    subprocess.run([*git, "add", "-A"], cwd=project, check=True)
    subprocess.run([*git, "commit", "-qm", "init"], cwd=project, check=True)
    return project


def judge(cases: list[dict[str, str]], project: Path) -> list[dict[str, object]]:
    """Each case with the gate's verdict and the rules that fired."""
    out: list[dict[str, object]] = []
    for case in cases:
        command = (
            case["command"]
            .replace(case["project"], str(project))
            .replace(case["home"], str(project.parent))
        )
        verdict, proposals = check_command(
            command, cwd=str(project), home=str(project.parent), project=str(project)
        )
        out.append({**case, "verdict": verdict, "rules": sorted({p.code for p in proposals})})
    return out


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--show", default="", help="verdicts to list, comma-separated")
    ap.add_argument("--json", action="store_true", help="print every judged case as JSON")
    args = ap.parse_args()
    cases = [json.loads(line) for line in SET.read_text().splitlines() if line.strip()]
    with tempfile.TemporaryDirectory() as tmp:
        judged = judge(cases, _project(Path(tmp)))
    show = set(filter(None, args.show.split(",")))
    for case in judged:
        if args.json:
            print(json.dumps(case, ensure_ascii=False))
        elif case["verdict"] in show:
            print(f"{case['verdict']:8} {','.join(case['rules'])}  {case['command']!r}")  # type: ignore[arg-type]
    counts = collections.Counter(str(c["verdict"]) for c in judged)
    by_agent = collections.Counter(str(c["agent"]) for c in judged)
    print(f"{len(judged)} commands ({', '.join(f'{a} {n}' for a, n in by_agent.most_common())})")
    print("  ".join(f"{v} {counts[v]}" for v in ("ALLOW", "WARN", "ASK_USER", "BLOCK")))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
