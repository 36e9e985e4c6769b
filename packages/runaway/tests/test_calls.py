"""``calls.is_read_command`` answers as the regex it replaced, without compiling it."""

from __future__ import annotations

import json
import random
import re
from pathlib import Path

from agentreflex.runaway.calls import is_read_command

# The pattern the string test replaced (a regex compile on every PreToolUse call).
SHELL_READS = re.compile(
    r"^\s*(?:\w+:\s*)?(cat|less|head|tail|grep|rg|ag|ls|find|fd|tree|wc|file|stat|sed -n|"
    r"git (log|show|diff|status|blame|grep))\b"
)
GATE_CORPUS = Path(__file__).parents[2] / "gate" / "tests" / "corpus"


def _samples() -> list[str]:
    samples = [
        "",
        " ",
        "ls",
        "ls -la",
        "lsof",
        "  cat README.md",
        "Bash: ls -la",
        "Bash:ls",
        "Bash:  git status",
        "exec_command: git diff",
        "Bash: : ls",
        "ls: cannot access",
        "cat:",
        ":ls",
        "git  status",
        "git status2",
        "git statusé",
        "catégorie",
        "file_x",
        "files",
        "sed -n 1p f",
        "sed -i s/a/b/ f",
        "sed -nE x",
        "tree.",
        "wc\u00a0-l",
        "\u2003ls",
        "Bash\u00e9: ls",
        "B_1: fd x",
        "٣: ls",
        "a b: ls",
        "Bash: Bash: ls",
        "\nls",
        "ls\n",
    ]
    for path in sorted(GATE_CORPUS.glob("*/*.jsonl")):
        for line in path.read_text().splitlines():
            if line.strip():
                command = json.loads(line)["command"]
                samples += [command, f"Bash: {command}", f" {command[:40]}"]
    return samples


def test_the_string_test_is_the_regex_on_commands_and_summaries() -> None:
    samples = _samples()
    assert len(samples) > 1000  # the gate's corpus is there
    for text in samples:
        assert is_read_command(text) is bool(SHELL_READS.match(text)), repr(text)


def test_the_string_test_is_the_regex_on_random_text() -> None:
    rnd = random.Random(11)
    pieces = [
        "ls",
        "cat",
        "git",
        " ",
        "  ",
        "\t",
        ":",
        "status",
        "sed",
        "-n",
        "x",
        "_",
        "1",
        "é",
        "\u00a0",
        "-",
        "Bash",
        "file",
        "s",
        "/",
        "\n",
        "ag",
        "rg",
        "fd",
    ]
    for _ in range(20000):
        text = "".join(rnd.choice(pieces) for _ in range(rnd.randint(0, 7)))
        assert is_read_command(text) is bool(SHELL_READS.match(text)), repr(text)
