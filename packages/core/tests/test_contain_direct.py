"""A lone plain command runs with no shell of its own inside the boundary, and means the same.

Why a test of sameness: the boundary must change nothing about a command but
what it can reach (issue #28).  Each command here runs as a host runs it,
``bash -c LINE``, once as written and once rewritten, in a real bubblewrap,
and what it printed and how it ended must be the same.
"""

from __future__ import annotations

import os
import shlex
import stat
import subprocess
from pathlib import Path

import pytest
from agentreflex.core.contain import boundary as contain
from agentreflex.core.contain.direct import direct_argv


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    (root / ".agentreflex").mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    script = root / "run.sh"
    script.write_text('#!/bin/sh\necho "ran $# $1"\nexit 3\n')
    script.chmod(0o755)
    bare = root / "bare.sh"  # no #!: bash runs it as bash, execvp as /bin/sh
    bare.write_text('echo "$BASH_VERSION" | cut -c1\n')
    bare.chmod(0o755)
    return root


def _engine() -> None:
    if contain.engine_path() is None:
        pytest.fail("bubblewrap is not installed: `apt-get install -y bubblewrap` (.ci/run does)")


def _both(command: str, project: Path) -> tuple[tuple[int, str, str], tuple[int, str, str], str]:
    """(as written, contained, the contained line), each run by ``bash -c`` as a host runs it."""
    _engine()
    line = contain.rewrite(command, str(project))
    ran = []
    for text in (command, line):
        done = subprocess.run(
            ["bash", "-c", text], cwd=project, capture_output=True, text=True, timeout=60
        )
        ran.append((done.returncode, done.stdout, done.stderr))
    return ran[0], ran[1], line


@pytest.mark.parametrize(
    "command",
    [
        "git status --short",
        "./run.sh one",
        "ls -a .agentreflex",
        "printenv HOME",
        "sh -c 'echo quoted'",
        "echo $((1+2)) | cat",
        "./bare.sh",
        "git rev-parse --is-inside-work-tree",
        "timeout -s TERM 0.2 sleep 5",
    ],
)
def test_a_contained_command_prints_and_ends_as_it_would_uncontained(
    project: Path, command: str
) -> None:
    written, contained, _ = _both(command, project)
    assert contained == written


def test_a_plain_command_has_no_inner_shell_and_the_rest_keep_theirs(project: Path) -> None:
    _, _, line = _both("./run.sh one", project)
    assert shlex.split(line)[4:6] == ["./run.sh", "one"]
    _, _, line = _both("./run.sh one && ./run.sh two", project)
    assert shlex.split(line)[5] == "-c"
    assert contain.inner_command(contain.rewrite("git status --short", str(project))) == (
        "git status --short"
    )


def test_a_plain_command_is_still_inside_the_boundary(project: Path) -> None:
    """bwrap starts it in the same boundary: the guard's folder stays read-only."""
    _engine()
    target = project / ".agentreflex" / "config.toml"
    line = contain.rewrite(f"touch {target}", str(project))
    assert " -c " not in line
    done = subprocess.run(["bash", "-c", line], cwd=project, capture_output=True, timeout=60)
    assert done.returncode != 0 and not target.exists()


@pytest.mark.parametrize(
    ("command", "why"),
    [
        ("echo hi", "a builtin: bash's echo, not /bin/echo"),
        ("cd sub", "a builtin"),
        ("true", "a builtin"),
        ("FOO=1 git status", "an assignment first"),
        ("git status; ls", "an operator"),
        ("ls *.py", "a glob"),
        ("ls ~", "a tilde"),
        ("ls $HOME", "a variable"),
        ("ls 'a b'", "quotes"),
        ("ls # note", "a comment"),
        ("ls > out", "a redirection"),
        ("ls\nid", "a newline"),
        ("no-such-program-here x", "not found: bash says so, exit 127"),
        ("./bare.sh", "a file without #!: bash runs it as a bash script"),
        ("./missing.sh", "not there"),
        ("bash -c ls", "the shape of a shell line"),
        ("", "nothing"),
        ("pytest  -q", "two spaces: read back after the tool, it would not be the same text"),
        (" pytest", "a leading space"),
        ("pytest\t-q", "a tab"),
    ],
)
def test_what_keeps_the_shell(project: Path, command: str, why: str) -> None:
    assert direct_argv(command, str(project), {"PATH": os.environ["PATH"]}) is None, why


def test_the_environment_can_keep_the_shell(project: Path, tmp_path: Path) -> None:
    path = os.environ["PATH"]
    assert direct_argv("git status", str(project), {"PATH": path}) == ["git", "status"]
    for extra in ({"BASH_ENV": "/x"}, {"ENV": "/x"}, {"BASH_FUNC_git%%": "() { :; }"}):
        assert direct_argv("git status", str(project), {"PATH": path, **extra}) is None, extra
    assert direct_argv("git status", str(project), {}) is None  # no PATH: each has its default
    # a relative PATH folder is the command's folder, not the hook's
    assert direct_argv("git status", str(project), {"PATH": f"bin:{path}"}) is None
    # the first executable on PATH, as bash finds it: a folder or a non-executable is passed over
    (tmp_path / "a" / "git").mkdir(parents=True)
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / "git").write_text("#!/bin/sh\n")
    found = direct_argv("git log", str(project), {"PATH": f"{tmp_path}/a:{tmp_path}/b:{path}"})
    assert found == ["git", "log"]
    (tmp_path / "b" / "git").chmod(stat.S_IRWXU)
    assert direct_argv("git log", str(project), {"PATH": f"{tmp_path}/b"}) == ["git", "log"]


def test_a_host_whose_rules_match_the_shell_form_keeps_it(project: Path) -> None:
    _engine()
    line = contain.rewrite("git status", str(project), direct=False)
    assert shlex.split(line)[5:7] == ["-c", "git status"]


def test_a_command_is_planned_in_the_folder_its_call_names(project: Path) -> None:
    """A shell call's own folder (OpenCode's ``workdir``, Gemini CLI's ``dir_path``) is
    where the host runs it, so where its ``./script`` is found: planned from the session's
    folder, ``./run.sh`` there (a ``#!`` script) made the direct form for a ``run.sh`` in
    ``sub`` that has no ``#!``, which bash runs as bash and bubblewrap's execvp as /bin/sh
    (red-team rt41)."""
    from agentreflex.core.decision import Decision, Mode, Verdict
    from agentreflex.core.events import Event, EventKind, build_tool_call
    from agentreflex.core.hosts.contained import contained_command

    _engine()
    sub = project / "sub"
    sub.mkdir()
    bare = sub / "run.sh"
    bare.write_text('echo "$BASH_VERSION" | cut -c1\n')  # bash runs it as bash
    bare.chmod(0o755)
    for host, field in (("opencode", "workdir"), ("gemini", "dir_path")):
        call = build_tool_call("bash", {"command": "./run.sh one", field: "sub"})
        event = Event(kind=EventKind.PRE_TOOL, host=host, session_id="s", cwd=str(project))
        event.tool = call
        allow = Decision(verdict=Verdict.ALLOW, proposed=Verdict.ALLOW, mode=Mode.ENFORCED)
        found = contained_command(event, allow)
        assert found is not None and not found[1], found
        ran = [
            subprocess.run(["bash", "-c", text], cwd=sub, capture_output=True, text=True)
            for text in ("./run.sh one", found[0])
        ]
        assert (ran[1].returncode, ran[1].stdout) == (ran[0].returncode, ran[0].stdout), ran
