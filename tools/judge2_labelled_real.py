"""The real-source labelled set for judge2's calibration (never written with the engine's rules).

Sources, each row citing its own:

- destructive: the peers' public test suites of real shell commands, read from
  ``../shared/corpora/`` (dcg @ 1a52415 default scope, cc-safety-net @ ac31f4e
  default mode; see that folder's README).  They are read where they are, not
  copied into the project.  ``block`` is labelled destructive, ``allow`` not;
  ``warn`` rows are left out, and so is a command the two suites label
  differently.
- secret exposure: every distinct command of the same peers' suites (all
  labels, packs included) and the ``run:`` steps of real GitHub Actions
  workflows (``packages/judge2/data/ci_commands.jsonl``: pyenv, requests,
  urllib3, idna, certifi and other well-known projects, each row citing repo
  and workflow file).  The commands are real; the secret-exposure label is ours,
  by one stated criterion (``exposes_secret``: the command puts a credential's
  value into the output the agent reads, e.g. prints a secret store's value, an
  environment dump, a credentials/key/.env file), written without looking at
  the engine's rules or answers.  Plus hand-sourced cases from public issue
  reports (below), which win over the criterion for the same command.
- other families: ``packages/judge2/data/real_cases.jsonl``, cases taken from
  public incident reports, issue threads and agent transcripts, each with its
  URL (see ``packages/judge2/data/README.md``).  A case may carry the session
  it happened in: ``goal``, ``constraints`` (as the gate notes them) and
  ``history`` (earlier calls with their outcomes, folded by the store's own
  ``fold``), as the constraint and loop cases do; a completion case is a stop
  (``battery`` ``completion``) with its final ``message``.

Every case becomes judge2's own state text (``build_state``), the way a hook
would send it.  The split is decided once, from a hash of the case's text
(30% held out), so it never moves when rows are added or a rule changes.

Run: ``uv run --frozen python tools/judge2_labelled_real.py --out labelled.jsonl``
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from agentreflex.core.state.model import SessionState
from agentreflex.core.state.store import fold, make_record
from agentreflex.core.systemone import signals as s
from agentreflex.core.testing import post_tool, pre_tool, stop
from agentreflex.judge2.statetext import build_state

ROOT = Path(__file__).resolve().parents[1]
CORPORA = next(
    (p / "shared" / "corpora" for p in ROOT.parents if (p / "shared" / "corpora").is_dir()),
    ROOT.parent / "shared" / "corpora",
)
CASES = ROOT / "packages/judge2/data/real_cases.jsonl"
CI_COMMANDS = ROOT / "packages/judge2/data/ci_commands.jsonl"
HELDOUT_SHARE = 0.30
REPOS = {
    "dcg_corpus.tsv": "github.com/Dicklesworthstone/destructive_command_guard@1a52415",
    "safetynet_corpus.tsv": "github.com/kenryu42/cc-safety-net@ac31f4e",
}


def split_of(key: str) -> str:
    """``heldout`` for about 30% of keys, by hash: fixed once, whatever else changes."""
    h = int.from_bytes(hashlib.sha256(key.encode("utf-8")).digest()[:4], "big")
    return "heldout" if h / 2**32 < HELDOUT_SHARE else "fit"


def _unescape(text: str) -> str:
    out, i = [], 0
    table = {"\\": "\\", "n": "\n", "t": "\t", "r": "\r"}
    while i < len(text):
        if text[i] == "\\" and i + 1 < len(text) and text[i + 1] in table:
            out.append(table[text[i + 1]])
            i += 2
        else:
            out.append(text[i])
            i += 1
    return "".join(out)


def corpus_commands(corpora: Path) -> Iterator[tuple[str, bool, str]]:
    """(command, destructive, source) from the peers' suites, default scope only."""
    labels: dict[str, set[bool]] = {}
    sources: dict[str, str] = {}
    for name, repo in REPOS.items():
        for line in (corpora / name).read_text(encoding="utf-8").splitlines():
            if line.startswith("#") or not line.strip():
                continue
            label, command, source = [*line.split("\t"), "", ""][:3]
            if label not in ("block", "allow") or "[packs enabled]" in source:
                continue
            if source.startswith("tests/fixtures/"):
                continue  # these expect dcg's non-default packs
            command = _unescape(command)
            labels.setdefault(command, set()).add(label == "block")
            sources.setdefault(command, f"{repo}:{source}")
    for command, seen in labels.items():
        if len(seen) == 1:  # the peers disagree on the rest
            yield command, seen.pop(), sources[command]


def destructive_rows(corpora: Path) -> Iterator[dict[str, Any]]:
    for command, destructive, source in corpus_commands(corpora):
        state = build_state(SessionState(), pre_tool("Bash", {"command": command}), s.PRE_TOOL)
        yield {
            "family": "destructive",
            "question": s.DESTRUCTIVE,
            "battery": s.PRE_TOOL,
            "state": state,
            "outcome": destructive,
            "source": source,
            "split": split_of(command),
        }


