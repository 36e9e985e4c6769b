"""The options that run a shell command, read in every spelling their tool reads.

:mod:`agentreflex.gate.shell.execopts` read them with its own option reader,
which knew ``-x V``, ``-xV`` and ``--long=V`` only: ``gdb -ex='shell CMD'``,
``rsync -avze CMD``, ``sed -ne '1e CMD'``, ``ssh -vo ProxyCommand=CMD``, ``vim
-Rc '!CMD'``, ``tar --to-comm=CMD`` and ``zip -TT=CMD`` ran CMD unjudged.  Now
:func:`agentreflex.gate.shell.argv.option_values` reads each tool's spelling
(clustered flags, one-dash long options with ``=``, abbreviations), and what
the tool does not read as the option (``gdb -exV`` is ``-e xV``, ``sed -ie``
is ``-i`` with suffix ``e``) is not read as it either.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from agentreflex.gate.shell import execopts
from agentreflex.gate.shell.argv import option_values

from .conftest import Checked

RM = "rm -rf ~"

NOW_JUDGED = [
    f"gdb -batch -ex='shell {RM}'",
    f"gdb -batch --ex 'shell {RM}'",
    f"gdb -batch -eval-command='shell {RM}'",
    f"gdb -batch --eval-command='shell {RM}'",
    f"gdb -batch -eval='shell {RM}'",
    f"gdb -batch -iex='shell {RM}'",
    f"rsync -avze 'sh -c \"{RM}\"' src host:dst",
    f"sed -ne '1e {RM}' -e p notes.txt",
    f"sed --expr='1e {RM}' notes.txt",
    f"sed -l 5 '1e {RM}' notes.txt",
    f"ssh -vo 'ProxyCommand={RM}' host",
    f"scp -S '{RM}' notes.txt host:",
    f"scp -qS'{RM}' notes.txt host:",
    f"sftp -S '{RM}' host",
    f"sftp -D '{RM}'",
    f"sftp -vD'{RM}'",
    f"vim -Rc '!{RM}' notes.txt",
    f"tar -cf a.tar --to-comm='{RM}' src",
    f"tar -xI '{RM}' -f a.tar",
    f"tar xIf '{RM}' a.tar",
    f"zip -T -TT='{RM}' a.zip notes.txt",
    f"zip -T '-TT{RM}' a.zip notes.txt",
]


@pytest.mark.parametrize("command", NOW_JUDGED)
def test_a_command_in_a_tools_own_spelling_is_judged(
    gate_check: Callable[[str], Checked], command: str
) -> None:
    decision, codes = gate_check(command)
    assert decision == "BLOCK" and "GATE-RM-ROOT" in codes, (command, decision, codes)


STAYS_ALLOWED = [
    "gdb -batch -ex 'info registers' ./a.out",
    "rsync -avz -e ssh src host:dst",
    "sed -ie 's/a/b/' notes.txt",
    "sed -ne 's/a/b/p' notes.txt",
    "ssh -vo ConnectTimeout=5 host true",
    "scp -S ssh notes.txt host:",
    "scp -P 2222 -r src host:dst",
    "sftp -D /usr/lib/openssh/sftp-server",
    "sftp -s sftp host",
    "vim -Rc 'set number' notes.txt",
    "tar czf a.tar src",
    "tar -xzf a.tar -C out",
    "zip -r a.zip src",
]


@pytest.mark.parametrize("command", STAYS_ALLOWED)
def test_ordinary_uses_stay_allowed(gate_check: Callable[[str], Checked], command: str) -> None:
    assert gate_check(command)[0] in ("ALLOW", "WARN"), command


def test_what_the_tool_reads_otherwise_is_not_read_as_the_option() -> None:
    assert execopts.commands("gdb", [f"-exshell {RM}"]) == []  # gdb: -e xshell ...
    # -i with suffix e: the script is ``p``, and ``1e true`` a file it edits
    assert execopts.commands("sed", ["-ie", "p", "1e true"]) == []


def test_the_default_reading_is_unchanged() -> None:
    """What changes.py and envinstall read: ``-x V``, ``-xV``, ``--long V``, ``--long=V``."""
    args = ["-oA", "-o", "B", "--output=C", "--output", "D", "-vo", "E", "--outputs", "--", "-oF"]
    assert option_values(args, ("-o", "--output")) == ["A", "B", "C", "D"]
    assert option_values(["-o=X", "-o"], ("-o",)) == ["=X"]
    assert option_values(["--output="], ("--output",)) == [""]


@pytest.mark.parametrize(
    ("args", "options", "want"),
    [
        (["-avze", "ssh -p 2"], {"flags": "avz"}, ["ssh -p 2"]),
        (["-avzessh"], {"flags": "avz"}, ["ssh"]),
        (["-xe", "X"], {"flags": "avz"}, []),
        (["-e=V"], {"short_equals": True}, ["V"]),
        (["-eV"], {"attached": False}, []),
        (["--exp=V", "--ex", "W"], {"prefixes": True}, ["V", "W"]),
        (["--e-x=V", "---e=V"], {"prefixes": True}, []),
    ],
)
def test_a_tools_own_spelling_is_read_when_asked_for(
    args: list[str], options: dict[str, object], want: list[str]
) -> None:
    assert option_values(args, ("-e", "--expression"), **options) == want  # type: ignore[arg-type]


def test_a_program_scp_or_sftp_runs_is_read_from_a_local_script(
    gate_check: Callable[[str], Checked], gate_project: Path
) -> None:
    """``scp -S PROG`` runs PROG in ssh's place, ``sftp -D PROG`` as its server: a
    script of the project is judged as ``ssh -o ProxyCommand=./x.sh`` is."""
    (gate_project / "x.sh").write_text(f"{RM}\n")
    (gate_project / "x.sh").chmod(0o755)
    for command in ("scp -S ./x.sh notes.txt host:", "sftp -D ./x.sh", "sftp -S ./x.sh host"):
        decision, codes = gate_check(command)
        assert decision == "BLOCK" and "GATE-RM-ROOT" in codes, (command, decision, codes)
