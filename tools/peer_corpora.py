"""Measure the gate on its peers' own test suites (dcg, cc-safety-net).

    uv run --frozen python tools/peer_corpora.py [--dir ../shared/corpora] [--json]
        [--by-source] [--show-misses] [--no-overrides] [--scope NAME]

The peers' suites live outside the project (``../shared/corpora/``, see its
README): TSV files ``label<TAB>command<TAB>source<TAB>rule`` with the command
backslash-escaped.  Each command goes through ``check_command`` with the
working directory a project directly inside ``$HOME`` (``/home/user/project``,
as the peers' suites were asked).  Figures:

* **recall** on ``block`` rows: the gate's verdict is ASK_USER or BLOCK;
* **false-positive rate** on ``allow`` rows: the gate's verdict is ASK_USER or
  BLOCK (a WARN lets the command run, so it is not a false positive);
* ``warn`` rows (the peer only warns) are counted as caught when the gate
  says at least WARN, and reported apart.

Scopes: ``dcg-default`` (dcg_corpus rows without ``[packs enabled]`` and not
from ``tests/fixtures/``), ``dcg-all`` (every dcg_corpus row), ``dcg-packs``
(dcg_packs.tsv) and ``safetynet`` (safetynet_corpus.tsv).  ``--by-source``
adds one line per source file of each scope.

Justified label disagreements are read from
``packages/gate/tests/corpus/peer_overrides.tsv``
(``corpus<TAB>label<TAB>command<TAB>reason``, corpus being the TSV file's stem,
e.g. ``dcg_corpus``); ``--no-overrides`` shows the figures on the peers' own
labels.  Both sets of figures are printed when overrides exist.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from agentreflex.gate.check import check_command

REPO = Path(__file__).resolve().parent.parent
DEFAULT_DIR = REPO.parent / "shared" / "corpora"
OVERRIDES = REPO / "packages" / "gate" / "tests" / "corpus" / "peer_overrides.tsv"
CWD, HOME = "/home/user/project", "/home/user"
_RANK = {"ALLOW": 0, "WARN": 1, "ASK_USER": 2, "BLOCK": 3}
_ESCAPES = {"\\": "\\", "n": "\n", "t": "\t", "r": "\r"}


@dataclass
class Case:
    """One labelled command of a peer's suite."""

    corpus: str
    peer_label: str
    command: str
    source: str
    rule: str
    label: str = ""
    verdict: str = ""


def unescape(text: str) -> str:
    """Undo the corpora's escaping (``\\\\``, ``\\n``, ``\\t``, ``\\r``)."""
    out: list[str] = []
    i = 0
    while i < len(text):
        ch = text[i]
        if ch == "\\" and i + 1 < len(text) and text[i + 1] in _ESCAPES:
            out.append(_ESCAPES[text[i + 1]])
            i += 2
            continue
        out.append(ch)
        i += 1
    return "".join(out)


def load(directory: Path) -> list[Case]:
    """Every row of every ``*.tsv`` in ``directory``."""
    cases = []
    for path in sorted(directory.glob("*.tsv")):
        for line in path.read_text(encoding="utf-8").split("\n"):
            if not line.strip() or line.startswith("#"):
                continue
            parts = line.split("\t")
            parts += [""] * (4 - len(parts))
            label, command, source, rule = parts[:4]
            cases.append(Case(path.stem, label, unescape(command), source, rule))
    return cases


def load_overrides(path: Path) -> dict[tuple[str, str], str]:
    """``(corpus, command) -> label`` from the overrides file (absent: none)."""
    if not path.is_file():
        return {}
    out = {}
    for line in path.read_text(encoding="utf-8").split("\n"):
        if not line.strip() or line.startswith("#"):
            continue
        corpus, label, command, *_ = [*line.split("\t"), "", "", ""]
        if label in ("allow", "block", "warn"):
            out[(corpus, unescape(command))] = label
    return out


def source_file(source: str) -> str:
    """A row's source file, without line numbers or test names."""
    head = source.split(" [", 1)[0].split(" (", 1)[0]
    return head.split(":", 1)[0]


def _is_dcg_default(case: Case) -> bool:
    return (
        case.corpus == "dcg_corpus"
        and "[packs enabled]" not in case.source
        and not case.source.startswith("tests/fixtures/")
    )


SCOPES: dict[str, Callable[[Case], bool]] = {
    "dcg-default": _is_dcg_default,
    "dcg-all": lambda c: c.corpus == "dcg_corpus",
    "dcg-packs": lambda c: c.corpus == "dcg_packs",
    "safetynet": lambda c: c.corpus == "safetynet_corpus",
}


