"""What every host's scenario world has: a project under git, a home, agentreflex's mode.

Each host's harness (``ClaudeProject``, ``CodexProject``, ``HermesProject``,
``JsHostProject``) adds its own config folders and how to run the host.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

GIT = [
    "git",
    "-c",
    "user.name=Test",
    "-c",
    "user.email=test@example.invalid",
    "-c",
    "init.defaultBranch=main",
    "-c",
    "commit.gpgsign=false",
]


class ScenarioProject:
    """``root/project`` (a git work tree with one commit) and ``root/home``."""

    def __init__(self, root: Path, *folders: Path) -> None:
        self.root = root
        self.project = root / "project"
        self.home = root / "home"
        for path in (self.project, self.home, *folders):
            path.mkdir(parents=True, exist_ok=True)
        (self.project / "README.md").write_text("scenario project\n")
        subprocess.run([*GIT, "init", "-q"], cwd=self.project, check=True)
        subprocess.run([*GIT, "add", "-A"], cwd=self.project, check=True)
        subprocess.run([*GIT, "commit", "-q", "-m", "init"], cwd=self.project, check=True)

    def write(self, relative: str, text: str) -> Path:
        """A file in the project (folders made as needed)."""
        path = self.project / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        return path

    def set_mode(self, mode: str) -> None:
        self.write(".agentreflex/config.toml", f'mode = "{mode}"\n')

    @property
    def state_dir(self) -> Path:
        return self.project / ".agentreflex"


def background_server(port: int) -> str:
    """A shell line that starts a web server in the background, as an agent starts a dev server.

    It outlives the host's command (that is the point: containment must not
    stop it), so it writes its pid to ``srv.pid``; :func:`stop_background`
    ends it after the scenario.
    """
    return (
        f"nohup python3 -m http.server {port} --bind 127.0.0.1 > srv.log 2>&1 & "
        "echo $! > srv.pid; sleep 1"
    )


def stop_background(folder: Path) -> None:
    """End the server :func:`background_server` started in ``folder``, if it did."""
    import contextlib
    import os
    import signal

    with contextlib.suppress(OSError, ValueError):  # never started, or already gone
        pid = int((folder / "srv.pid").read_text().strip())
        # a pid from inside a host's pid namespace is not this one's: kill only the server
        if b"http.server" in Path(f"/proc/{pid}/cmdline").read_bytes():
            os.kill(pid, signal.SIGTERM)
    # a contained command's pid is its project's namespace's (contain/pidns.py): the
    # server is found by its folder instead
    for proc in Path("/proc").iterdir():
        with contextlib.suppress(OSError, ValueError):
            here = proc.name.isdigit() and os.readlink(proc / "cwd") == str(folder)
            if here and b"http.server" in (proc / "cmdline").read_bytes():
                os.kill(int(proc.name), signal.SIGTERM)
