"""``agentreflex guard ...``: validate a directive, show the guard status.

``validate-directive`` reads one directive on stdin (an object, a JSON
string, or an ``Evidence-Check: {...}`` marker line), prints a one-line
summary and exits 0 when valid, or prints ``invalid: <precise reason>`` on
stderr and exits 1.  Usage errors exit 2.  Never a traceback.
"""

from __future__ import annotations

import json
import os
import sys

from agentreflex.core.plugin import run_subcommand
from agentreflex.guard import MARKER
from agentreflex.guard.bounds import DIRECTIVE_MAX_BYTES
from agentreflex.guard.directive import Directive, DirectiveError, find_markers, parse

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import TextIO

USAGE = """usage: agentreflex guard <command>

commands:
  validate-directive [--json]   read one Evidence-Check directive on stdin; exit 0 if valid
  status [--json] [STATE_DIR]   show the Reasoning Guard report of each retained session
  classify                      JSONL {"text": ...} on stdin -> one JSONL verdict per line
"""


def main(argv: list[str] | None = None) -> int:
    return run_subcommand(
        argv,
        "guard",
        USAGE,
        {
            "validate-directive": lambda rest: validate_directive(
                rest, sys.stdin, sys.stdout, sys.stderr
            ),
            "status": lambda rest: show_status(rest, sys.stdout),
            "classify": _classify,
        },
    )


def _classify(rest: list[str]) -> int:
    from agentreflex.guard.classify_cmd import classify_lines

    if rest:
        sys.stderr.write(f"classify: unknown argument {rest[0]!r}\n")
        return 2
    return classify_lines(sys.stdin.buffer, sys.stdout)


def read_directive(text: str) -> Directive:
    """Parse stdin text: a marker line, a JSON object or a JSON string."""
    stripped = text.strip()
    if not stripped:
        raise DirectiveError("no directive on stdin")
    if stripped.startswith(MARKER):
        found = find_markers(stripped)
        if not found:
            raise DirectiveError("Evidence-Check marker is not followed by a JSON object")
        if len(found) > 1:
            raise DirectiveError("more than one Evidence-Check marker; give exactly one")
        if isinstance(found[0], DirectiveError):
            raise found[0]
        trailing = stripped[stripped.rindex("}") + 1 :].strip()
        if trailing:
            raise DirectiveError("unexpected text after the directive JSON")
        return found[0]
    return parse(stripped)


def validate_directive(args: list[str], stdin: TextIO, out: TextIO, err: TextIO) -> int:
    as_json = "--json" in args
    unknown = [a for a in args if a != "--json"]
    if unknown:
        err.write(f"validate-directive: unknown argument {unknown[0]!r}\n")
        return 2
    try:
        text = stdin.read(DIRECTIVE_MAX_BYTES * 4 + 1)
    except (OSError, UnicodeDecodeError) as exc:
        return _invalid(f"cannot read stdin: {exc}", as_json, out, err)
    try:
        directive = read_directive(text)
    except DirectiveError as exc:
        return _invalid(str(exc), as_json, out, err)
    if as_json:
        summary = {
            "valid": True,
            "obligation_id": directive.obligation_id,
            "requirements": len(directive.requirements),
            "predicates": directive.predicate_count,
            "blocking": directive.blocking,
        }
        out.write(json.dumps(summary) + "\n")
    else:
        out.write(
            f"valid: {directive.obligation_id} ({len(directive.requirements)} requirement(s), "
            f"{directive.predicate_count} predicate(s), blocking={str(directive.blocking).lower()})\n"
        )
    return 0


def _invalid(reason: str, as_json: bool, out: TextIO, err: TextIO) -> int:
    if as_json:
        out.write(json.dumps({"valid": False, "reason": reason}) + "\n")
    err.write(f"invalid: {reason}\n")
    return 1


def show_status(args: list[str], out: TextIO) -> int:
    from agentreflex.guard.status import status

    as_json = "--json" in args
    rest = [a for a in args if a != "--json"]
    state_dir = rest[0] if rest else os.path.join(os.getcwd(), ".agentreflex")
    data = status(state_dir)
    if as_json:
        out.write(json.dumps({k: v for k, v in data.items() if k != "lines"}, indent=2) + "\n")
    else:
        out.write("\n".join(data["lines"]) + "\n")
    return 0
