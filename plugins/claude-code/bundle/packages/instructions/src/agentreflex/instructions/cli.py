"""``agentreflex instructions ...``: list the rules for a path, render host files.

``list [--path P] [--json] [--cwd DIR]`` shows the rules that govern ``P``
(every rule in the project without it) with ``file:line``, what each one
enforces, conflicts, and files that could not be read.

``render [--check] [--cwd DIR]`` writes the managed section from
``policies/instructions.md`` into each host's instruction file; ``--check``
writes nothing and exits 1 when a file is out of date.  Exit 2: usage error,
no source, or a file refused (damaged markers, a symlink out of the project).
Never a traceback.
"""

from __future__ import annotations

import argparse
import json
import os
import sys

from agentreflex.instructions import parse, render, ruleset
from agentreflex.instructions.render import RenderError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from agentreflex.instructions.parse import Rule


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="agentreflex instructions",
        description="The project's rules for agents: which apply where, one source for every host.",
    )
    sub = p.add_subparsers(dest="command")
    ls = sub.add_parser("list", help="the rules that apply to a path, and where they came from")
    ls.add_argument("--path", default="", help="a file or folder (default: every rule)")
    ls.add_argument("--cwd", default="")
    ls.add_argument("--json", action="store_true")
    ls.add_argument("--advice", action="store_true", help="also list advice (not enforced)")
    r = sub.add_parser("render", help=f"write {render.SOURCE} into each host's instruction file")
    r.add_argument("--check", action="store_true", help="write nothing; exit 1 if out of date")
    r.add_argument("--cwd", default="")
    return p


def main(argv: list[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if args[:1] == ["instructions"]:
        args = args[1:]
    parser = _parser()
    try:
        ns = parser.parse_args(args)
    except SystemExit as exc:
        return int(exc.code or 0)
    if ns.command is None:
        parser.print_help()
        return 2
    from agentreflex.instructions.reflex import project_of

    project = project_of(os.path.abspath(ns.cwd or os.getcwd()))
    try:
        if ns.command == "list":
            return _list(project, ns)
        return _render(project, ns.check)
    except OSError as exc:
        print(f"agentreflex instructions: {exc}", file=sys.stderr)
        return 2


def _list(project: str, ns: argparse.Namespace) -> int:
    if ns.path:
        base = os.path.abspath(ns.cwd or os.getcwd())
        rs = ruleset.for_path(project, os.path.join(base, ns.path))
    else:
        rs = ruleset.for_project(project)
    shown = [r for r in rs.rules if ns.advice or ns.json or r.kind != parse.ADVICE]
    if ns.json:
        print(
            json.dumps(
                {
                    "project": project,
                    "rules": [r.to_json() for r in shown],
                    "conflicts": rs.conflicts,
                    "diagnostics": [
                        {"file": d.cite(), "message": d.message} for d in rs.diagnostics
                    ],
                },
                indent=2,
            )
        )
        return 0
    if not shown:
        print("No enforced rules" + (f" for {ns.path}" if ns.path else "") + ".")
    for rule in shown:
        print(f"{rule.cite():<32} {_what(rule):<28} {rule.text}")
    advice = sum(1 for r in rs.rules if r.kind == parse.ADVICE)
    if advice and not ns.advice:
        print(f"({advice} more lines of advice, not enforced: --advice shows them)")
    for conflict in rs.conflicts:
        print(f"conflict: {conflict}")
    for d in rs.diagnostics:
        print(f"warning: {d.cite()} {d.message}")
    return 0


def _what(rule: Rule) -> str:
    if rule.kind == parse.REQUIRE:
        return f"requires {rule.command} ({rule.when})"
    if rule.kind == parse.PROHIBIT:
        return f"forbids {rule.action} {rule.target}"
    if rule.kind == parse.PERMIT:
        return f"permits {rule.action} {rule.target}"
    if rule.kind == parse.IGNORED:
        return "ignored (no authority)"
    return "advice"


def _render(project: str, check: bool) -> int:
    try:
        report = render.render(project, check=check)
    except RenderError as exc:
        print(f"agentreflex instructions render: {exc}", file=sys.stderr)
        return 2
    for o in report.outcomes:
        if o.error:
            print(f"refused: {o.error}", file=sys.stderr)
        elif o.changed:
            print(f"{'out of date' if check else 'updated'}: {o.file}")
        else:
            print(f"up to date: {o.file}")
    if report.errors:
        return 2
    return 1 if check and report.stale else 0
