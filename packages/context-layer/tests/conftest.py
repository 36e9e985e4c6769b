"""A project directory and a hook runner through core's real runtime with the context reflex."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from agentreflex.context_layer.reflex import ContextReflex
from agentreflex.core.hook.runtime import HookOutcome, Plugins, run_hook


class Host:
    def __init__(self, project: Path, home: Path, host: str = "claude-code") -> None:
        self.project = project
        self.host = host
        self.env = {"HOME": str(home), "AGENTREFLEX_DAEMON": "off", "PATH": "/usr/bin:/bin"}
        self.session = "sess-ctx-1"
        self.home = home

    def user_config(self, text: str) -> None:
        """Write the user's own config.toml (it outranks the project's; needs no approval)."""
        folder = self.home / ".config" / "agentreflex"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "config.toml").write_text(text)

    @property
    def state_dir(self) -> Path:
        return self.project / ".agentreflex"

    def hook(self, event: str, **fields: Any) -> HookOutcome:
        payload = {
            "hook_event_name": event,
            "session_id": self.session,
            "cwd": str(self.project),
            **fields,
        }
        return run_hook(
            self.host,
            json.dumps(payload).encode(),
            env=self.env,
            event_hint=event,
            plugins=Plugins(reflexes=[ContextReflex()]),
        )

    def reply(self, event: str, **fields: Any) -> dict[str, Any]:
        out = self.hook(event, **fields).reply.stdout
        return json.loads(out) if out.strip() else {}


@pytest.fixture
def host(tmp_path: Path) -> Host:
    project = tmp_path / "project"
    (project / ".git").mkdir(parents=True)
    (tmp_path / "home").mkdir()
    return Host(project, tmp_path / "home")
