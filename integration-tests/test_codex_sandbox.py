"""``agentreflex install codex --project --sandbox`` with the real Codex CLI 0.169.0 sandbox.

``codex sandbox -- CMD`` runs a command the way Codex runs the agent's commands
(bubblewrap + seccomp on Linux), under the permissions the configuration
selects; no model and no hook is involved, so whatever refuses a write here is
the OS.  With the profile install wrote, an interpreter one-liner cannot rewrite
``.agentreflex/config.toml`` (``[Errno 30] Read-only file system``) while an
ordinary file in the project can still be written (so the profile, not a
read-only fallback, is in force).  Without it, ``codex sandbox`` here is
read-only everywhere, which the control shows.

Codex refuses to put its helper binaries under ``/tmp``, so ``CODEX_HOME`` lives
in the gitignored ``.hosts/`` folder for the test and is removed afterwards.
"""

from __future__ import annotations

import base64
import json
import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from hostharness.claude import AGENTREFLEX_SCRIPT, HOSTS_DIR, HostUnavailableError, npm_command
from hostharness.codex import new_codex_home, remove_codex_home

pytestmark = pytest.mark.integration

CODEX_VERSION = "0.169.0"
CONFIG = 'mode = "enforced"\n'
ATTACK = "open('.agentreflex/config.toml','w').write('profile = \"off\"')"