def figures(cases: Iterable[Case], own: bool) -> dict[str, float | int]:
    """Counts, recall and false-positive rate of ``cases``.

    ``own``: on the labels after overrides; otherwise on the peers' labels.
    """
    block = hit = allow = fp = warn = warn_hit = 0
    for case in cases:
        rank = _RANK[case.verdict]
        label = case.label if own else case.peer_label
        if label == "block":
            block += 1
            hit += rank >= 2
        elif label == "allow":
            allow += 1
            fp += rank >= 2
        elif label == "warn":
            warn += 1
            warn_hit += rank >= 1
    return {
        "block": block,
        "caught": hit,
        "recall": round(hit / block, 3) if block else 0.0,
        "allow": allow,
        "false_positives": fp,
        "fp_rate": round(fp / allow, 3) if allow else 0.0,
        "warn": warn,
        "warn_caught": warn_hit,
    }


def run(cases: list[Case]) -> None:
    """Fill in the gate's verdict for each case."""
    for case in cases:
        try:
            case.verdict, _ = check_command(case.command, cwd=CWD, home=HOME, project=CWD)
        except Exception as exc:
            case.verdict = "BLOCK"
            print(
                f"peer_corpora: internal error on {case.command[:80]!r}: {exc!r}", file=sys.stderr
            )


def report(cases: list[Case], by_source: bool) -> dict[str, dict[str, object]]:
    """Figures per scope (and per source file), on the peers' labels and with overrides."""
    out: dict[str, dict[str, object]] = {}
    for name, member in SCOPES.items():
        chosen = [c for c in cases if member(c)]
        if not chosen:
            continue
        entry: dict[str, object] = {"peer_labels": figures(chosen, own=False)}
        n_over = sum(c.label != c.peer_label for c in chosen)
        if n_over:
            entry["with_overrides"] = figures(chosen, own=True)
            entry["overrides"] = n_over
        if by_source:
            sources: dict[str, list[Case]] = {}
            for case in chosen:
                sources.setdefault(source_file(case.source), []).append(case)
            entry["sources"] = {
                src: figures(group, own=True) for src, group in sorted(sources.items())
            }
        out[name] = entry
    return out


def _line(name: str, f: dict[str, float | int]) -> str:
    warn = f" warn {f['warn_caught']}/{f['warn']}" if f["warn"] else ""
    return (
        f"{name:<48} recall {f['recall']:.3f} ({f['caught']}/{f['block']})"
        f"  fp {f['fp_rate']:.3f} ({f['false_positives']}/{f['allow']}){warn}"
    )


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--dir", type=Path, default=DEFAULT_DIR, help="the corpora folder")
    ap.add_argument("--json", action="store_true", help="print JSON")
    ap.add_argument("--by-source", action="store_true", help="one line per source file")
    ap.add_argument("--show-misses", action="store_true", help="list misses and FPs")
    ap.add_argument("--no-overrides", action="store_true", help="ignore peer_overrides.tsv")
    ap.add_argument("--scope", choices=sorted(SCOPES), help="only this scope's misses")
    args = ap.parse_args(argv)
    if not args.dir.is_dir():
        print(f"peer_corpora: no such folder: {args.dir}", file=sys.stderr)
        return 2
    cases = load(args.dir)
    table = {} if args.no_overrides else load_overrides(OVERRIDES)
    for case in cases:
        case.label = table.get((case.corpus, case.command), case.peer_label)
    run(cases)
    result = report(cases, args.by_source)
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        _print(result)
    if args.show_misses:
        _print_misses(cases, args.scope)
    return 0


def _print(result: dict[str, dict[str, object]]) -> None:
    for name, entry in result.items():
        print(_line(name, entry["peer_labels"]))  # type: ignore[arg-type]
        if "with_overrides" in entry:
            label = f"  with {entry['overrides']} overrides"
            print(_line(label, entry["with_overrides"]))  # type: ignore[arg-type]
        for src, fig in dict(entry.get("sources", {})).items():  # type: ignore[call-overload]
            print(_line(f"  {src}", fig))


def _print_misses(cases: list[Case], scope: str | None) -> None:
    member = SCOPES[scope] if scope else (lambda c: True)
    for case in cases:
        if not member(case):
            continue
        rank = _RANK[case.verdict]
        miss = case.label == "block" and rank < 2
        fp = case.label == "allow" and rank >= 2
        if miss or fp:
            kind = "MISS" if miss else "FP  "
            cmd = case.command.replace("\n", "\\n")[:140]
            print(f"{kind} {case.corpus:<16} {case.verdict:<8} {cmd}  [{case.source}]")


if __name__ == "__main__":
    sys.exit(main())
