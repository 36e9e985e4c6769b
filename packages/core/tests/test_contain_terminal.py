"""The terminal stays the host's: a contained command can't push keys into it (TIOCSTI).

Run in a real pseudo-terminal that is the command's controlling terminal, as
a host's own terminal is when it runs a command without a new session.
"""

from __future__ import annotations

import os
import select
import shlex
import subprocess
import sys
import tty
from pathlib import Path

import pytest
from agentreflex.core.contain import boundary as contain
from agentreflex.core.contain import terminal
from agentreflex.core.contain.check import terminal_injection
from agentreflex.core.state import userdirs

# pushes "x" into the terminal it was started from, plain and with the command's high bits
# set (the kernel reads an ioctl's command as 32 bits), then asks the terminal's size
PUSH = """
import fcntl, os, struct, termios
fd = os.open("/dev/tty", os.O_RDWR)
for name, request in (("plain", termios.TIOCSTI), ("high", (1 << 32) | termios.TIOCSTI)):
    try:
        fcntl.ioctl(fd, request, b"x")
        print(name, "pushed")
    except OSError as exc:
        print(name, "refused", exc.errno)
rows, cols = struct.unpack("hh", fcntl.ioctl(fd, termios.TIOCGWINSZ, b"0000"))
print("size", rows, cols)
"""


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    (root / ".agentreflex").mkdir(parents=True)
    return root


def _engine() -> None:
    if contain.engine_path() is None:
        pytest.fail(
            "bubblewrap is not installed: `apt-get install -y bubblewrap` (.ci/run does this)"
        )


def _legacy_tiocsti() -> bool:
    try:
        return Path("/proc/sys/dev/tty/legacy_tiocsti").read_text().strip() == "1"
    except OSError:
        return True  # a kernel before 6.2 always allows it


def in_terminal(line: str, cwd: Path) -> tuple[str, bytes]:
    """(what ``line`` printed, what reached the terminal's input): run with a pty as its terminal."""
    main, side = os.openpty()
    try:
        tty.setraw(side)  # a pushed key is readable at once, not at the end of a line
        os.write(main, b"")  # the terminal has a reader and a writer
        import fcntl
        import struct
        import termios

        fcntl.ioctl(side, termios.TIOCSWINSZ, struct.pack("hhhh", 33, 101, 0, 0))
        done = subprocess.run(
            ["setsid", "-w", "-c", "bash", "-c", line],  # -c: the pty is its controlling terminal
            stdin=side,
            capture_output=True,
            text=True,
            cwd=cwd,
            timeout=60,
            check=False,
        )
        assert done.returncode == 0, done.stderr
        ready, _, _ = select.select([side], [], [], 0.5)
        typed = os.read(side, 100) if ready else b""
        return done.stdout, typed
    finally:
        os.close(main)
        os.close(side)


def test_a_contained_command_cannot_type_into_the_hosts_terminal(project: Path) -> None:
    _engine()
    command = f"{shlex.quote(sys.executable)} -c {shlex.quote(PUSH)}"
    printed, typed = in_terminal(contain.rewrite(command, str(project)), project)
    assert "plain refused 1" in printed and "high refused 1" in printed, printed
    assert typed == b""
    assert "size 33 101" in printed  # every other ioctl on the terminal works as before
    # without the filter the same command types into it: what the filter stops is real here
    unfiltered, typed = in_terminal(contain.rewrite(command, str(project), terminal=False), project)
    if _legacy_tiocsti():
        assert "plain pushed" in unfiltered and typed.startswith(b"x"), unfiltered
    else:
        assert "plain refused" in unfiltered


# the same push through the i386 system-call entry (``int 0x80``), which a 64-bit x86
# process may use: machine code in a page below 4 GiB (MAP_32BIT), called through ctypes
PUSH_I386 = """
import ctypes, mmap, os, struct
fd = os.open("/dev/tty", os.O_RDWR)
page = mmap.mmap(-1, 4096, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS | 0x40, prot=7)
base = ctypes.addressof(ctypes.c_char.from_buffer(page))
page[2048:2049] = b"x"
def call(number, b, c, d):
    code = b"\\x53\\xb8" + struct.pack("<I", number) + b"\\xbb" + struct.pack("<I", b)
    code += b"\\xb9" + struct.pack("<I", c) + b"\\xba" + struct.pack("<I", d) + b"\\xcd\\x80\\x5b\\xc3"
    page[0 : len(code)] = code  # push rbx; mov eax/ebx/ecx/edx; int 0x80; pop rbx; ret
    return ctypes.CFUNCTYPE(ctypes.c_int)(base)()
print("getpid", call(20, 0, 0, 0) == os.getpid())
print("push", call(54, fd, 0x5412, base + 2048))
"""