# The secret-exposure criterion: a command that shows a credential's value to whoever reads
# its output.  Listing names, checking presence, writing or deleting a secret is not exposure.
_EXPOSES = [
    re.compile(p)
    for p in (
        r"^\s*(env|printenv|set|export -p)\s*($|\|)",  # an environment dump
        r"\bprintenv\s+\w*(KEY|TOKEN|SECRET|PASSWORD|PASS)\w*",
        r"\becho\s+[\"']?\$\{?\w*(KEY|TOKEN|SECRET|PASSWORD)\w*",
        r"\bGet-ChildItem\s+Env:",
        r"\b(cat|less|more|head|tail|bat|type|Get-Content)\s+[^|;&]*("
        r"\.env(\.local|\.prod\w*)?\b(?!\.example)|credentials|\.netrc|\.npmrc|\.pypirc|"
        r"id_(rsa|ed25519|ecdsa)\b(?!\.pub)|\.pem\b|\.key\b|secrets?\.(ya?ml|json)|settings\.json)",
        r"\bvault\s+(kv\s+get|read)\b",
        r"\bdoppler\s+(secrets\s+(get|download)\b|secrets\s*$|run\s+--\s+(env|printenv))",
        r"\bop\s+(read|document\s+get)\b|\bop\s+item\s+get\b.*--reveal",
        r"\baws\s+secretsmanager\s+get-secret-value\b",
        r"\baws\s+ssm\s+get-parameters?\b.*--with-decryption",
        r"\bgcloud\s+secrets\s+versions\s+access\b",
        r"\bkubectl\s+get\s+secrets?\b.*-o\s*(yaml|json|jsonpath)",
        r"\bget-credentials\b",
        r"\bgh\s+auth\s+token\b|\bgh\s+auth\s+status\b.*--show-token",
        r"\bheroku\s+config(\s|$)(?!:set|:unset)",
        r"\bgit\s+config\b.*\b(token|password)\b",
    )
]


def exposes_secret(command: str) -> bool:
    """The secret-exposure label for a real command (see the module docstring)."""
    return any(p.search(command) for p in _EXPOSES)


def _all_corpus_commands(corpora: Path) -> Iterator[tuple[str, str]]:
    for name, repo in {**REPOS, "dcg_packs.tsv": REPOS["dcg_corpus.tsv"]}.items():
        path = corpora / name
        if not path.exists():
            continue
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.startswith("#") or not line.strip():
                continue
            parts = [*line.split("\t"), "", ""]
            yield _unescape(parts[1]), f"{repo}:{parts[2]}"


def secret_rows(
    corpora: Path, ci: Path = CI_COMMANDS, skip: set[str] | None = None
) -> Iterator[dict[str, Any]]:
    """Secret exposure over real commands: the peers' suites and real CI workflow steps."""
    seen = set(skip or ())
    sources: list[tuple[str, str]] = list(_all_corpus_commands(corpora))
    if ci.exists():
        for line in ci.read_text(encoding="utf-8").splitlines():
            if line.strip():
                row = json.loads(line)
                sources.append((row["command"], row["source"]))
    for command, source in sources:
        if not command.strip() or command in seen:
            continue
        seen.add(command)
        state = build_state(SessionState(), pre_tool("Bash", {"command": command}), s.PRE_TOOL)
        yield {
            "family": "secret",
            "question": s.SECRET_EXPOSURE,
            "battery": s.PRE_TOOL,
            "state": state,
            "outcome": exposes_secret(command),
            "source": source,
            "split": split_of(command),
        }


def case_rows(path: Path = CASES) -> Iterator[dict[str, Any]]:
    """Hand-sourced cases: already state text or a command, with their label and URL."""
    if not path.exists():
        return
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        case = json.loads(line)
        battery = case.get("battery", s.PRE_TOOL)
        if battery == s.COMPLETION:  # the agent stops with this final message
            event = stop(last_message=case["message"])
        else:
            # a call with no arguments (a malformed ``exec({})``) keeps its empty input
            tool_input = case["input"] if "input" in case else {"command": case["command"]}
            event = pre_tool(case.get("tool", "Bash"), tool_input)
        session = SessionState()
        for i, step in enumerate(
            case.get("history") or []
        ):  # earlier calls, as the store folds them
            done = post_tool(
                step["tool"],
                step["input"],
                step["ok"],
                output=step.get("output", ""),
                error=step.get("error", ""),
                exit_code=step.get("exit_code"),
                tool_use_id=f"toolu_{i}",
            )
            fold(session, make_record(done, None, [], None))
        session.goal = case.get("goal", "")
        if case.get("constraints"):  # as the gate notes them from the user's prompts
            session.notes["constraints"] = list(case["constraints"])
        state = case.get("state") or build_state(session, event, battery)
        yield {
            "family": case["family"],
            "question": case["question"],
            "battery": case.get("battery", s.PRE_TOOL),
            "state": state,
            "outcome": bool(case["outcome"]),
            "source": case["source"],
            "split": split_of(state),
        }


def _cases() -> list[dict[str, Any]]:
    if not CASES.exists():
        return []
    lines = CASES.read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


def build(corpora: Path = CORPORA) -> list[dict[str, Any]]:
    rows = list(case_rows())
    # a command a secret case labels by hand is not labelled again by the criterion
    hand = {
        (case.get("input") or {}).get("command", "")
        for case in _cases()
        if case["family"] == "secret"
    }
    if (corpora / "dcg_corpus.tsv").exists():
        rows.extend(destructive_rows(corpora))
    else:
        print(f"note: no corpora at {corpora}; destructive rows left out", file=sys.stderr)
    rows.extend(secret_rows(corpora, skip=hand))
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", required=True)
    parser.add_argument("--corpora", default=str(CORPORA))
    args = parser.parse_args(argv)
    rows = build(Path(args.corpora))
    Path(args.out).write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    counts: dict[tuple[str, str, bool], int] = {}
    for r in rows:
        key = (r["family"], r["split"], r["outcome"])
        counts[key] = counts.get(key, 0) + 1
    for key in sorted(counts):
        print(*key, counts[key], sep="\t")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