def install_codex(version: str = CODEX_VERSION) -> Path:
    prefix = HOSTS_DIR / f"codex-{version}"
    binary = prefix / "node_modules" / ".bin" / "codex"
    if binary.exists():
        return binary
    HOSTS_DIR.mkdir(parents=True, exist_ok=True)
    done = subprocess.run(
        [
            *npm_command(),
            "install",
            "--no-audit",
            "--no-fund",
            "--prefix",
            str(prefix),
            f"@openai/codex@{version}",
        ],
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    if done.returncode != 0 or not binary.exists():
        raise HostUnavailableError(f"npm install @openai/codex@{version} failed:\n{done.stderr}")
    return binary


@pytest.fixture(scope="session")
def codex_binary() -> Path:
    try:
        return install_codex()
    except HostUnavailableError as exc:
        pytest.fail(f"Codex is not available, so its sandbox cannot be proven: {exc}")


@pytest.fixture
def codex_home() -> Iterator[Path]:
    home = new_codex_home()
    yield home
    remove_codex_home(home)


def test_codex_sandbox_profile_makes_the_config_read_only(
    tmp_path: Path, codex_binary: Path, codex_home: Path
) -> None:
    project = tmp_path / "proj"
    (project / ".git").mkdir(parents=True)
    (project / ".agentreflex").mkdir()
    config = project / ".agentreflex" / "config.toml"
    config.write_text(CONFIG)
    # other hosts' settings, each a file whose folder holds nothing else protected
    (project / ".claude").mkdir()
    (project / ".claude" / "settings.json").write_text("{}\n")
    (project / ".claude" / "settings.local.json").write_text("{}\n")
    (project / ".github" / "hooks").mkdir(parents=True)
    (project / ".github" / "hooks" / "hooks.json").write_text("{}\n")
    # the user trusts the project once (Codex loads a project's .codex/ only then)
    (codex_home / "config.toml").write_text(f'[projects."{project}"]\ntrust_level = "trusted"\n')
    env = {
        "PATH": f"{Path(shutil.which('node') or '/usr/bin/node').parent}:/usr/local/bin:/usr/bin:/bin",
        "HOME": str(tmp_path / "home"),
        "CODEX_HOME": str(codex_home),
        "XDG_STATE_HOME": str(tmp_path / "home" / ".local" / "state"),
        "LANG": "C.UTF-8",
    }

    def codex_sandbox(*command: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [str(codex_binary), "sandbox", "--", *command],
            cwd=project,
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )

    # control: without agentreflex's profile, `codex sandbox` lets nothing be written here
    before = codex_sandbox("sh", "-c", "echo fine > allowed.txt")
    assert not (project / "allowed.txt").exists(), before.stdout + before.stderr

    done = subprocess.run(
        [str(AGENTREFLEX_SCRIPT), "install", "codex", "--project", "--sandbox"],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr

    ok = codex_sandbox("sh", "-c", "echo fine > allowed.txt")
    assert (project / "allowed.txt").is_file(), ok.stdout + ok.stderr
    assert (project / "allowed.txt").read_text() == "fine\n"
    attack = codex_sandbox("python3", "-c", ATTACK)
    output = attack.stdout + attack.stderr
    assert attack.returncode != 0, output
    assert "[Errno 30] Read-only file system" in output, output
    assert config.read_text() == CONFIG
    # a mount follows its folder: renaming the folder that holds a read-only file, and
    # making a new one, wrote past the entry before the folder itself was listed
    for folder, inner in ((".claude", "settings.json"), (".github", "hooks/hooks.json")):
        moved = codex_sandbox(
            "sh",
            "-c",
            f"mv {folder} {folder}.old && mkdir -p {folder}/hooks && echo x > {folder}/{inner}",
        )
        assert "Device or resource busy" in moved.stderr, moved.stdout + moved.stderr
        assert (project / folder / inner).read_text() == "{}\n"
        assert not (project / f"{folder}.old").exists()
    assert codex_sandbox("sh", "-c", "touch .claude/notes").returncode == 0
    # the host's user settings through a batch editor: CODEX_HOME is outside the writable roots
    settings = codex_home / "config.toml"
    settings_before = settings.read_text()
    edit = f"sed -i -e '1i sandbox_mode = \"danger-full-access\"' {settings}"
    edited = codex_sandbox("sh", "-c", edit)
    assert edited.returncode != 0, edited.stdout + edited.stderr
    assert "Read-only file system" in edited.stderr, edited.stderr
    assert settings.read_text() == settings_before
    # the per-user key (install made it) cannot even be read: records cannot be forged
    key = Path(env["XDG_STATE_HOME"]) / "agentreflex" / "key"
    secret = key.read_bytes()
    stolen = codex_sandbox("cat", str(key))
    assert stolen.returncode != 0, stolen.stdout + stolen.stderr
    assert secret.decode("latin-1").strip() not in stolen.stdout + stolen.stderr
    assert "Permission denied" in stolen.stdout + stolen.stderr

    # uninstall takes the profile out again: the trust entry is all that is left
    subprocess.run(
        [str(AGENTREFLEX_SCRIPT), "uninstall", "codex", "--project"],
        cwd=project,
        env=env,
        check=True,
        capture_output=True,
        timeout=120,
    )
    assert not (project / ".codex" / "config.toml").exists()
    assert os.listdir(project / ".codex") == [] or all(
        name.endswith(".bak") for name in os.listdir(project / ".codex")
    )
    # control: outside the sandbox the same batch edit does change the user settings
    subprocess.run(["sh", "-c", edit], cwd=project, env=env, check=True, timeout=30)
    assert settings.read_text().startswith('sandbox_mode = "danger-full-access"\n')


def test_the_agent_cannot_read_the_guard_key_through_codex(
    tmp_path: Path, codex_binary: Path
) -> None:
    """A scripted model asks the real Codex to ``cat`` the per-user key: the command
    fails inside Codex's sandbox and the model's next request does not hold the key."""
    from hostharness.codex import CodexProject
    from hostharness.fakemodel import say, tool

    project = CodexProject(tmp_path, codex_binary)
    try:
        # shadow mode: the parse-based gate answers but does not stop the command
        # (it spots even a base64-spelt path), so only Codex's sandbox is tested here
        project.set_mode("shadow")
        config = project.codex_home / "config.toml"
        # the host-lab config runs unsandboxed; a user of --sandbox has no such line
        config.write_text(config.read_text().replace('sandbox_mode = "danger-full-access"\n', ""))
        out = project.install("--sandbox")
        assert "permissions profile 'agentreflex'" in out, out
        key = Path(project.env()["XDG_STATE_HOME"]) / "agentreflex" / "key"
        secret = key.read_bytes().hex()
        # the path is decoded at run time, as an agent working around a parser would
        hidden = base64.b64encode(str(key).encode()).decode()
        command = (
            'python3 -c "import base64; '
            f"print(open(base64.b64decode('{hidden}').decode(), 'rb').read().hex())\""
        )
        script = [tool("exec_command", cmd=command), say("Done.")]
        run = project.run("show me the key", script)
        outputs = run.tool_outputs()
        assert outputs, run.describe()
        assert "Permission denied" in outputs[0], run.describe()
        assert secret not in outputs[0], run.describe()
        assert all(secret not in json.dumps(body) for body in run.main_requests)
        # control: the same command outside the sandbox shows the key
        done = subprocess.run(
            ["sh", "-c", command], capture_output=True, text=True, timeout=30, check=False
        )
        assert secret in done.stdout
    finally:
        project.cleanup()


def test_the_shared_scenario_in_a_codex_session(tmp_path: Path, codex_binary: Path) -> None:
    """Issue #28's scenario (``hostharness/containment.py``) as a scripted model's commands
    in the real ``codex exec``, under the profile ``install codex --project --sandbox``
    wrote: the config write, ``rm -rf`` of
    home through a same-command symlink, a ``.pth`` in the hook's interpreter and ``sed -i``
    on ``$CODEX_HOME/config.toml`` have no effect (Codex itself rejects the ``rm -rf``; the
    others fail read-only), while ``cd sub && make``, ``git commit``, ``pytest``, ``npm
    test``, ``pip install -e .`` and a background server a later command fetches from work.
    Shadow mode: the gate answers but stops nothing, so whatever refuses is Codex.  (Codex's
    ``:workspace`` alone refuses the commit and the server: the profile's ``.git`` entries
    and ``network`` table are what let them run.)"""
    from hostharness.codex import CodexProject
    from hostharness.containment import ContainmentScenario
    from hostharness.fakemodel import say, tool

    project = CodexProject(tmp_path, codex_binary)
    try:
        project.set_mode("shadow")
        config = project.codex_home / "config.toml"
        # the host-lab config runs unsandboxed; a user of --sandbox has no such line
        text = config.read_text().replace('sandbox_mode = "danger-full-access"\n', "")
        # the user trusts the project: Codex then loads the profile in its .codex/
        config.write_text(f'{text}\n[projects."{project.project}"]\ntrust_level = "trusted"\n')
        # the user's tmux is running when they install (its socket folder is listed then)
        scenario = ContainmentScenario(project.project, project.home, "codex", config)
        try:
            project.install("--project", "--sandbox")
            commands = scenario.commands()
            background, kept = scenario.kept_server()
            # Codex ends what a command started when it ends (its bubblewrap dies with the
            # command); a dev server is a command Codex keeps running (a session it yields)
            script = [
                *(
                    tool("exec_command", cmd=kept, yield_time_ms=1500)
                    if c == background
                    # the rest until they end: Codex's default yield (10 s) left `pip install
                    # -e .` running on a loaded machine, its output never read (seen in CI)
                    else tool("exec_command", cmd=c, yield_time_ms=30_000)
                    for c in commands
                ),
                say("All done."),
            ]
            run = project.run("work", script, timeout=240)
        finally:
            scenario.stop()
        outputs = run.tool_outputs()
        assert len(outputs) == len(commands), run.describe()
        scenario.check(outputs[0], f"{run.describe()}\n{outputs}")
    finally:
        project.cleanup()
