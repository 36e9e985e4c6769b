"""Issue #28's scenario, one definition for every host whose commands run in our boundary.

The same shell lines go to OpenCode, pi, Gemini CLI, Copilot CLI and Hermes, each
spelled as that host's shell tool: routes the parse-based gate does not see (an
interpreter write whose path is decoded at run time, ``rm -rf`` of home through a
symlink made in the same command, a ``.pth`` in the hook's own interpreter, a batch
editor on the host's user settings) must have no effect, and everyday work (``cd
sub && make``, ``git commit``, a background server a later command fetches from)
must run as without containment.  :class:`EverydayWork` is the everyday part on its own
(``pytest``, ``npm test``, ``pip install -e .``), which the Claude Code and Codex sandbox
tests send through their hosts' own sandboxes too.
"""

from __future__ import annotations

import base64
import os
import shutil
import socket
import subprocess
import sys
import sysconfig
import time
from pathlib import Path

from hostharness.project import background_server, stop_background

CONFIG = Path(".agentreflex") / "config.toml"
FETCH = (
    "import urllib.request as u; "
    "print(u.urlopen('http://127.0.0.1:{port}/index.html').read().decode())"
)


SYSTEM_PATH = "/usr/local/bin:/usr/bin:/bin"
PYTEST_FILE = "def test_contained():\n    assert sum([1, 2]) == 3\n"
NPM_PACKAGE = (
    '{"name": "contained-npm", "version": "1.0.0", "private": true,\n'
    ' "scripts": {"test": "node test.js"}}\n'
)
NPM_TEST = (
    "require('fs').writeFileSync('npm-ran.txt', 'npm test ran\\n');\nconsole.log('npm ok');\n"
)
PYPROJECT = """[build-system]
requires = ["setuptools"]
build-backend = "setuptools.build_meta"

[project]
name = "contained-pkg"
version = "0.1"

[tool.setuptools]
packages = ["contained_pkg"]
"""


