"""Installers told where to install by their environment, their working folder or a runner.

pip reads every long option from ``PIP_<NAME>`` as well (``PIP_TARGET``,
``PIP_PREFIX``, ``PIP_ROOT``, ``PIP_PYTHON``, ``PIP_USER``), uv reads
``UV_PYTHON``, ``UV_SYSTEM_PYTHON``, the active ``VIRTUAL_ENV`` or
``CONDA_PREFIX``, and ``UV_PROJECT_ENVIRONMENT`` for the project it syncs.
Set before the command, through ``env``, or exported earlier in the line, each
pointed an install at the hook's own Python unjudged.  So did ``pip install
--user`` where the hook's interpreter loads the user site, ``uv pip install
--system`` where it is the system's interpreter, a relative place under ``uv
--directory D``, and ``uv --color never run pip ...`` (options before ``run``:
the pre-filter allowed it without reading the command run).  The same installs
into any other environment stay allowed.
"""

from __future__ import annotations

import os
import site
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from agentreflex.core.state import userdirs
from agentreflex.gate import analyze
from agentreflex.gate.rules import protected, selfguard
from agentreflex.gate.shell.paths import Where

from .conftest import Checked

PREFIX = sys.prefix
SITE = site.getsitepackages()[0]
SITE_FROM_BIN = os.path.relpath(SITE, os.path.join(PREFIX, "bin"))  # ../lib/pythonX.Y/...


def _asks(checked: Checked) -> bool:
    decision, codes = checked
    return decision in ("ASK_USER", "BLOCK") and selfguard.RULE in codes


FROM_THE_ENVIRONMENT = [
    f"PIP_TARGET={SITE} pip install evil",
    f"env PIP_TARGET={SITE} pip install evil",
    f"env -u HOME PIP_TARGET={SITE} pip3 install evil",
    f"export PIP_TARGET={SITE}; pip install evil",
    f"PIP_TARGET={SITE}; export PIP_TARGET; pip install -U evil",
    f"export PIP_TARGET={SITE}; bash -c 'pip install evil'",
    f"PIP_PREFIX={PREFIX} pip install evil",
    f"PIP_ROOT={PREFIX} python3 -m pip install evil",
    f"PIP_PYTHON={PREFIX}/bin/python pip install evil",
    f"PIP_PYTHON={PREFIX}/bin/python pip uninstall -y requests",
    f"UV_PYTHON={PREFIX} uv pip install evil",
    f"export UV_PYTHON={PREFIX}/bin/python && uv pip sync requirements.txt",
    f"export VIRTUAL_ENV={PREFIX}; uv pip install evil",
    f"CONDA_PREFIX={PREFIX} uv pip install evil",
    f"UV_PROJECT_ENVIRONMENT={PREFIX} uv sync",
    f"export UV_PROJECT_ENVIRONMENT={PREFIX}; uv add evil",
    f"VIRTUAL_ENV={PREFIX} uv sync --active",
]


@pytest.mark.parametrize("command", FROM_THE_ENVIRONMENT)
def test_an_install_told_the_hooks_python_by_a_variable_asks(
    gate_check: Callable[[str], Checked], command: str
) -> None:
    assert _asks(gate_check(command)), command


FROM_ITS_FOLDER_OR_RUNNER = [
    f"uv --directory {PREFIX} pip install --python . evil",
    f"uv pip install --directory={PREFIX} -p . evil",
    f"uv --directory {PREFIX}/bin run pip install -t {SITE_FROM_BIN} evil",
    f"uv run --directory={PREFIX}/bin python -m pip install --target {SITE_FROM_BIN} evil",
    f"UV_PROJECT_ENVIRONMENT=. uv --directory {PREFIX} sync",
    f"uv run pip install --target {SITE} evil",
    f"uv run -- pip install --target {SITE} evil",
    f"uv --color never run pip install -t {SITE} evil",
    f"uv --quiet run --no-sync -- pip install --prefix={PREFIX} evil",
]


@pytest.mark.parametrize("command", FROM_ITS_FOLDER_OR_RUNNER)
def test_an_install_under_uv_directory_or_uv_run_is_read_as_uv_runs_it(
    gate_check: Callable[[str], Checked], command: str
) -> None:
    assert _asks(gate_check(command)), command


ELSEWHERE = [
    "PIP_TARGET=vendor pip install requests",
    "export PIP_PREFIX=.venv; pip install requests",
    f"PIP_TARGET={SITE} pip install --isolated requests",  # --isolated: no PIP_ variable
    f"PIP_TARGET={SITE} pip download -d wheels requests",
    f"export PIP_TARGET={SITE}; unset PIP_TARGET; pip install requests",
    "UV_PYTHON=3.12 uv pip install requests",
    "export VIRTUAL_ENV=.venv; uv pip install requests",
    "UV_PROJECT_ENVIRONMENT=.venv-ci uv sync",
    f"VIRTUAL_ENV={PREFIX} uv sync",  # a project's sync reads it only with --active
    f"UV_PYTHON={PREFIX}/bin/python uv sync",  # the interpreter of the project's own .venv
    "uv --directory sub pip install --python .venv requests",
    "uv run pip install --target vendor requests",
    "uv --directory sub run pip install -t vendor requests",
    "pip install --user requests",  # these tests run in a venv: no user site
    "uv pip install --system requests",  # ... and not the system's interpreter
    "pip install --break-system-packages requests",
]


