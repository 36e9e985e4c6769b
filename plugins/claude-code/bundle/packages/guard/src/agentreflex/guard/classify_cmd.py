"""``agentreflex guard classify``: how the guard reads your own agents' summaries.

Reads JSON Lines on stdin, each ``{"text": "..."}`` (other keys are echoed
back under ``id`` when one is given), and writes exactly one JSON line per
input line::

    {"classification": "candidate" | "abstain" | "clear", "reason": "...", "clause": "..."}

``candidate`` would open a low-confidence (never blocking) obligation,
``abstain`` is counted as an uncertain active-looking summary, ``clear`` is
ignored.  A line that is not a JSON object with a string ``text`` (or is not
UTF-8, or is longer than 1 MiB) gets ``{"classification": null, "error": ...}``
and the exit status is 1; the other lines are still answered.  Nothing is
stored and nothing leaves the machine.
"""

from __future__ import annotations

import json

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, BinaryIO, TextIO

MAX_LINE = 1024 * 1024
_LABELS = {"candidate": "candidate", "uncertain": "abstain", "clear": "clear"}


def verdict(text: str) -> dict[str, Any]:
    """The JSON verdict for one summary."""
    from agentreflex.guard.classifier import explain

    label, reason, clause = explain(text)
    return {"classification": _LABELS[label], "reason": reason, "clause": clause[:200]}


def _line_verdict(raw: bytes) -> dict[str, Any]:
    if len(raw) > MAX_LINE:
        return {"classification": None, "error": "line is longer than 1 MiB"}
    try:
        obj = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        return {"classification": None, "error": "line is not valid UTF-8"}
    except (ValueError, RecursionError):
        return {"classification": None, "error": "line is not valid JSON"}
    if not isinstance(obj, dict) or not isinstance(obj.get("text"), str):
        return {"classification": None, "error": 'expected an object with a string "text"'}
    out = verdict(obj["text"])
    if isinstance(obj.get("id"), (str, int)) and not isinstance(obj.get("id"), bool):
        out = {"id": obj["id"], **out}
    return out


def classify_lines(stdin: BinaryIO, out: TextIO) -> int:
    """Answer every non-blank input line; 1 when any line was unusable."""
    status = 0
    while True:
        raw = stdin.readline(MAX_LINE + 1)
        if not raw:
            break
        if len(raw) > MAX_LINE and not raw.endswith(b"\n"):
            while raw and not raw.endswith(b"\n"):  # drop the rest of the long line
                raw = stdin.readline(MAX_LINE + 1)
            raw = b"x" * (MAX_LINE + 1)
        if not raw.strip():
            continue
        result = _line_verdict(raw.rstrip(b"\r\n"))
        if result.get("error"):
            status = 1
        out.write(json.dumps(result, ensure_ascii=False) + "\n")
        out.flush()
    return status
