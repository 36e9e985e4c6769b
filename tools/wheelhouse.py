"""Build every package's wheel and sdist, and install from them into a fresh venv.

Used by ``tests/test_wheels.py`` and ``tools/bench_hook.py``: both need a
copy of agentreflex installed the way a user gets it (built wheels, not the
workspace's editable sources), with its bytecode compiled.

The agentreflex distributions come only from the wheels built here: a
constraints file pins each to the version just built, so a same-named
distribution on a package index can never stand in for it, while the ranges
the packages declare on each other are still what the resolver checks.
Third-party dependencies (tree-sitter, httpx, ...) come from the registry or
uv's cache.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def uv() -> str:
    """The uv executable (on PATH, or next to this interpreter)."""
    found = shutil.which("uv") or shutil.which("uv", path=str(Path(sys.executable).parent))
    if not found:
        raise RuntimeError("uv is not installed: python3 -m pip install uv")
    return found


def build(out: Path) -> list[Path]:
    """``uv build --all-packages`` into ``out``: every package's sdist, and a wheel built from it."""
    out.mkdir(parents=True, exist_ok=True)
    subprocess.run(
        [uv(), "build", "--all-packages", "--out-dir", str(out), "--quiet"],
        cwd=ROOT,
        check=True,
        env=_env(),
    )
    return sorted(out.glob("*.whl"))


def built_versions(wheels: Path) -> dict[str, str]:
    """``{distribution: version}`` of the agentreflex wheels in ``wheels``."""
    found: dict[str, str] = {}
    for wheel in wheels.glob("*.whl"):
        name, version = wheel.name.split("-")[:2]
        found[name.replace("_", "-")] = version
    return found


def install(
    venv: Path,
    wheels: Path,
    requirements: list[str],
    compile_bytecode: bool = True,
    cache: Path | None = None,
) -> Path:
    """A fresh venv at ``venv`` with ``requirements`` installed from ``wheels``; its bin folder.

    ``cache``: uv's cache for this install (uv hard-links its files into the venv).
    """
    env = _env() if cache is None else {**_env(), "UV_CACHE_DIR": str(cache)}
    subprocess.run(
        [uv(), "venv", "--quiet", "--python", sys.executable, str(venv)],
        check=True,
        env=env,
    )
    constraints = venv / "agentreflex-constraints.txt"
    constraints.write_text(
        "".join(f"{name}=={version}\n" for name, version in sorted(built_versions(wheels).items()))
    )
    argv = [uv(), "pip", "install", "--quiet", "--python", str(venv / "bin" / "python")]
    argv += ["--find-links", str(wheels), "--constraint", str(constraints)]
    argv += ["--compile-bytecode"] if compile_bytecode else []
    subprocess.run(argv + requirements, check=True, env=env)
    return venv / "bin"


def _env() -> dict[str, str]:
    """uv's environment, minus anything that would point it at the workspace's own venv."""
    env = dict(os.environ)
    for key in ("VIRTUAL_ENV", "UV_PROJECT_ENVIRONMENT", "UV_COMPILE_BYTECODE"):
        env.pop(key, None)
    return env
