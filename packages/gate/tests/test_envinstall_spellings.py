"""Installers pointed at the hook's own Python in every spelling the installer reads.

The pre-filter decides plain commands from their words; ``pip`` and ``uv`` are
among the programs it trusts, so ``pip install --prefix=ENV x`` (no protected
word, no path starting with ``/`` as a word of its own) used to be allowed
there without :mod:`envinstall` ever seeing where it installs.  Now every
install that names a place (spaced, ``=``, attached, after clustered flags,
abbreviated as optparse allows, ``-p=`` as clap reads it) goes to envinstall,
and installs into any other environment (a project's ``.venv``) stay allowed.
The hook's environment is the one these tests run on (``sys.prefix``), as it
is for a real hook.
"""

from __future__ import annotations

import site
import sys
from collections.abc import Callable

import pytest
from agentreflex.gate import analyze
from agentreflex.gate.rules import selfguard
from agentreflex.gate.shell.paths import Where

from .conftest import Checked

PREFIX = sys.prefix
SITE = site.getsitepackages()[0]

INTO_THE_HOOKS_PYTHON = [
    f"pip install --prefix {PREFIX} evil",
    f"pip install --prefix={PREFIX} evil",
    f"pip install --target={SITE} evil",
    f"pip install -t{SITE} evil",
    f"pip install -t {SITE} evil",
    f"pip install -Ut {SITE} evil",
    f"pip install -qUt{SITE} evil",
    f"pip install --targ={SITE} evil",
    f"pip install --root={PREFIX} evil",
    f"pip install --root {PREFIX} evil",
    f"pip3 install --prefix={PREFIX} evil",
    f"pip install --python={PREFIX}/bin/python evil",
    f"uv pip install --python={PREFIX} evil",
    f"uv pip install --python {PREFIX} evil",
    f"uv pip install -p{PREFIX}/bin/python evil",
    f"uv pip install -p={PREFIX} evil",
    f"uv pip install -qp {PREFIX} evil",
    f"uv pip install --target={SITE} evil",
    f"uv pip install --prefix={PREFIX} evil",
    f"uv pip sync --python={PREFIX} requirements.txt",
    f"uv -q pip install --python={PREFIX} evil",
]


@pytest.mark.parametrize("command", INTO_THE_HOOKS_PYTHON)
def test_an_install_into_the_hooks_python_asks_however_spelled(
    gate_check: Callable[[str], Checked], command: str
) -> None:
    decision, codes = gate_check(command)
    assert decision in ("ASK_USER", "BLOCK") and selfguard.RULE in codes, (command, decision)


ELSEWHERE = [
    "pip install requests",
    "pip install --pre requests",
    "pip install --prefix=.venv requests",
    "pip install --target=vendor requests",
    "pip install -t.venv/lib/python3/site-packages requests",
    "pip install --python-version 3.12 --target=vendor requests",
    "pip install --root=build/root requests",
    "uv pip install -U requests",
    "uv pip install --python=.venv requests",
    "uv pip install -p.venv/bin/python requests",
    "uv pip install -p=.venv requests",
    "uv pip install --python 3.12 requests",
    "uv pip sync -p .venv requirements.txt",
]


@pytest.mark.parametrize("command", ELSEWHERE)
def test_an_install_into_another_environment_stays_allowed(
    gate_check: Callable[[str], Checked], command: str
) -> None:
    assert gate_check(command) == ("ALLOW", set()), command


WHERE = Where(cwd="/home/user/project", project="/home/user/project", home="/home/user")


@pytest.mark.parametrize(
    "command",
    [
        "pip install --prefix=.venv x",
        "pip install -Ut vendor x",
        "pip3 install --targ=vendor x",
        "uv pip install -p=.venv x",
        "uv pip sync --python=.venv r.txt",
        "uv --quiet pip install --target=vendor x",
    ],
)
def test_the_prefilter_leaves_an_install_naming_a_place_to_envinstall(command: str) -> None:
    assert analyze.prefilter(command, WHERE) is None, command


@pytest.mark.parametrize(
    "command",
    ["pip install requests", "pip install -U --pre requests", "uv pip install -U x", "uv sync"],
)
def test_the_prefilter_still_decides_an_install_naming_no_place(command: str) -> None:
    assert analyze.prefilter(command, WHERE) is not None, command
