"""``agentreflex guard classify``: JSONL in, one verdict per line out, bad lines answered."""

from __future__ import annotations

import io
import json
import subprocess
import sys

from agentreflex.guard.classify_cmd import MAX_LINE, classify_lines


def run(data: bytes) -> tuple[int, list[dict[str, object]]]:
    out = io.StringIO()
    status = classify_lines(io.BytesIO(data), out)
    return status, [json.loads(line) for line in out.getvalue().splitlines()]


def test_each_line_gets_one_verdict_with_a_reason() -> None:
    lines = [
        {"text": "**Investigating why the retry test fails on Linux**", "id": "a"},
        {"text": "I'll check the adapter."},
        {"text": "Fixing a typo in the README; I will check the wording."},
        {"text": "Reading the files."},
    ]
    status, got = run(b"".join(json.dumps(x).encode() + b"\n" for x in lines))
    assert status == 0
    assert [g["classification"] for g in got] == ["candidate", "abstain", "clear", "clear"]
    assert got[0]["id"] == "a" and "decision signal" in str(got[0]["reason"])
    assert "no decision signal" in str(got[1]["reason"])
    assert "cosmetic" in str(got[2]["reason"])
    assert "no check form" in str(got[3]["reason"])


def test_bad_lines_are_answered_and_the_status_says_so() -> None:
    data = b'{"text": 3}\nnot json\n\xff\xfe\n[1]\n\n{"text": "ok"}\n' + b"x" * (MAX_LINE + 5)
    status, got = run(data)
    assert status == 1
    assert [g.get("error") for g in got] == [
        'expected an object with a string "text"',
        "line is not valid JSON",
        "line is not valid UTF-8",
        'expected an object with a string "text"',
        None,
        "line is longer than 1 MiB",
    ]
    assert got[4]["classification"] == "clear"


def test_the_command_line_entry_point() -> None:
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            "from agentreflex.guard.cli import main; raise SystemExit(main())",
            "classify",
        ],
        input='{"text": "Tracing the crash in the loader back to its cause."}\n',
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["classification"] == "candidate"