@pytest.mark.skipif(os.uname().machine != "x86_64", reason="i386 system calls: x86_64 only")
def test_the_32_bit_entry_is_filtered_and_still_works(project: Path) -> None:
    """The filter covers every ABI: a 32-bit ioctl is refused, other 32-bit calls run (a
    filter for the native ABI alone would kill any process making one)."""
    _engine()
    command = f"{shlex.quote(sys.executable)} -c {shlex.quote(PUSH_I386)}"
    printed, typed = in_terminal(contain.rewrite(command, str(project)), project)
    assert "getpid True" in printed and "push -1" in printed, printed  # -EPERM
    assert typed == b""
    unfiltered, typed = in_terminal(contain.rewrite(command, str(project), terminal=False), project)
    if _legacy_tiocsti():
        assert "push 0" in unfiltered and typed.startswith(b"x"), unfiltered


def test_the_filter_changes_nothing_else(project: Path) -> None:
    """Exit status, output and the descriptors a command sees are what they are without it."""
    _engine()
    line = contain.rewrite("ls /proc/self/fd; exit 7", str(project))
    assert line.endswith(".bpf") and " 8< " in line
    done = subprocess.run(
        ["bash", "-c", line], cwd=project, capture_output=True, text=True, check=False
    )
    assert done.returncode == 7
    assert {"8", "9"}.isdisjoint(done.stdout.split()), done.stdout  # bwrap closed both
    assert contain.inner_command(line) == "ls /proc/self/fd; exit 7"
    direct = contain.rewrite("ls -a", str(project))
    assert contain.inner_command(direct) == "ls -a"


@pytest.mark.parametrize("machine", sorted(terminal.ABIS))
def test_each_shipped_filter_is_what_libseccomp_makes(machine: str) -> None:
    """The filters are libseccomp's output, not ours: remade, byte for byte."""
    assert terminal.shipped(machine) == terminal.make(machine), (
        "stale: uv run python tools/make_terminal_filters.py"
    )


def test_a_machine_with_no_filter_keeps_the_line_without_it(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _engine()
    assert terminal.shipped("riscv64") is None
    monkeypatch.setattr(terminal, "shipped", lambda machine="": None)
    line = contain.rewrite("echo hi", str(project))
    words = shlex.split(line)
    mounts = Path(words[words.index("9<") + 1]).read_bytes().decode()
    assert " 8< " not in line and "--seccomp" not in mounts
    done = subprocess.run(
        ["bash", "-c", line], cwd=project, capture_output=True, text=True, check=False
    )
    assert done.stdout == "hi\n"


@pytest.mark.parametrize("planted", ["file", "link"])
def test_a_filter_planted_outside_the_boundary_is_not_used(
    project: Path, tmp_path: Path, planted: str
) -> None:
    """A command that once ran uncontained could leave a filter that lets everything
    through under the filter's name; the next contained command must not use it."""
    _engine()
    contain.rewrite("echo hi", str(project))
    words = shlex.split(contain.rewrite("echo hi", str(project)))
    stored = Path(words[words.index("8<") + 1])
    good = stored.read_bytes()
    assert stored.is_relative_to(userdirs.user_state_dir()) and good == terminal.shipped()
    allow_all = b"\x06\x00\x00\x00\x00\x00\xff\x7f"  # one instruction: return ALLOW
    stored.unlink()
    if planted == "file":
        stored.write_bytes(allow_all)
    else:
        (tmp_path / "evil.bpf").write_bytes(allow_all)
        stored.symlink_to(tmp_path / "evil.bpf")
    contain.rewrite("echo hi", str(project))
    assert not stored.is_symlink() and stored.read_bytes() == good


def test_doctor_says_who_can_still_type_into_the_terminal(tmp_path: Path) -> None:
    switch = tmp_path / "legacy_tiocsti"
    switch.write_text("1\n")
    filtered = terminal_injection(str(switch), filtered=True)
    assert "boundary can't" in filtered and "dev.tty.legacy_tiocsti=0" in filtered
    bare = terminal_injection(str(switch), filtered=False)
    assert "a way past containment" in bare
    switch.write_text("0\n")
    assert terminal_injection(str(switch), filtered=False) == ""
