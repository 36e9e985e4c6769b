"""A full disk under the state folder leaves the boundary as it was (red-team rt70).

The holder of the project's pid namespace (``contain/pidns.py``) is found by a
record in the user's state folder.  Home, where that folder is, is usually the
project's filesystem, and the project and the developer tools' caches in home
are writable inside the boundary: a contained command can fill that filesystem
(``dd if=/dev/zero of=big``, ``fallocate``), and a file of it stays when the
command has ended.  Once the holder has left (idle, a reboot), the next hook
starts another and must write its record; that write failing must not put the
command in the user's pid namespace, where it (or a process it leaves running)
could kill the hook, and Gemini CLI and Copilot CLI then run the next command
as written (red-team rt30).

The scenario runs in a user and mount namespace of its own (``unshare -Urm``),
so that it can mount a small tmpfs for home and the project, as an unprivileged
user's full home partition is; the victim stands for the hook and the host.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import textwrap

import pytest
from agentreflex.core.contain import boundary

DRIVER = textwrap.dedent(
    """
    import os, subprocess, sys, time
    root = sys.argv[1]
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=8m", "tmpfs", root], check=True)
    home, project = os.path.join(root, "home"), os.path.join(root, "proj")
    os.makedirs(os.path.join(project, ".agentreflex"))
    os.makedirs(home)
    env = dict(os.environ, HOME=home, XDG_STATE_HOME=os.path.join(home, ".local", "state"))
    os.environ.update(env)
    from agentreflex.core.contain import boundary, pidns

    def run(command):
        line = boundary.rewrite(command, project, env=env)
        return line, subprocess.run(["bash", "-c", line], cwd=project, env=env,
                                    capture_output=True, text=True, timeout=60)

    print("first", " 7< " in run("true")[0])
    # the move: fill the filesystem the state folder is on, from the project
    run("dd if=/dev/zero of=big bs=64k 2>/dev/null; true")
    pidns.stop(env)  # the holder leaves, as after five idle minutes
    victim = subprocess.Popen(["sleep", "30"])
    line, done = run(f"(sleep 0.2; kill -KILL {victim.pid}) >/dev/null 2>&1 & sleep 1; true")
    time.sleep(0.5)
    print("joined", " 7< " in line)
    print("victim", "alive" if victim.poll() is None else "killed")
    victim.kill()
    pidns.stop(env)
    """
)


def test_a_full_disk_under_the_state_folder_leaves_no_command_in_the_users_pid_namespace(
    tmp_path: object,
) -> None:
    if boundary.engine_path() is None:
        pytest.fail("bubblewrap is not installed: `apt-get install -y bubblewrap` (.ci/run does)")
    unshare = shutil.which("unshare")
    assert unshare is not None, "util-linux's unshare is needed"
    done = subprocess.run(
        [unshare, "-Urm", "--propagation", "private", sys.executable, "-c", DRIVER, str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    said = dict(line.split(" ", 1) for line in done.stdout.splitlines())
    assert said["first"] == "True", done.stdout  # the namespace is had at all
    assert said["victim"] == "alive", done.stdout
    assert said["joined"] == "True", done.stdout


# a new filter (after an upgrade) meets a full disk: it was never stored in the state folder
FILTER_DRIVER = textwrap.dedent(
    """
    import os, shlex, subprocess, sys
    root = sys.argv[1]
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=2m", "tmpfs", root], check=True)
    home, project = os.path.join(root, "home"), os.path.join(root, "proj")
    os.makedirs(os.path.join(project, ".agentreflex"))
    os.makedirs(home)
    env = dict(os.environ, HOME=home, XDG_STATE_HOME=os.path.join(home, ".local", "state"))
    os.environ.update(env)
    subprocess.run(["dd", "if=/dev/zero", "of=" + os.path.join(home, "big"), "bs=64k"],
                   capture_output=True, check=False)  # the move: the disk is full
    from agentreflex.core.contain import boundary
    # TIOCSTI on /dev/null: ENOTTY (25) where the kernel is asked, EPERM (1) where the filter answers
    probe = ("import fcntl, os, termios\\n"
             "fd = os.open('/dev/null', os.O_RDWR)\\n"
             "try:\\n    fcntl.ioctl(fd, termios.TIOCSTI, b'x')\\n"
             "except OSError as exc:\\n    print('errno', exc.errno)\\n")
    line = boundary.rewrite(shlex.join([sys.executable, "-c", probe]), project, env=env, joined=False)
    done = subprocess.run(["bash", "-c", line], cwd=project, env=env,
                          capture_output=True, text=True, timeout=60)
    print("filtered", "--seccomp" in line or " 8< " in line)
    print("ran", done.returncode, done.stderr.strip()[-300:].replace(chr(10), " "))
    print("said", done.stdout.strip() or "nothing")
    """
)


def test_a_full_disk_leaves_the_terminal_filter_on_the_line(tmp_path: object) -> None:
    """The filter's state copy can't be written: the command still runs filtered, not unfiltered."""
    if boundary.engine_path() is None:
        pytest.fail("bubblewrap is not installed: `apt-get install -y bubblewrap` (.ci/run does)")
    unshare = shutil.which("unshare")
    assert unshare is not None, "util-linux's unshare is needed"
    own = [unshare, "-Urm", "--propagation", "private", sys.executable, "-c"]
    done = subprocess.run(
        [*own, FILTER_DRIVER, str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    said = dict(line.split(" ", 1) for line in done.stdout.splitlines())
    assert said["ran"].startswith("0"), done.stdout
    assert said["filtered"] == "True", done.stdout
    assert said["said"] == "errno 1", done.stdout  # EPERM: the filter answered, not the kernel
