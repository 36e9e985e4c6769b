"""``agentreflex context ...``: the context layer's commands (cold path).

``agentreflex context prune [--budget TOKENS]`` reads a pi / omp ``context``
event (``{"type": "context", "messages": [...]}``) on stdin and prints the
``ContextEventResult`` (``{"messages": [...]}``, or ``{}`` when nothing was
pruned).  This is how the pi shim reaches :func:`prune.handle_context_event`
until core has a ``context`` event kind; see the README.
``agentreflex context shorten FILE`` prints the saver's view of a log file and
saves the redacted copy (``--state-dir``, default ``./.agentreflex``).
"""

from __future__ import annotations

import json
import os
import sys

from agentreflex.core.plugin import run_subcommand

USAGE = (
    "usage: agentreflex context prune [--budget TOKENS] < context-event.json\n"
    "       agentreflex context shorten FILE [--state-dir DIR]\n"
)
MAX_STDIN = 64 * 1024 * 1024


def main(argv: list[str] | None = None) -> int:
    return run_subcommand(argv, "context", USAGE, {"prune": _prune, "shorten": _shorten})


def _option(rest: list[str], name: str) -> str | None:
    if name in rest:
        at = rest.index(name)
        if at + 1 < len(rest):
            value = rest[at + 1]
            del rest[at : at + 2]
            return value
    return None


def _prune(rest: list[str]) -> int:
    from agentreflex.context_layer.prune import handle_context_event

    budget_text = _option(rest, "--budget")
    try:
        budget = int(budget_text) if budget_text is not None else None
    except ValueError:
        sys.stderr.write(f"agentreflex context prune: --budget {budget_text!r} is not a number\n")
        return 2
    data = sys.stdin.buffer.read(MAX_STDIN + 1)
    try:
        if len(data) > MAX_STDIN:
            raise ValueError(f"more than {MAX_STDIN} bytes")
        event = json.loads(data.decode("utf-8"))
    except (ValueError, UnicodeDecodeError) as exc:
        sys.stderr.write(f"agentreflex context prune: not a JSON event ({exc}); nothing pruned\n")
        sys.stdout.write("{}\n")
        return 0
    sys.stdout.write(json.dumps(handle_context_event(event, budget), ensure_ascii=False) + "\n")
    return 0


def _shorten(rest: list[str]) -> int:
    from agentreflex.context_layer.saver import Limits, PassThrough, shorten_stream

    state_dir = _option(rest, "--state-dir") or os.path.join(os.getcwd(), ".agentreflex")
    if len(rest) != 1:
        sys.stderr.write(USAGE)
        return 2
    try:
        with open(rest[0], "rb") as stream:
            done = shorten_stream(stream, state_dir, "file", Limits())
    except (OSError, PassThrough) as exc:
        sys.stderr.write(f"agentreflex context shorten: {exc}\n")
        return 1
    sys.stdout.write(done.text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
