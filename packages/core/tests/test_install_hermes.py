"""``agentreflex install hermes``: the plugin's files, its config, idempotence, uninstall.

Enabling through the real ``hermes plugins enable`` is proven in
``integration-tests/test_hermes_host.py``; here no ``hermes`` is on PATH, so install
must say what to run instead.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from agentreflex.core.cli.commands import dispatch
from agentreflex.core.install import hermes

REPO = Path(__file__).resolve().parents[3]
SOURCE = REPO / "plugins" / "hermes" / "agentreflex"


@pytest.fixture()
def hermes_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "hermes-home"
    monkeypatch.setenv("HERMES_HOME", str(home))
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    monkeypatch.setenv("PATH", "/usr/bin:/bin")
    monkeypatch.delenv("HERMES_BIN", raising=False)
    return home


def run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = dispatch(args)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_install_copies_the_plugin_and_records_this_installation(
    hermes_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(["install", "hermes"], capsys)
    assert code == 0, err
    target = hermes_home / "plugins" / "agentreflex"
    for name in ("plugin.yaml", "__init__.py"):
        assert (target / name).read_text() == (SOURCE / name).read_text()
    config = json.loads((target / "agentreflex.json").read_text())
    assert config["binary"] == str(Path(sys.prefix) / "bin" / "agentreflex")
    assert config["python"] == f"{sys.version_info[0]}.{sys.version_info[1]}"
    # the recorded paths make agentreflex importable from another interpreter
    assert any((Path(p) / "agentreflex" / "core").is_dir() for p in config["paths"])
    assert "hermes plugins enable agentreflex" in out  # no hermes here: told what to run
    assert "--safe-mode" in out


def test_install_is_idempotent_and_uninstall_removes_it(
    hermes_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(["install", "hermes"], capsys)[0] == 0
    code, out, _ = run(["install", "hermes"], capsys)
    assert code == 0 and out.count("already up to date") == 3
    code, out, err = run(["uninstall", "hermes"], capsys)
    assert code == 0, err
    assert not (hermes_home / "plugins" / "agentreflex").exists()
    assert "hermes plugins disable agentreflex" in out  # no hermes on PATH: told


def test_project_scope_and_no_local_scope(
    hermes_home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    project = tmp_path / "proj"
    project.mkdir()
    code, out, err = run(["install", "hermes", "--project", "--project-dir", str(project)], capsys)
    assert code == 0, err
    assert (project / ".hermes" / "plugins" / "agentreflex" / "__init__.py").is_file()
    assert "HERMES_ENABLE_PROJECT_PLUGINS=1" in out
    assert "add `agentreflex` to the list `plugins: enabled:`" in out
    code, _, err = run(["install", "hermes", "--local"], capsys)
    assert code == 1 and "no --local scope" in err and "Traceback" not in err


def test_a_foreign_binary_gets_the_subprocess_form(
    hermes_home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    other = tmp_path / "bin" / "agentreflex"
    other.parent.mkdir()
    other.write_text("#!/bin/sh\nexit 0\n")
    other.chmod(0o755)
    code, _, err = run(["install", "hermes", "--bin", str(other)], capsys)
    assert code == 0, err
    config = json.loads((hermes_home / "plugins" / "agentreflex" / "agentreflex.json").read_text())
    # its code is not ours to import, and a shell script is run as it is
    assert config == {"binary": str(other), "launch": [str(other)]}


def test_plugin_source_is_found() -> None:
    assert Path(hermes.plugin_source()) == SOURCE.resolve()


def test_doctor_sees_the_installed_plugin(
    hermes_home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from agentreflex.core.install.inspect import host_check

    before = host_check(
        "hermes", str(tmp_path), str(tmp_path / "state"), {"HERMES_HOME": str(hermes_home)}
    )
    assert before["detail"].startswith("not wired")
    assert run(["install", "hermes"], capsys)[0] == 0
    after = host_check(
        "hermes", str(tmp_path), str(tmp_path / "state"), {"HERMES_HOME": str(hermes_home)}
    )
    assert after["ok"], after
    assert "the agentreflex plugin" in after["detail"] and "(ok)" in after["detail"], after


def test_install_writes_the_plugins_bytecode(
    hermes_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Hermes imports the plugin at every start; with PYTHONDONTWRITEBYTECODE it would
    otherwise compile it every time."""
    import importlib.util

    assert run(["install", "hermes"], capsys)[0] == 0
    source = hermes_home / "plugins" / "agentreflex" / "__init__.py"
    assert Path(importlib.util.cache_from_source(str(source))).is_file()
    assert run(["uninstall", "hermes"], capsys)[0] == 0
    assert not source.parent.exists()