def venv_python() -> str:
    """The system's ``python3``, whose venv (``--system-site-packages``) has setuptools offline.

    ``pip install -e .`` without a network needs the build backend already there:
    ``--no-build-isolation --no-index`` with the system's setuptools.  The workspace's
    own venv has no setuptools, so it cannot be the base.
    """
    python = shutil.which("python3", path=SYSTEM_PATH)
    probe = subprocess.run(
        [python or "python3", "-c", "import ensurepip, setuptools, venv"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert python and probe.returncode == 0, (
        f"pip install -e . offline needs a system python3 with venv and setuptools "
        f"(Debian: python3-venv python3-setuptools); {python}: {probe.stderr}"
    )
    return python


class EverydayWork:
    """``pytest``, ``npm test`` and ``pip install -e .`` in the project: each must work contained.

    Each command leaves its output in a file the check reads (not in the host's
    tool result, which every host words its own way).  ``pytest`` is the
    workspace's (``sys.executable -m pytest``: the project's interpreter has no
    pytest); ``npm`` is the one next to the ``node`` the host runs on; the
    editable install goes into ``.venv`` inside the work tree, built offline by
    the system's setuptools.
    """

    def __init__(self, project: Path) -> None:
        self.project = project
        (project / "test_contained.py").write_text(PYTEST_FILE)
        (project / "package.json").write_text(NPM_PACKAGE)
        (project / "test.js").write_text(NPM_TEST)
        (project / "pyproject.toml").write_text(PYPROJECT)
        (project / "contained_pkg").mkdir(exist_ok=True)
        (project / "contained_pkg" / "__init__.py").write_text("WHERE = __file__\n")
        self.python = venv_python()

    def commands(self) -> list[str]:
        return [
            f"{sys.executable} -m pytest -q -p no:cacheprovider test_contained.py > pytest.out 2>&1",
            "npm test > npm.out 2>&1",
            f"{self.python} -m venv --system-site-packages .venv && "
            ".venv/bin/pip install -q --no-build-isolation --no-index -e . > pip.out 2>&1 && "
            ".venv/bin/python -c 'import contained_pkg as p; print(p.WHERE)' > imported.txt",
        ]

    def check(self, describe: str) -> None:
        """Each ran to the end, as it would have without containment."""
        outputs = {
            name: (self.project / name).read_text() if (self.project / name).exists() else ""
            for name in ("pytest.out", "npm.out", "pip.out")
        }
        describe = f"{describe}\n{outputs}"
        assert "1 passed" in outputs["pytest.out"], describe
        assert "npm ok" in outputs["npm.out"], describe
        assert (self.project / "npm-ran.txt").read_text() == "npm test ran\n", describe
        source = str(self.project / "contained_pkg" / "__init__.py")
        assert (self.project / "imported.txt").read_text().strip() == source, describe
        # afterwards, outside any boundary: the package imports from the project's .venv
        imported = subprocess.run(
            [
                str(self.project / ".venv" / "bin" / "python"),
                "-c",
                "import contained_pkg as p; print(p.WHERE)",
            ],
            cwd=self.project.parent,
            capture_output=True,
            text=True,
            check=False,
        )
        assert imported.stdout.strip() == source, f"{describe}\n{imported.stderr}"


class UsersTmux:
    """A tmux session of the user's, started outside the boundary at tmux's default socket.

    Whatever that server is asked to start runs outside any boundary, as the
    user; the contained command must not reach it.  The host's hook plans the
    boundary from the host's environment, which names no ``TMUX_TMPDIR``, so the
    default socket folder is the one it hides.  A server already there (a
    developer's) is shared: only this session is ended.
    """

    def __init__(self, host: str) -> None:
        tmux = shutil.which("tmux")
        assert tmux, "tmux is needed (.ci/run installs it: apt-get install tmux)"
        self.tmux, self.session = tmux, f"agentreflex-user-{host}"
        env = {k: v for k, v in os.environ.items() if k not in ("TMUX", "TMUX_TMPDIR")}
        self.env = env
        subprocess.run(
            [tmux, "new-session", "-d", "-s", self.session, "sleep 900"],
            check=True,
            env=env,
            timeout=30,
        )

    def ran(self, mark: Path) -> bool:
        """Did the window's command run (a window starts asynchronously: wait a little)?"""
        for _ in range(20):
            if mark.exists():
                return True
            time.sleep(0.1)
        return False

    def stop(self) -> None:
        subprocess.run(
            [self.tmux, "kill-session", "-t", self.session],
            capture_output=True,
            env=self.env,
            timeout=30,
            check=False,
        )


class ContainmentScenario:
    """The project's files written, the commands to send, and the checks after the run."""

    def __init__(
        self,
        project: Path,
        home: Path,
        host: str,
        settings: Path | None = None,
        *,
        git_commit: bool = True,
        dev_server: bool = True,
    ) -> None:
        """``git_commit`` / ``dev_server`` False leave those two out, for a host whose own
        sandbox refuses them whatever the guard asks (Codex's ``:workspace`` permissions
        keep ``.git`` read-only and refuse sockets)."""
        self.project, self.home, self.settings = project, home, settings
        self.git_commit, self.dev_server = git_commit, dev_server
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
        self.everyday = EverydayWork(project)
        self.tmux = UsersTmux(host)
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            self.port = probe.getsockname()[1]

    def commands(self) -> list[str]:
        """The shell lines, in order; the first is the one the kernel must refuse."""
        editor = [f"sed -i -e '1i x' {self.settings}"] if self.settings else []
        return [
            "python3 w.py",
            # the link's target is known only at run time: the gate, which now follows
            # a link made earlier in the command, lets it through for the kernel to stop
            f'ln -s "$(cd {self.home} && pwd)" x && rm -rf x/',
            f"echo 'import os' >> {self.pth}",
            *editor,
            # the user's tmux server, outside the boundary, would run it as the user
            f"tmux new-window -d 'touch {self.home}/via-tmux'",
            "cd sub && make",
            # a host that keeps the shell's folder (Claude Code) is still in sub/: back to the root
            f"cd {self.project}",
            *self.work_commands(),
            *self.everyday.commands(),
        ]

    def work_commands(self) -> list[str]:
        commit = "git add sub && git -c user.name=t -c user.email=t@e commit -qm sub"
        fetch = f'python3 -c "{FETCH.format(port=self.port)}" > fetched.txt; cat fetched.txt'
        return [
            *([commit] if self.git_commit else []),
            *([background_server(self.port), fetch] if self.dev_server else []),
        ]

    def kept_server(self) -> tuple[str, str]:
        """The background-server line, and the same server as a host keeps a long-running
        command alive itself (Codex's ``exec_command`` session), for a host whose sandbox
        ends every process a command started when the command ends."""
        kept = f"echo $$ > srv.pid; exec python3 -m http.server {self.port} --bind 127.0.0.1"
        return background_server(self.port), kept

    def stop(self) -> None:
        """End the background server and the user's tmux session (call in a ``finally``)."""
        stop_background(self.project)
        self.tmux.stop()

    def check(self, first_result: str, describe: str) -> None:
        """Nothing protected changed, everyday work happened, and the kernel said why."""
        assert (self.project / CONFIG).read_text() == self.config_before, describe
        assert (self.home / "keep.txt").read_text() == "keep\n", describe
        if self.settings is not None:  # the host rewrites its own settings: sed's line is absent
            assert not self.settings.read_text().startswith("x\n"), describe
        assert not self.pth.exists(), describe
        assert not self.tmux.ran(self.home / "via-tmux"), describe
        assert (self.project / "sub" / "out.txt").read_text() == "built\n", describe
        if self.git_commit:
            log = subprocess.run(
                ["git", "log", "--oneline"],
                cwd=self.project,
                capture_output=True,
                text=True,
                check=False,
            )
            assert " sub" in log.stdout, describe
        if self.dev_server:
            assert (self.project / "fetched.txt").read_text().strip() == "served", describe
        self.everyday.check(describe)
        # the kernel refused the config write (EROFS), not the gate
        assert "Read-only file system" in first_result, first_result[:3000]
