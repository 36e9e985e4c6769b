"""Each package's README says where things are, and the table matches the folders.

Why: a newcomer reads the table before the code; a module added or renamed
without a row would make the table quietly wrong.  The rows are the
README's ``## Where things are`` table: every module and folder directly in
the package's source folder must be named in its first column (in
backticks), and every name there must exist.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = sorted(p for p in (ROOT / "packages").iterdir() if (p / "pyproject.toml").is_file())


def _source(package: Path) -> Path:
    [folder] = [p for p in (package / "src" / "agentreflex").iterdir() if p.is_dir()]
    return folder


def _entries(folder: Path) -> set[str]:
    """The modules and folders a reader would look for (``__init__.py`` and caches aside)."""
    names = set()
    for path in folder.iterdir():
        if path.name.startswith(("__", ".")):
            continue
        if path.is_dir():
            names.add(path.name + "/")
        elif path.suffix in (".py", ".toml"):
            names.add(path.name)
    return names


def _table_names(readme: str) -> set[str]:
    """The backticked names in the first column (a "top level" row names them in the second)."""
    section = readme.split("## Where things are", 1)
    assert len(section) == 2, "the README has no '## Where things are' section"
    names: set[str] = set()
    for row in section[1].split("\n## ", 1)[0].splitlines():
        cells = row.split("|")
        if len(cells) < 4 or set(cells[1].strip()) <= {"-"}:
            continue
        cell = cells[2] if cells[1].strip() == "top level" else cells[1]
        names.update(re.findall(r"`([^`]+)`", cell))
    return names


@pytest.mark.parametrize("package", PACKAGES, ids=lambda p: p.name)
def test_where_things_are_names_every_module_and_folder(package: Path) -> None:
    named = _table_names((package / "README.md").read_text(encoding="utf-8"))
    folder = _source(package)
    assert _entries(folder) - named == set(), f"{package.name}/README.md has no row for these"
    files = {n for n in named if n.endswith((".py", "/"))}
    missing = {n for n in files if not any((d / n).exists() for d in (folder, *folder.iterdir()))}
    assert missing == set(), f"{package.name}/README.md names what is not there"
