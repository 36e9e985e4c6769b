"""``agentreflex install opencode|pi|omp``: the package folder, the host's pointer to it, undo.

Running the installed shims inside the real hosts is proven in
``integration-tests/test_opencode_host.py`` and ``test_pi_host.py`` (with the real npm
pre-install of ``@opencode-ai/plugin``); here no ``opencode`` is on PATH.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest
from agentreflex.core.cli.commands import dispatch
from agentreflex.core.install.jshosts import plugin_package_ready

REPO = Path(__file__).resolve().parents[3]
SHIMS = REPO / "packages" / "core" / "src" / "agentreflex" / "core" / "install" / "js_plugins"
SCRIPT = str(Path(sys.prefix) / "bin" / "agentreflex")


@pytest.fixture()
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    monkeypatch.delenv("PI_CODING_AGENT_DIR", raising=False)
    monkeypatch.delenv("OPENCODE_BIN", raising=False)
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    monkeypatch.setenv("PATH", "/usr/bin:/bin")
    return home


def run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = dispatch(args)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def check_package(folder: Path, host: str) -> None:
    assert (folder / "transport.js").read_text() == (SHIMS / "transport.js").read_text()
    shim = "opencode.js" if host == "opencode" else "pi.js"
    assert (folder / "index.js").read_text() == (SHIMS / shim).read_text()
    record = json.loads((folder / "agentreflex.json").read_text())
    assert record == {"binary": SCRIPT, "host": host, "python": sys.executable}
    manifest = json.loads((folder / "package.json").read_text())
    assert manifest["type"] == "module"
    if host != "opencode":
        assert manifest["pi"] == {"extensions": ["./index.js"]}
        assert manifest["omp"] == {"extensions": ["./index.js"]}


def test_opencode_user_install_lists_the_plugin_npm_style_and_undoes_it(
    home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = home / ".config" / "opencode"
    config.mkdir(parents=True)
    (config / "opencode.json").write_text(
        json.dumps({"model": "fake/m", "plugin": ["opencode-wakatime"]})
    )
    code, out, err = run(["install", "opencode"], capsys)
    assert code == 0, err
    check_package(config / "agentreflex", "opencode")
    settings = json.loads((config / "opencode.json").read_text())
    entry = "file://" + str(config / "agentreflex" / "index.js")
    assert settings == {"model": "fake/m", "plugin": ["opencode-wakatime", entry]}
    assert "no `opencode` on PATH" in out and "@opencode-ai/plugin" in out
    assert "--pure" in out
    code, out, _ = run(["install", "opencode"], capsys)
    assert code == 0 and out.count("already up to date") == 5
    assert json.loads((config / "opencode.json").read_text())["plugin"].count(entry) == 1
    code, _, err = run(["uninstall", "opencode"], capsys)
    assert code == 0, err
    assert json.loads((config / "opencode.json").read_text()) == {
        "model": "fake/m",
        "plugin": ["opencode-wakatime"],
    }
    assert not (config / "agentreflex").exists()


@pytest.mark.parametrize(
    ("host", "config"),
    [("opencode", ".config/opencode/opencode.json"), ("pi", ".pi/agent/settings.json")],
)
def test_uninstall_takes_away_a_host_config_install_created(
    home: Path, capsys: pytest.CaptureFixture[str], host: str, config: str
) -> None:
    """With no opencode.json (pi: settings.json) before, install makes one to list the
    plugin; uninstall took the entry out and left an empty ``{}`` file behind (and the
    manifest's record of having made it)."""
    assert run(["install", host], capsys)[0] == 0
    assert (home / config).is_file()
    code, _, err = run(["uninstall", host], capsys)
    assert code == 0, err
    assert not (home / config).exists()
    from agentreflex.core.install import manifest

    assert manifest.records_for(str(home / config)) == []


def test_opencode_project_install_is_a_plugins_file(
    home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    project = tmp_path / "proj"
    project.mkdir()
    code, _, err = run(["install", "opencode", "--project", "--project-dir", str(project)], capsys)
    assert code == 0, err
    check_package(project / ".opencode" / "agentreflex", "opencode")
    stub = (project / ".opencode" / "plugins" / "agentreflex.js").read_text()
    assert stub == 'export { AgentReflex } from "../agentreflex/index.js";\n'
    assert not (project / "opencode.json").exists()
    assert not (home / ".config").exists()
    code, _, err = run(
        ["uninstall", "opencode", "--project", "--project-dir", str(project)], capsys
    )
    assert code == 0, err
    assert not (project / ".opencode" / "plugins" / "agentreflex.js").exists()
    assert not (project / ".opencode" / "agentreflex").exists()


def test_a_plugin_file_the_agent_made_a_link_does_not_lead_install_elsewhere(
    home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Install writes a settings file that is a link to the file it names (dotfiles kept
    by stow).  A project's plugin file the agent made a link to ``~/.bashrc`` is no such
    link (another name): the link is replaced and the user's shell file is left alone."""
    project = tmp_path / "proj"
    plugins = project / ".opencode" / "plugins"
    plugins.mkdir(parents=True)
    rc = home / ".bashrc"
    rc.write_text("# mine\n")
    (plugins / "agentreflex.js").symlink_to(rc)
    code, _, err = run(["install", "opencode", "--project", "--project-dir", str(project)], capsys)
    assert code == 0, err
    assert rc.read_text() == "# mine\n"
    stub = plugins / "agentreflex.js"
    assert not stub.is_symlink()
    assert stub.read_text() == 'export { AgentReflex } from "../agentreflex/index.js";\n'


def test_pi_user_install_is_a_pi_package_in_settings(
    home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    agent = tmp_path / "pi-agent"
    monkeypatch.setenv("PI_CODING_AGENT_DIR", str(agent))
    agent.mkdir()
    (agent / "settings.json").write_text(json.dumps({"packages": ["npm:@foo/bar@1.0.0"]}))
    code, out, err = run(["install", "pi"], capsys)
    assert code == 0, err
    check_package(agent / "agentreflex", "pi")
    settings = json.loads((agent / "settings.json").read_text())
    assert settings["packages"] == ["npm:@foo/bar@1.0.0", str(agent / "agentreflex")]
    assert "-ne" in out
    code, _, err = run(["uninstall", "pi"], capsys)
    assert code == 0, err
    assert json.loads((agent / "settings.json").read_text()) == {"packages": ["npm:@foo/bar@1.0.0"]}
    assert not (agent / "agentreflex").exists()


def test_pi_project_and_omp_locations(
    home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    project = tmp_path / "proj"
    project.mkdir()
    code, _, err = run(["install", "pi", "--project", "--project-dir", str(project)], capsys)
    assert code == 0, err
    check_package(project / ".pi" / "agentreflex", "pi")
    settings = json.loads((project / ".pi" / "settings.json").read_text())
    assert settings == {"packages": [str(project / ".pi" / "agentreflex")]}
    code, _, err = run(["install", "omp"], capsys)
    assert code == 0, err
    check_package(home / ".omp" / "agent" / "extensions" / "agentreflex", "omp")
    code, _, err = run(["install", "omp", "--project", "--project-dir", str(project)], capsys)
    assert code == 0, err
    check_package(project / ".omp" / "extensions" / "agentreflex", "omp")
    code, _, err = run(["uninstall", "omp"], capsys)
    assert code == 0, err
    assert not (home / ".omp" / "agent" / "extensions" / "agentreflex").exists()


@pytest.mark.parametrize("host", ["opencode", "pi", "omp"])
def test_no_local_scope(home: Path, capsys: pytest.CaptureFixture[str], host: str) -> None:
    code, _, err = run(["install", host, "--local"], capsys)
    assert code == 1 and "no --local scope" in err and "Traceback" not in err


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('{"plugin": [', "is not valid JSON"),
        ('["a"]', "not an object"),
        ('{"plugin": "file:///x.js"}', "'plugin' is not a list"),
    ],
)
def test_a_broken_opencode_json_is_refused_and_nothing_is_written(
    home: Path, capsys: pytest.CaptureFixture[str], text: str, message: str
) -> None:
    config = home / ".config" / "opencode"
    config.mkdir(parents=True)
    (config / "opencode.json").write_text(text)
    code, _, err = run(["install", "opencode"], capsys)
    assert code == 1 and message in err and "Traceback" not in err
    assert (config / "opencode.json").read_text() == text
    assert not (config / "agentreflex").exists()


def test_a_script_without_a_python_line_is_run_directly(
    home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    script = tmp_path / "bin" / "agentreflex"
    script.parent.mkdir()
    script.write_text("#!/bin/sh\nexit 0\n")
    script.chmod(0o755)
    code, _, err = run(["install", "omp", "--bin", str(script)], capsys)
    assert code == 0, err
    record = home / ".omp" / "agent" / "extensions" / "agentreflex" / "agentreflex.json"
    # /bin/sh is not Python: no interpreter recorded, the shim runs the script itself
    assert json.loads(record.read_text()) == {"binary": str(script), "host": "omp"}
    python_script = tmp_path / "bin" / "agentreflex2"
    python_script.write_text(f"#!{sys.executable}\nprint()\n")
    python_script.chmod(0o755)
    code, _, err = run(["install", "omp", "--bin", str(python_script)], capsys)
    assert code == 0, err
    assert json.loads(record.read_text())["python"] == sys.executable


def test_plugin_package_ready_follows_opencodes_own_check(tmp_path: Path) -> None:
    folder = tmp_path / "cfg"
    folder.mkdir()
    assert not plugin_package_ready(folder.as_posix())
    (folder / "node_modules").mkdir()
    (folder / "package.json").write_text(json.dumps({"dependencies": {"left-pad": "1"}}))
    lock = {"packages": {"": {"dependencies": {"@opencode-ai/plugin": "1.18.33"}}}}
    (folder / "package-lock.json").write_text(json.dumps(lock))
    assert not plugin_package_ready(str(folder))  # left-pad is not in the lock
    lock["packages"][""]["dependencies"]["left-pad"] = "1"
    (folder / "package-lock.json").write_text(json.dumps(lock))
    assert plugin_package_ready(str(folder))
    (folder / "package-lock.json").write_text("{corrupt")
    assert not plugin_package_ready(str(folder))
    os.chmod(folder / "package.json", 0o000)
    if os.access(folder / "package.json", os.R_OK):  # root reads anyway
        return
    assert not plugin_package_ready(str(folder))


def test_every_file_install_writes_is_one_the_self_protection_guards(
    home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The shim and its record decide what runs: an agent must not be able to edit them."""
    from agentreflex.core.state.userdirs import protected_paths

    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    monkeypatch.setenv("PI_CODING_AGENT_DIR", str(tmp_path / "pi-agent"))
    project = tmp_path / "proj"
    project.mkdir()
    before = {p for p in tmp_path.rglob("*") if p.is_file()}
    for host in ("opencode", "pi", "omp"):
        for scope in ("--user", "--project"):
            code, _, err = run(["install", host, scope, "--project-dir", str(project)], capsys)
            assert code == 0, err
    written = {p for p in tmp_path.rglob("*") if p.is_file()} - before
    written = {p for p in written if "state" not in p.relative_to(tmp_path).parts[:1]}
    assert len(written) >= 20
    protected = protected_paths(str(project), dict(os.environ))
    for path in written:
        assert any(str(path) == g or str(path).startswith(g + "/") for g in protected), path


# npm's error output can carry the registry token of an .npmrc line
# (https://github.com/npm/cli/issues/6216: "_authToken" printed in an error); an
# npm token's shape: https://github.blog/changelog/2021-09-23-npm-has-a-new-access-token-format/
_NPM_TOKEN = "npm_" + "aB3dE5gH7jK9mN1pQ2rS4tU6vW8xY0zaB3dE"


def test_npms_failure_is_printed_redacted(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The tail of a failed ``npm install``'s output was printed as it was: a token in it
    whole, or the rest of one the tail's cut divided."""
    import io

    from agentreflex.core.install.jshosts import preinstall_plugin_package

    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "opencode").write_text("#!/bin/sh\necho 1.2.3\n")
    for pad in (0, 290):
        text = f"//registry.npmjs.org/:_authToken={_NPM_TOKEN}" + " " + "e" * pad
        (bin_dir / "npm").write_text(f"#!/bin/sh\necho 'npm ERR! {text}' >&2\nexit 1\n")
        for name in ("opencode", "npm"):
            (bin_dir / name).chmod(0o755)
        monkeypatch.setenv("PATH", f"{bin_dir}:{os.environ['PATH']}")
        monkeypatch.delenv("OPENCODE_BIN", raising=False)
        out = io.StringIO()
        preinstall_plugin_package(str(tmp_path / f"folder{pad}"), out)
        shown = out.getvalue()
        assert "npm install failed" in shown
        assert _NPM_TOKEN[10:30] not in shown, shown
