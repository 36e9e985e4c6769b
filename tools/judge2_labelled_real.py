"""The real-source labelled set for judge2's calibration (never written with the engine's rules).

Sources, each row citing its own:

- destructive: the peers' public test suites of real shell commands, read from
  ``../shared/corpora/`` (dcg @ 1a52415 default scope, cc-safety-net @ ac31f4e
  default mode; see that folder's README).  They are read where they are, not
  copied into the project.  ``block`` is labelled destructive, ``allow`` not;
  ``warn`` rows are left out, and so is a command the two suites label
  differently.
- other families: ``packages/judge2/data/real_cases.jsonl``, cases taken from
  public incident reports, issue threads and agent transcripts, each with its
  URL (see ``packages/judge2/data/README.md``).

Every case becomes judge2's own state text (``build_state``), the way a hook
would send it.  The split is decided once, from a hash of the case's text
(30% held out), so it never moves when rows are added or a rule changes.

Run: ``uv run --frozen python tools/judge2_labelled_real.py --out labelled.jsonl``
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from agentreflex.core import signals as s
from agentreflex.core.state.model import SessionState
from agentreflex.core.testing import pre_tool
from agentreflex.judge2.statetext import build_state

ROOT = Path(__file__).resolve().parents[1]
CORPORA = next(
    (p / "shared" / "corpora" for p in ROOT.parents if (p / "shared" / "corpora").is_dir()),
    ROOT.parent / "shared" / "corpora",
)
CASES = ROOT / "packages/judge2/data/real_cases.jsonl"
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


def case_rows(path: Path = CASES) -> Iterator[dict[str, Any]]:
    """Hand-sourced cases: already state text or a command, with their label and URL."""
    if not path.exists():
        return
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        case = json.loads(line)
        event = pre_tool(
            case.get("tool", "Bash"), case.get("input") or {"command": case["command"]}
        )
        state = case.get("state") or build_state(SessionState(), event, s.PRE_TOOL)
        yield {
            "family": case["family"],
            "question": case["question"],
            "battery": case.get("battery", s.PRE_TOOL),
            "state": state,
            "outcome": bool(case["outcome"]),
            "source": case["source"],
            "split": split_of(state),
        }


def build(corpora: Path = CORPORA) -> list[dict[str, Any]]:
    rows = list(case_rows())
    if (corpora / "dcg_corpus.tsv").exists():
        rows.extend(destructive_rows(corpora))
    else:
        print(f"note: no corpora at {corpora}; destructive rows left out", file=sys.stderr)
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