@pytest.mark.parametrize("command", ELSEWHERE)
def test_the_same_installs_elsewhere_stay_allowed(
    gate_check: Callable[[str], Checked], command: str
) -> None:
    assert gate_check(command) == ("ALLOW", set()), command


@pytest.fixture
def user_site(gate_project: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """The hook's interpreter loads a user site (no venv, no ``-s``), in the test's home."""
    version = f"python{sys.version_info[0]}.{sys.version_info[1]}"
    folder = str(gate_project.parent / ".local" / "lib" / version / "site-packages")
    monkeypatch.setattr(site, "ENABLE_USER_SITE", True)
    monkeypatch.setattr(site, "USER_SITE", folder)
    protected._PROTECTED.clear()
    yield folder
    protected._PROTECTED.clear()


@pytest.fixture
def system_python(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The hook's interpreter is no virtual environment: the system's."""
    monkeypatch.setattr(sys, "base_prefix", sys.prefix)
    protected._PROTECTED.clear()
    yield
    protected._PROTECTED.clear()


INTO_THE_USER_SITE = [
    "pip install --user evil",
    "pip3 install -U --user evil",
    "python3 -m pip install --user evil",
    "PIP_USER=1 pip install evil",
    "export PIP_USER=yes; pip install evil",
]


@pytest.mark.parametrize("command", INTO_THE_USER_SITE)
def test_a_user_install_asks_where_the_hook_loads_the_user_site(
    gate_check: Callable[[str], Checked], user_site: str, command: str
) -> None:
    assert user_site in userdirs.interpreter_paths()
    assert _asks(gate_check(command)), command


def test_a_user_install_stays_allowed_where_the_user_site_is_not_loaded(
    gate_check: Callable[[str], Checked], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(site, "ENABLE_USER_SITE", False)
    assert userdirs.loaded_user_site() == ""
    for command in [*INTO_THE_USER_SITE, "PIP_USER=0 pip install requests"]:
        assert gate_check(command) == ("ALLOW", set()), command


def test_writing_a_pth_file_into_a_loaded_user_site_asks(
    gate_check: Callable[[str], Checked], user_site: str
) -> None:
    assert _asks(gate_check(f"echo 'import os' > {user_site}/zz_evil.pth"))
    assert gate_check("PIP_USER=0 pip install requests") == ("ALLOW", set())


INTO_THE_SYSTEM = [
    "uv pip install --system evil",
    "UV_SYSTEM_PYTHON=1 uv pip install evil",
    "export UV_SYSTEM_PYTHON=true; uv pip sync requirements.txt",
    "pip install --break-system-packages evil",
    "pip3 install --break-sys evil",
    "PIP_BREAK_SYSTEM_PACKAGES=1 python3 -m pip install evil",
]


@pytest.mark.parametrize("command", INTO_THE_SYSTEM)
def test_a_system_install_asks_where_the_hook_runs_on_the_system_python(
    gate_check: Callable[[str], Checked], system_python: None, command: str
) -> None:
    assert _asks(gate_check(command)), command


@pytest.mark.parametrize(
    "command",
    [
        ".venv/bin/pip install --break-system-packages requests",
        "uv pip install --python .venv --break-system-packages requests",
        "UV_SYSTEM_PYTHON=1 uv pip install --no-system requests",
        "pip install --target vendor --break-system-packages requests",
    ],
)
def test_a_system_flag_on_another_environment_stays_allowed(
    gate_check: Callable[[str], Checked], system_python: None, command: str
) -> None:
    assert gate_check(command) == ("ALLOW", set()), command


WHERE = Where(cwd="/home/user/project", project="/home/user/project", home="/home/user")


@pytest.mark.parametrize(
    "command",
    [
        "pip install --user requests",
        "pip install --break-system-packages requests",
        "uv pip install --system requests",
        "uv --directory /opt/env pip install -p . requests",
        "uv --color never run pip install requests",
        "uv --directory sub run pytest",
    ],
)
def test_the_prefilter_leaves_these_to_the_analysis(command: str) -> None:
    assert analyze.prefilter(command, WHERE) is None, command


def test_a_command_run_by_uv_after_its_options_is_judged(
    gate_check: Callable[[str], Checked],
) -> None:
    for command in ("uv --color auto run rm -rf /home", "uv --directory . run rm -rf /home"):
        assert gate_check(command)[0] == "BLOCK", command
