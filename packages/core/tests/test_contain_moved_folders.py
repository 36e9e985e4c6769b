"""The temp folder and the hosts' own folders where the session's variables move them.

Red-team rt96, after rt92 (a cache variable at a folder something runs from later moves
nothing):

* ``TMPDIR`` is the one temp folder programs use (``{tmp}``), and it was made writable
  wherever it pointed: ``~/.ssh``, ``~/.local/bin`` on the PATH, the folder that holds this
  project and the user's others, the guard's own state.  The same rule holds it now: such
  a value moves nothing, and the temp folders are the system's.
* ``runs_later`` folders that ``XDG_CONFIG_HOME``, ``CLAUDE_CONFIG_DIR``, ``CODEX_HOME`` or
  ``COPILOT_HOME`` put outside home (``/tmp/cfg``) were writable as part of the temp folder,
  though the host reads its settings, hooks and commands from there next session.
* An ``{env:NAME}`` read-only entry whose value the rule refuses (meant for writable
  entries) lost the read-only entry with it.

Each is shown with a real command in bubblewrap, and the file it aimed at checked after.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from agentreflex.core.contain import boundary as contain
from agentreflex.core.contain.policy import placeholders
from agentreflex.core.state import userdirs


def _run(command: str, project: Path) -> subprocess.CompletedProcess[str]:
    if contain.engine_path() is None:
        pytest.fail("bubblewrap is not installed: `apt-get install -y bubblewrap`")
    line = contain.rewrite(command, str(project))
    return subprocess.run(
        ["bash", "-c", line], cwd=project, capture_output=True, text=True, timeout=120
    )


@pytest.fixture
def src(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """``~/src`` with this project and another one in it, ``~/.local/bin`` on the PATH."""
    home = Path(os.environ["HOME"])
    for folder in ("src/app", "src/other", ".ssh", ".local/bin", "tmp"):
        (home / folder).mkdir(parents=True)
    (home / "src" / "other" / "Makefile").write_text("all:\n")
    Path(userdirs.user_state_dir()).mkdir(parents=True)
    monkeypatch.setenv("PATH", f"{home}/.local/bin:/usr/bin:/bin")
    # a temp folder of the test's own: the harness's TMPDIR may hold home (the rule refuses it)
    (tmp_path / "t").mkdir()
    monkeypatch.setenv("TMPDIR", str(tmp_path / "t"))
    return home / "src" / "app"


@pytest.mark.parametrize(
    "where", [".ssh", ".local/bin", "src", ".local/state/agentreflex", ".local"]
)
def test_a_temp_folder_the_rule_refuses_is_not_writable(
    src: Path, monkeypatch: pytest.MonkeyPatch, where: str
) -> None:
    home = Path(os.environ["HOME"])
    folder = home / where
    folder.mkdir(parents=True, exist_ok=True)
    monkeypatch.setenv("TMPDIR", str(folder))
    target = home / "src" / "other" / "Makefile" if where == "src" else folder / "planted"
    done = _run(f"echo planted > {target}", src)
    assert done.returncode != 0
    assert not (folder / "planted").exists()
    assert (home / "src" / "other" / "Makefile").read_text() == "all:\n"
    # and the plan says the temp folders are the system's
    assert str(folder) not in placeholders(str(src), os.environ)["{tmp}"]


def test_an_ordinary_temp_folder_stays_writable(src: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A temp folder of its own in home (``~/tmp``), and one beside it that does not exist yet."""
    home = Path(os.environ["HOME"])
    monkeypatch.setenv("TMPDIR", str(home / "tmp"))
    done = _run(f"echo made > {home}/tmp/file", src)
    assert done.returncode == 0, done.stderr
    assert (home / "tmp" / "file").read_text() == "made\n"
    for value in ("/tmp/x", "/var/tmp", str(home / "new-folder")):
        env = {**os.environ, "TMPDIR": value}
        assert value in placeholders(str(src), env)["{tmp}"], value


def test_a_temp_folder_above_home_or_the_project_moves_nothing(tmp_path: Path) -> None:
    """Above home (``TMPDIR=/scratch``, home ``/scratch/home``) or the project's folder, the
    whole of it would be writable: the user's other folders there, other users' homes.  Under
    the system's temp folder in this test, so shown by the plan: none of them is a temp
    folder, and no writable mount stands at or above them."""
    home = tmp_path / "scratch" / "home"
    project = tmp_path / "work" / "app"
    home.mkdir(parents=True)
    project.mkdir(parents=True)
    for value in (tmp_path / "scratch", home, tmp_path / "work", project, tmp_path):
        env = {"HOME": str(home), "TMPDIR": str(value), "PATH": "/usr/bin:/bin"}
        assert userdirs.temp_dirs(env)[-1] == str(value)  # what programs still use
        assert placeholders(str(project), env)["{tmp}"] == [
            "/tmp",
            "/var/tmp",
            "/dev/shm",
        ], value
        result = contain.plan(str(project), contain.load_policy(), env)
        assert contain.Mount(str(value), "rw") not in result.mounts


