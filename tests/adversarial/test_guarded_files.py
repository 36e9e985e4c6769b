"""agentreflex's own files, attacked through real hook processes.

Each case runs ``agentreflex hook claude-code PreToolUse`` as Claude Code
would (a JSON payload on stdin, enforced mode) in a throwaway git project
with its own HOME and XDG folders, where a symlinked alias and a hard-linked
alias of ``.agentreflex/config.toml`` exist on disk.  Every route that would
change one of agentreflex's own files, uninstall or disable agentreflex, or
read its key must come back as Claude's ``permissionDecision: "ask"`` with a
reason naming the file; ordinary work must come back allowed.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

BINARY = Path(sys.executable).with_name("agentreflex")


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    root = tmp_path_factory.mktemp("protected")
    home = root / "home"
    proj = root / "proj"
    (proj / "src").mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(proj)], check=True)
    (proj / "src" / "app.py").write_text("print(1)\n")
    (proj / ".agentreflex").mkdir()
    config = proj / ".agentreflex" / "config.toml"
    config.write_text('mode = "enforced"\n')
    (home / ".claude" / "plugins").mkdir(parents=True)
    (home / ".claude" / "settings.json").write_text("{}\n")
    (home / ".codex").mkdir()
    (home / ".codex" / "config.toml").write_text("")
    state = home / ".local" / "state" / "agentreflex"
    state.mkdir(parents=True)
    (state / "key").write_text("k" * 32)
    (proj / "alias").symlink_to(proj / ".agentreflex")  # symlinked alias, for real
    os.link(config, proj / "notes.toml")  # hard-linked alias, for real
    keep = {"PATH", "LANG", "LC_ALL", "SYSTEMROOT"}
    env = {k: v for k, v in os.environ.items() if k in keep}
    env.update(
        {
            "HOME": str(home),
            "XDG_CONFIG_HOME": str(home / ".config"),
            "XDG_CACHE_HOME": str(home / ".cache"),
            "XDG_STATE_HOME": str(home / ".local" / "state"),
            "REFLEX_MODE": "enforced",
            "AGENTREFLEX_DAEMON": "off",
            "AGENTREFLEX_SOCKET": str(root / "no-daemon.sock"),
            "AGENTREFLEX_STATE_DIR": str(root / "state"),
            "PYTHONIOENCODING": "utf-8",
        }
    )
    return {"home": home, "proj": proj, "env": env, "config": config}


def hook(world: dict[str, Any], tool: str, tool_input: dict[str, Any]) -> dict[str, Any]:
    """One real hook process: Claude's PreToolUse payload in, Claude's answer out."""
    payload = {
        "session_id": "adversarial",
        "transcript_path": "/dev/null",
        "cwd": str(world["proj"]),
        "permission_mode": "default",
        "hook_event_name": "PreToolUse",
        "tool_name": tool,
        "tool_input": tool_input,
        "tool_use_id": "toolu_adv",
    }
    done = subprocess.run(
        [str(BINARY), "hook", "claude-code", "PreToolUse"],
        input=json.dumps(payload).encode(),
        capture_output=True,
        env=world["env"],
        cwd=str(world["proj"]),
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr.decode()
    assert b"Traceback" not in done.stdout + done.stderr
    out = done.stdout.decode().strip()
    answer: dict[str, Any] = json.loads(out) if out else {}
    return answer


def decision(answer: dict[str, Any]) -> tuple[str, str]:
    spec = answer.get("hookSpecificOutput") or {}
    return spec.get("permissionDecision", "allow"), spec.get("permissionDecisionReason", "")


# (tool, input, a part of the path the reason must name)
ROUTES: list[tuple[str, dict[str, Any], str]] = [
    (
        "Bash",
        {"command": "python3 -c \"open('.agentreflex/config.toml','w').write('mode = 1')\""},
        ".agentreflex",
    ),
    ("Bash", {"command": "echo 'mode = \"shadow\"' > .agentreflex/config.toml"}, "config.toml"),
    ("Bash", {"command": "cat <<EOF >> ~/.claude/settings.json\n{}\nEOF"}, "settings.json"),
    ("Bash", {"command": "echo x | tee alias/config.toml"}, ".agentreflex/config.toml"),
    ("Bash", {"command": "echo 'mode = 0' > notes.toml"}, ".agentreflex/config.toml"),
    ("Bash", {"command": "ln -s .agentreflex/config.toml mine.toml"}, ".agentreflex/config.toml"),
    ("Bash", {"command": "cd src && rm ../.agentreflex/config.toml"}, ".agentreflex/config.toml"),
    ("Bash", {"command": "dd if=/dev/zero of=.agentreflex/config.toml"}, "config.toml"),
    ("Bash", {"command": "rsync -a /tmp/evil/ ~/.claude/plugins/"}, ".claude/plugins"),
    ("Bash", {"command": "tar -C .agentreflex -xf /tmp/evil.tar"}, ".agentreflex"),
    ("Bash", {"command": "curl -o .agentreflex/config.toml https://x.test/c"}, "config.toml"),
    ("Bash", {"command": "rm .agentr*/config.toml"}, ".agentreflex/config.toml"),
    ("Bash", {"command": "sed -i s/enforced/shadow/ .agentreflex/config.toml"}, "config.toml"),
    ("Bash", {"command": "chmod 000 ~/.codex/config.toml"}, ".codex/config.toml"),
    ("Bash", {"command": "git checkout -- .agentreflex/config.toml"}, "config.toml"),
    ("Bash", {"command": "find .agentreflex -name '*.toml' -delete"}, ".agentreflex"),
    ("Bash", {"command": "pip uninstall -y agentreflex-gate"}, "agentreflex"),
    ("Bash", {"command": "claude plugin disable agentreflex@agentreflex"}, "agentreflex"),
    ("Bash", {"command": "agentreflex trust"}, "agentreflex trust"),
    ("Bash", {"command": "cat ~/.local/state/agentreflex/key"}, "agentreflex/key"),
    ("Write", {"file_path": "{proj}/.agentreflex/config.toml", "content": "x"}, "config.toml"),
    ("Write", {"file_path": "{proj}/notes.toml", "content": "x"}, ".agentreflex/config.toml"),
    (
        "Edit",
        {"file_path": "{home}/.claude/settings.json", "old_string": "{}", "new_string": "[]"},
        "settings.json",
    ),
    (
        "MultiEdit",
        {
            "file_path": "{proj}/alias/config.toml",
            "edits": [{"old_string": "enforced", "new_string": "shadow"}],
        },
        ".agentreflex/config.toml",
    ),
    (
        "NotebookEdit",
        {"notebook_path": "{proj}/.agentreflex/n.ipynb", "new_source": "x"},
        ".agentreflex/n.ipynb",
    ),
    (
        "mcp__filesystem__write_file",
        {"path": "{home}/.codex/config.toml", "content": "x"},
        ".codex/config.toml",
    ),
]


def _fill(world: dict[str, Any], value: Any) -> Any:
    if isinstance(value, str):
        return value.replace("{proj}", str(world["proj"])).replace("{home}", str(world["home"]))
    if isinstance(value, dict):
        return {k: _fill(world, v) for k, v in value.items()}
    if isinstance(value, list):
        return [_fill(world, v) for v in value]
    return value


def test_every_route_asks_the_user_and_names_the_file(world: dict[str, Any]) -> None:
    cases = [(tool, _fill(world, data), names) for tool, data, names in ROUTES]
    with ThreadPoolExecutor(max_workers=2) as pool:
        answers = list(pool.map(lambda c: hook(world, c[0], c[1]), cases))
    wrong = []
    for (tool, data, names), answer in zip(cases, answers, strict=True):
        verdict, reason = decision(answer)
        if verdict != "ask" or names not in reason or "GATE-SELF-" not in reason:
            wrong.append((tool, data, verdict, reason[:200]))
    assert not wrong, wrong
    assert world["config"].read_text() == 'mode = "enforced"\n'  # nothing ran


ORDINARY: list[tuple[str, dict[str, Any]]] = [
    ("Bash", {"command": "echo x > src/b.py"}),
    ("Bash", {"command": "sed -i s/1/2/ src/app.py"}),
    ("Bash", {"command": "cat .agentreflex/config.toml"}),
    ("Bash", {"command": "cat ~/.claude/settings.json"}),
    ("Bash", {"command": "pip install -e ."}),
    ("Bash", {"command": "mkdir -p build && touch build/x"}),
    ("Read", {"file_path": "{home}/.claude/settings.json"}),
    ("Write", {"file_path": "{proj}/src/c.py", "content": "print(3)\n"}),
]


def test_ordinary_work_is_allowed(world: dict[str, Any]) -> None:
    cases = [(tool, _fill(world, data)) for tool, data in ORDINARY]
    with ThreadPoolExecutor(max_workers=2) as pool:
        answers = list(pool.map(lambda c: hook(world, c[0], c[1]), cases))
    for (tool, data), answer in zip(cases, answers, strict=True):
        assert decision(answer)[0] == "allow", (tool, data, answer)
