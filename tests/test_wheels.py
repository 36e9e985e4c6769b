"""Installing only what you need, from the built wheels (issue 20).

The wheels and sdists are built once per session with ``uv build
--all-packages`` (every sdist, and a wheel built from it), then each case
installs into a fresh venv from those wheels, never the workspace's
editable sources, as a user would: ``agentreflex-gate`` alone,
``agentreflex-guard`` alone, and the meta-package ``agentreflex[all]``.
Each copy must work on its own and say exactly what it is.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = sorted(p.name for p in (ROOT / "packages").iterdir() if (p / "pyproject.toml").exists())


def _wheelhouse() -> ModuleType:
    spec = importlib.util.spec_from_file_location("wheelhouse", ROOT / "tools" / "wheelhouse.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


wheelhouse = _wheelhouse()


@pytest.fixture(scope="session")
def dist(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("dist")
    wheelhouse.build(out)
    return out


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    base = tmp_path_factory.mktemp("home")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("REFLEX_", "AGENTREFLEX_"))}
    env.pop("VIRTUAL_ENV", None)
    env.update(
        HOME=str(base),
        XDG_CACHE_HOME=str(base / "cache"),
        XDG_CONFIG_HOME=str(base / "config"),
        XDG_STATE_HOME=str(base / "state"),
        AGENTREFLEX_DAEMON="off",
        JEV_MODE="off",
    )
    return env


def run(binary: Path, args: list[str], env: dict[str, str], stdin: str = "") -> tuple[int, str]:
    proc = subprocess.run(
        [str(binary), *args], input=stdin, capture_output=True, text=True, env=env, cwd=env["HOME"]
    )
    assert "Traceback" not in proc.stderr, proc.stderr
    return proc.returncode, proc.stdout


def listed(version_output: str) -> dict[str, str]:
    return dict(line.split() for line in version_output.splitlines())  # type: ignore[misc]


def doctor(binary: Path, env: dict[str, str]) -> dict[str, str]:
    code, out = run(binary, ["doctor", "--json"], env)
    report = json.loads(out)
    assert code == 0, out
    return {c["check"]: c["detail"] for c in report["checks"]}


def test_requirements_between_packages_carry_version_ranges() -> None:
    """``agentreflex-core>=0.1,<0.2``, never a bare name: a sibling states which cores it fits."""
    import tomllib

    from packaging.requirements import Requirement

    bare = []
    for pyproject in [ROOT / "pyproject.toml", *sorted(ROOT.glob("packages/*/pyproject.toml"))]:
        project = tomllib.loads(pyproject.read_text())["project"]
        reqs = list(project.get("dependencies", []))
        reqs += [r for extra in project.get("optional-dependencies", {}).values() for r in extra]
        for req in map(Requirement, reqs):
            if req.name.startswith("agentreflex") and req.name != project["name"]:
                ops = {s.operator for s in req.specifier}
                if not ({">=", ">"} & ops and "<" in ops):
                    bare.append(f"{pyproject.relative_to(ROOT)}: {req}")
    assert bare == [], "give these a range (>=X,<Y):\n" + "\n".join(bare)


def test_every_package_builds_a_wheel_and_an_sdist(dist: Path) -> None:
    names = {f"agentreflex_{p.replace('-', '_')}" for p in PACKAGES} | {"agentreflex"}
    wheels = {w.name.split("-")[0] for w in dist.glob("*.whl")}
    sdists = {s.name.rsplit("-", 1)[0] for s in dist.glob("*.tar.gz")}
    assert wheels == names
    assert sdists == names


def test_the_gate_alone(dist: Path, tmp_path: Path, home: dict[str, str]) -> None:
    bin_dir = wheelhouse.install(tmp_path / "venv", dist, ["agentreflex-gate"])
    agentreflex = bin_dir / "agentreflex"
    code, out = run(agentreflex, ["--version"], home)
    assert code == 0
    assert listed(out) == {"agentreflex-core": "0.1.0", "agentreflex-gate": "0.1.0"}
    code, out = run(agentreflex, ["check", "--", "rm", "-rf", "~/"], home)
    assert code == 2, out
    assert "BLOCKED" in out
    checks = doctor(agentreflex, home)
    assert checks["packages"] == "agentreflex-core 0.1.0, agentreflex-gate 0.1.0"
    assert checks["reflexes"] == "gate"
    assert checks["self-test"] == "`rm -rf ~/` -> BLOCK"
    assert not list(tmp_path.glob("venv/lib/python*/site-packages/agentreflex/guard"))
    compiled = list(
        tmp_path.glob("venv/lib/python*/site-packages/agentreflex/core/cli/__pycache__")
    )
    assert compiled and any(p.name.startswith("__init__.") for p in compiled[0].iterdir())


def test_the_guard_alone(dist: Path, tmp_path: Path, home: dict[str, str]) -> None:
    bin_dir = wheelhouse.install(tmp_path / "venv", dist, ["agentreflex-guard"])
    agentreflex = bin_dir / "agentreflex"
    code, out = run(agentreflex, ["--version"], home)
    assert listed(out) == {"agentreflex-core": "0.1.0", "agentreflex-guard": "0.1.0"}
    code, out = run(agentreflex, ["check", "--", "rm", "-rf", "~/"], home)
    assert code == 0, out  # the destructive-command floor is the gate's, not installed here
    checks = doctor(agentreflex, home)
    assert checks["packages"] == "agentreflex-core 0.1.0, agentreflex-guard 0.1.0"
    assert checks["reflexes"] == "guard"
    assert checks["commands"] == "guard"
    assert checks["self-test"].startswith("skipped")
    code, out = run(agentreflex, ["guard", "--help"], home)
    assert code == 0, out


def test_the_meta_package_with_every_extra(
    dist: Path, tmp_path: Path, home: dict[str, str]
) -> None:
    bin_dir = wheelhouse.install(tmp_path / "venv", dist, ["agentreflex[all]"])
    agentreflex = bin_dir / "agentreflex"
    code, out = run(agentreflex, ["--version"], home)
    expected = {"agentreflex": "0.1.0"} | {f"agentreflex-{p}": "0.1.0" for p in PACKAGES}
    assert listed(out) == expected
    checks = doctor(agentreflex, home)
    assert checks["packages"] == ", ".join(f"{n} {v}" for n, v in sorted(expected.items()))
    assert set(checks["reflexes"].split(", ")) >= {"gate", "runaway", "guard", "done"}
    payload = {
        "session_id": "wheels",
        "transcript_path": str(tmp_path / "none.jsonl"),
        "cwd": home["HOME"],
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": "rm -rf ~/"},
        "tool_use_id": "toolu_wheels",
    }
    env = dict(home, REFLEX_MODE="enforced")
    code, out = run(agentreflex, ["hook", "claude-code", "PreToolUse"], env, json.dumps(payload))
    assert code == 0, out
    assert json.loads(out)["hookSpecificOutput"]["permissionDecision"] == "deny"


def test_the_wheels_do_not_carry_the_workspace(dist: Path) -> None:
    """The meta-package wheel holds no code, and no package wheel holds tests or a sibling."""
    import zipfile

    for wheel in dist.glob("*.whl"):
        names = zipfile.ZipFile(wheel).namelist()
        code = [n for n in names if n.endswith(".py")]
        if wheel.name.startswith("agentreflex-"):
            assert code == [], wheel.name
            continue
        package = wheel.name.split("-")[0].removeprefix("agentreflex_")
        assert all(n.startswith(f"agentreflex/{package}/") for n in code), wheel.name
    assert sys.version_info >= (3, 11)


def _pre_tool(command: str, cwd: Path) -> str:
    return json.dumps(
        {
            "session_id": "plain-name",
            "transcript_path": str(cwd / "none.jsonl"),
            "cwd": str(cwd),
            "hook_event_name": "PreToolUse",
            "tool_name": "Bash",
            "tool_input": {"command": command},
            "tool_use_id": "toolu_plain",
        }
    )


def _scratch_repo_with_uncommitted_work(where: Path) -> Path:
    git = ["git", "-c", "user.name=T", "-c", "user.email=t@example.invalid"]
    where.mkdir()
    (where / "notes.txt").write_text("committed\n")
    subprocess.run([*git, "init", "-q"], cwd=where, check=True)
    subprocess.run([*git, "add", "notes.txt"], cwd=where, check=True)
    subprocess.run([*git, "commit", "-q", "-m", "init"], cwd=where, check=True)
    (where / "notes.txt").write_text("an afternoon of uncommitted work\n")
    return where


def test_the_plain_name_is_the_recommended_set(
    dist: Path, tmp_path: Path, home: dict[str, str]
) -> None:
    """`pip install agentreflex` guards: the floors and the reflexes, not core alone."""
    agentreflex = wheelhouse.install(tmp_path / "venv", dist, ["agentreflex"]) / "agentreflex"
    code, out = run(agentreflex, ["--version"], home)
    recommended = ("core", "gate", "runaway", "judge2", "guard", "instructions", "context-layer")
    assert set(listed(out)) == {"agentreflex"} | {f"agentreflex-{p}" for p in recommended}
    checks = doctor(agentreflex, home)
    assert set(checks["reflexes"].split(", ")) >= {"gate", "runaway", "guard", "done"}
    env = dict(home, REFLEX_MODE="enforced")
    code, out = run(
        agentreflex,
        ["hook", "claude-code", "PreToolUse"],
        env,
        _pre_tool("rm -rf ~/", Path(home["HOME"])),
    )
    assert code == 0, out
    assert json.loads(out)["hookSpecificOutput"]["permissionDecision"] == "deny"
    repo = _scratch_repo_with_uncommitted_work(tmp_path / "repo")
    proc = subprocess.run(
        [str(agentreflex), "hook", "claude-code", "PreToolUse"],
        input=_pre_tool("git reset --hard", repo),
        capture_output=True, text=True, env=env, cwd=repo, check=False,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["hookSpecificOutput"]["permissionDecision"] in ("deny", "ask")
    assert (repo / "notes.txt").read_text() == "an afternoon of uncommitted work\n"


def test_the_hooks_code_shares_no_file_a_contained_command_can_write(
    dist: Path, tmp_path: Path, home: dict[str, str]
) -> None:
    """uv hard-links its cache's files into the environment it installs (its default on
    Linux), and ``~/.cache/uv`` is writable in the boundary so installs work there: the
    hook's own code had a second name a contained command could write.  Installed the
    user's way, with the cache in the user's home, the move must not reach the hook."""
    cache = Path(home["HOME"]) / ".cache" / "uv"  # the policy's writable ~/.cache/uv
    wheelhouse.install(tmp_path / "venv", dist, ["agentreflex-core"], cache=cache)
    agentreflex = tmp_path / "venv" / "bin" / "agentreflex"
    cli = next(
        (tmp_path / "venv").glob("lib/python*/site-packages/agentreflex/core/cli/__init__.py")
    )
    assert cli.stat().st_nlink > 1, "uv left no hard link here: the case would prove nothing"
    before = cli.read_bytes()
    project = tmp_path / "proj"
    (project / ".agentreflex").mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    (project / ".agentreflex" / "config.toml").write_text('mode = "enforced"\n')
    move = (
        "find ~/.cache/uv -path '*agentreflex/core/cli*' -name '*.py' "
        '-exec sh -c \'echo "import os; os._exit(0)" >> "$1"\' _ {} \\;'
    )
    payload = {
        "session_id": "links",
        "cwd": str(project),
        "hook_event_name": "BeforeTool",
        "tool_name": "run_shell_command",
        "tool_input": {"command": move},
    }
    env = dict(home, REFLEX_MODE="enforced")
    proc = subprocess.run(
        [str(agentreflex), "hook", "gemini", "BeforeTool"],
        input=json.dumps(payload), capture_output=True, text=True, env=env, cwd=project,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    line = json.loads(proc.stdout)["hookSpecificOutput"]["tool_input"]["command"]
    assert "bwrap" in line, line
    subprocess.run(["bash", "-c", line], cwd=project, env=env, capture_output=True, check=False)
    assert cli.read_bytes() == before
    assert cli.stat().st_nlink == 1
    cached = [p for p in cache.rglob("__init__.py") if "agentreflex/core/cli" in str(p)]
    assert cached and all(b"os._exit" in p.read_bytes() for p in cached)  # the move ran


def test_core_alone_says_it_guards_nothing(
    dist: Path, tmp_path: Path, home: dict[str, str]
) -> None:
    agentreflex = wheelhouse.install(tmp_path / "venv", dist, ["agentreflex-core"]) / "agentreflex"
    checks = doctor(agentreflex, home)
    assert checks["reflexes"].startswith("none installed: every hook answers ALLOW")
    payload = {
        "session_id": "core-alone",
        "transcript_path": str(tmp_path / "none.jsonl"),
        "cwd": home["HOME"],
        "hook_event_name": "SessionStart",
        "source": "startup",
    }
    for _ in range(2):  # every session start, not only the first
        proc = subprocess.run(
            [str(agentreflex), "hook", "claude-code", "SessionStart"],
            input=json.dumps(payload), capture_output=True, text=True, env=home,
            cwd=home["HOME"], check=False,
        )  # fmt: skip
        assert proc.returncode == 0, proc.stderr
        assert "nothing is guarding this session" in proc.stderr