@pytest.mark.parametrize(
    ("variable", "inside"),
    [
        ("XDG_CONFIG_HOME", "autostart/agent.desktop"),
        ("XDG_CONFIG_HOME", "systemd/user/agent.service"),
        ("CLAUDE_CONFIG_DIR", "commands/deploy.md"),
        ("CLAUDE_CONFIG_DIR", "CLAUDE.md"),
        ("CODEX_HOME", "prompts/x.md"),
        ("COPILOT_HOME", "agents/x.agent.md"),
    ],
)
def test_a_hosts_folder_moved_out_of_home_is_read_only(
    tmp_path: Path, src: Path, monkeypatch: pytest.MonkeyPatch, variable: str, inside: str
) -> None:
    """The host reads its settings, commands and instructions from there at its next start,
    outside any boundary: as read-only as ``~/.config`` and ``~/.claude`` in home."""
    temp = tmp_path / "t"  # (a TMPDIR above the folder would be refused: rt92's rule)
    folder = tmp_path / "moved" / variable.lower()
    (folder / Path(inside).parent).mkdir(parents=True)
    monkeypatch.setenv(variable, str(folder))
    done = _run(f"echo planted > {folder / inside}; echo kept > {temp}/beside", src)
    assert not (folder / inside).exists()
    assert (temp / "beside").read_text() == "kept\n"  # the temp folder stays writable
    assert "Read-only file system" in done.stderr


def test_a_refused_value_keeps_its_read_only_entry(
    tmp_path: Path, src: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``{env:PLAYWRIGHT_BROWSERS_PATH}/*`` holds the installed browsers read-only; a value the
    rule refuses (at or above a folder on the PATH: the user put a browser's folder there)
    took the entry with it, and the browser under the temp folder was writable."""
    browsers = tmp_path / "t" / "pw"  # in the temp folder: writable but for the entry
    chrome = browsers / "chromium-1140" / "chrome-linux"
    chrome.mkdir(parents=True)
    (chrome / "chrome").write_text("#!/bin/sh\n")
    monkeypatch.setenv("PLAYWRIGHT_BROWSERS_PATH", str(browsers))
    monkeypatch.setenv("PATH", f"{chrome}:/usr/bin:/bin")
    done = _run(f"echo planted > {chrome}/chrome", src)
    assert (chrome / "chrome").read_text() == "#!/bin/sh\n"
    assert "Read-only file system" in done.stderr


def test_doctor_says_why_the_temp_folder_is_not_writable(
    src: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from agentreflex.core.cli import doctor

    said: list[str] = []
    doctor._containment_checks(str(src), True, lambda *a: said.append(" ".join(map(str, a))))
    assert not [s for s in said if "temp folder" in s]  # an ordinary one: nothing to say
    home = Path(os.environ["HOME"])
    monkeypatch.setenv("TMPDIR", str(home / ".ssh"))
    doctor._containment_checks(str(src), False, lambda *a: said.append(" ".join(map(str, a))))
    assert not [s for s in said if "temp folder" in s]  # shadow mode: no boundary
    doctor._containment_checks(str(src), True, lambda *a: said.append(" ".join(map(str, a))))
    line = next(s for s in said if s.startswith("containment temp folder"))
    assert f"TMPDIR={home}/.ssh is" in line and "runs from later" in line, line


def test_install_holds_them_in_claude_codes_sandbox_too(
    tmp_path: Path, src: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``install --sandbox`` takes the same lists: a moved-out host folder and the browsers
    under a refused value are in ``denyWrite``."""
    from agentreflex.core.install.base import Options
    from agentreflex.core.install.sandbox import policy_paths

    config = tmp_path / "cfg"
    config.mkdir()
    chrome = tmp_path / "pw" / "chromium-1140" / "chrome-linux"
    chrome.mkdir(parents=True)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(config))
    monkeypatch.setenv("PLAYWRIGHT_BROWSERS_PATH", str(tmp_path / "pw"))
    monkeypatch.setenv("PATH", f"{chrome}:/usr/bin:/bin")
    opts = Options(scope="project", binary="agentreflex", project=str(src))
    read_only, _unreadable, writable = policy_paths(opts)
    assert str(config) in read_only
    assert str(tmp_path / "pw" / "chromium-1140") in read_only
    assert not [w for w in writable if w.startswith(str(tmp_path / "pw"))]


def test_a_hosts_folder_moved_out_of_home_cant_be_made_either(
    tmp_path: Path, src: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``XDG_CONFIG_HOME=/tmp/cfg`` not made yet: a command that made it, with an autostart
    entry in it, had the user's next login run that entry."""
    config = tmp_path / "cfg"
    monkeypatch.setenv("XDG_CONFIG_HOME", str(config))
    _run(f"mkdir -p {config}/autostart && echo planted > {config}/autostart/a.desktop", src)
    assert not (config / "autostart").exists()
    assert not config.exists() or not any(config.iterdir())


def test_a_hosts_folder_moved_out_of_home_as_a_link_to_nothing_cant_be_made_either(
    tmp_path: Path, src: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``XDG_CONFIG_HOME=/tmp/cfg`` a link to a folder not made yet (left by a command of an
    earlier session, a dotfiles manager's link to a drive not mounted): the link is no mount
    point, and a command that made the folder it leads to, with an autostart entry in it,
    had the user's next login run that entry (red-team rt99)."""
    real = tmp_path / "real"
    config = tmp_path / "cfg"
    config.symlink_to(real)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(config))
    _run(f"mkdir -p {real}/autostart && echo planted > {config}/autostart/a.desktop", src)
    assert not (real / "autostart").exists()
    assert not real.exists() or not any(real.iterdir())
