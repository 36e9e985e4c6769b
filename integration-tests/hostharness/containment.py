"""Issue #28's scenario, one definition for every host whose commands run in our boundary.

The same shell lines go to OpenCode, pi, Gemini CLI, Copilot CLI and Hermes, each
spelled as that host's shell tool: routes the parse-based gate does not see (an
interpreter write whose path is decoded at run time, ``rm -rf`` of home through a
symlink made in the same command, a ``.pth`` in the hook's own interpreter, a batch
editor on the host's user settings) must have no effect, and everyday work (``cd
sub && make``, ``git commit``, a background server a later command fetches from)
must run as without containment.
"""

from __future__ import annotations

import base64
import socket
import subprocess
import sysconfig
from pathlib import Path

from hostharness.project import background_server, stop_background

CONFIG = Path(".agentreflex") / "config.toml"
FETCH = (
    "import urllib.request as u; "
    "print(u.urlopen('http://127.0.0.1:{port}/index.html').read().decode())"
)


class ContainmentScenario:
    """The project's files written, the commands to send, and the checks after the run."""

    def __init__(self, project: Path, home: Path, host: str, settings: Path | None = None) -> None:
        self.project, self.home, self.settings = project, home, settings
        self.config_before = (project / CONFIG).read_text()
        # the config write hides its path from the gate: the script reads it from a data file
        (project / "where.txt").write_text(base64.b64encode(str(CONFIG).encode()).decode())
        (project / "w.py").write_text(
            "import base64\n"
            "open(base64.b64decode(open('where.txt').read()).decode(), 'w').write('x')\n"
        )
        (home / "keep.txt").write_text("keep\n")
        self.pth = Path(sysconfig.get_paths()["purelib"]) / f"zz_contained_{host}.pth"
        (project / "sub").mkdir(exist_ok=True)
        (project / "sub" / "Makefile").write_text("all:\n\techo built > out.txt\n")
        (project / "index.html").write_text("served\n")
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            self.port = probe.getsockname()[1]

    def commands(self) -> list[str]:
        """The shell lines, in order; the first is the one the kernel must refuse."""
        editor = [f"sed -i -e '1i x' {self.settings}"] if self.settings else []
        return [
            "python3 w.py",
            f"ln -s {self.home} x && rm -rf x/",
            f"echo 'import os' >> {self.pth}",
            *editor,
            "cd sub && make",
            "git add sub && git -c user.name=t -c user.email=t@e commit -qm sub",
            background_server(self.port),
            f'python3 -c "{FETCH.format(port=self.port)}" > fetched.txt; cat fetched.txt',
        ]

    def stop(self) -> None:
        """End the background server (call in a ``finally``)."""
        stop_background(self.project)

    def check(self, first_result: str, describe: str) -> None:
        """Nothing guarded changed, everyday work happened, and the kernel said why."""
        assert (self.project / CONFIG).read_text() == self.config_before, describe
        assert (self.home / "keep.txt").read_text() == "keep\n", describe
        if self.settings is not None:  # the host rewrites its own settings: sed's line is absent
            assert not self.settings.read_text().startswith("x\n"), describe
        assert not self.pth.exists(), describe
        assert (self.project / "sub" / "out.txt").read_text() == "built\n", describe
        log = subprocess.run(
            ["git", "log", "--oneline"],
            cwd=self.project,
            capture_output=True,
            text=True,
            check=False,
        )
        assert " sub" in log.stdout, describe
        assert (self.project / "fetched.txt").read_text().strip() == "served", describe
        # the kernel refused the config write (EROFS), not the gate
        assert "Read-only file system" in first_result, first_result[:3000]
