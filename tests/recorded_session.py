"""Record real sessions for the report and export tests: ``agentreflex replay`` processes.

``agentreflex replay`` runs each host payload through the same pipeline a
hook process runs (every installed reflex, the sealed state store) and is a
real process with its own temporary HOME.  The scenario has what the report
and the export must show: a prompt, allowed and blocked tool calls (rm -rf /,
a force-push, a destructive SQL statement), a tool result, a failure and a
stop, recorded once in shadow mode and once enforced.  ``with_secrets`` adds
every secret format ``tests/test_secrets_everywhere.py`` uses, spread over
prompts, commands, file contents, tool outputs and stop messages.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tools"))
import secrets_eval

AGENTREFLEX = str(Path(sys.executable).with_name("agentreflex"))
BATCH = 4  # secret texts per payload, as test_secrets_everywhere does


def secrets() -> list[tuple[str, str]]:
    """(text, raw secret): 3 per secret rule family, then every command shape."""
    out = [
        (text, secret)
        for items in secrets_eval.rule_positives(per_rule=3).values()
        for text, secret in items
    ]
    return out + list(secrets_eval.COMMAND_SHAPES)


@dataclass
class Recorded:
    home: Path
    project: Path
    env: dict[str, str]
    sessions: list[str] = field(default_factory=list)
    rows: list[dict[str, Any]] = field(default_factory=list)  # replay's decision rows
    by_session: dict[str, list[dict[str, Any]]] = field(default_factory=dict)

    @property
    def state_dir(self) -> Path:
        return self.project / ".agentreflex"

    def run(self, *args: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [AGENTREFLEX, *args],
            capture_output=True,
            text=True,
            env=self.env,
            cwd=self.project,
            timeout=timeout,
            check=False,
        )


def world(root: Path) -> Recorded:
    home, project = root / "home", root / "project"
    home.mkdir(parents=True)
    project.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(home),
        "XDG_CONFIG_HOME": str(home / ".config"),
        "XDG_STATE_HOME": str(home / ".local" / "state"),
        "XDG_CACHE_HOME": str(home / ".cache"),
        "TMPDIR": str(root),
        "AGENTREFLEX_DAEMON": "off",
        "JEV_MODE": "off",
    }
    return Recorded(home, project, env)


def _payload(session: str, project: Path, event: str, **fields: Any) -> dict[str, Any]:
    return {
        "session_id": session,
        "cwd": str(project),
        "hook_event_name": event,
        "transcript_path": str(project / "none.jsonl"),
        **fields,
    }


def scenario(session: str, project: Path) -> list[dict[str, Any]]:
    def bash(n: int, command: str) -> dict[str, Any]:
        return _payload(
            session,
            project,
            "PreToolUse",
            tool_name="Bash",
            tool_input={"command": command},
            tool_use_id=f"toolu_{n}",
        )

    done = {"stdout": "3 passed", "stderr": "", "interrupted": False}
    failed = {"stdout": "", "stderr": "make: *** No rule to make target", "interrupted": False}
    return [
        _payload(session, project, "UserPromptSubmit", prompt="tidy the build and push it"),
        bash(1, "ls -la build"),
        bash(2, "rm -rf /"),
        bash(3, "pytest -q"),
        _payload(
            session,
            project,
            "PostToolUse",
            tool_name="Bash",
            tool_input={"command": "pytest -q"},
            tool_use_id="toolu_3",
            tool_response=done,
        ),
        bash(4, "make dist"),
        _payload(
            session,
            project,
            "PostToolUseFailure",
            tool_name="Bash",
            tool_input={"command": "make dist"},
            tool_use_id="toolu_4",
            tool_response=failed,
            error="make: *** No rule to make target",
        ),
        bash(5, "git push --force origin main"),
        bash(6, "psql -c 'DROP TABLE users'"),
        _payload(
            session,
            project,
            "Stop",
            stop_hook_active=False,
            last_assistant_message="Build tidied and pushed.",
        ),
    ]


def secret_payloads(session: str, project: Path) -> list[dict[str, Any]]:
    """Every secret format through every stored sink: one sink per batch, in turn."""
    texts = [text for text, _ in secrets()]
    out: list[dict[str, Any]] = []
    for i in range(0, len(texts), BATCH):
        text = "\n".join(texts[i : i + BATCH])
        sink, tid = (i // BATCH) % 5, f"toolu_s{i}"
        if sink == 0:
            out.append(_payload(session, project, "UserPromptSubmit", prompt=text))
        elif sink == 1:
            cmd = {"command": text}
            out.append(
                _payload(
                    session,
                    project,
                    "PreToolUse",
                    tool_name="Bash",
                    tool_input=cmd,
                    tool_use_id=tid,
                )
            )
        elif sink == 2:
            write = {"file_path": str(project / "app.py"), "content": text}
            out.append(
                _payload(
                    session,
                    project,
                    "PreToolUse",
                    tool_name="Write",
                    tool_input=write,
                    tool_use_id=tid,
                )
            )
        elif sink == 3:
            out.append(
                _payload(
                    session,
                    project,
                    "PostToolUse",
                    tool_name="Bash",
                    tool_input={"command": "make test"},
                    tool_use_id=tid,
                    tool_response={"stdout": text, "stderr": text, "interrupted": False},
                )
            )
        else:
            out.append(
                _payload(
                    session, project, "Stop", stop_hook_active=False, last_assistant_message=text
                )
            )
    return out


def replay(rec: Recorded, session: str, payloads: list[dict[str, Any]], mode: str) -> None:
    """Record ``payloads`` as one session through ``agentreflex replay`` (a real process)."""
    path = rec.project.parent / f"{session}.jsonl"
    path.write_text("".join(json.dumps(p) + "\n" for p in payloads))
    done = rec.run("replay", str(path), "--mode", mode, timeout=900)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "Traceback" not in done.stderr, done.stderr[-3000:]
    rows = [json.loads(line) for line in done.stdout.splitlines() if line.strip()]
    rec.rows += rows
    rec.by_session[session] = rows
    rec.sessions.append(session)


def recorded(root: Path, with_secrets: bool = False) -> Recorded:
    """A project with a shadow session and an enforced one (and the secrets, if asked)."""
    rec = world(root)
    replay(rec, "shadow-session-1", scenario("shadow-session-1", rec.project), "shadow")
    replay(rec, "enforced-session-2", scenario("enforced-session-2", rec.project), "enforced")
    if with_secrets:
        payloads = secret_payloads("secret-session-3", rec.project)
        replay(rec, "secret-session-3", payloads, "enforced")
    return rec
