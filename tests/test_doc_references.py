"""Every test and repository file the docs cite still exists.

Why: the docs prove their claims by naming a test ("`tests/test_x.py`",
"`test_something`"); a test renamed or removed leaves the claim citing
nothing, and a newcomer who looks finds no proof (``test_protected_files.py``
was cited for months after the file kept its old name ``test_guarded_files.py``).

Checked in README.md, SECURITY.md, tests/README.md, integration-tests/README.md and
each package's and plugin's README.md, in backticks:

- a path starting with a folder of this repository (``tests/``, ``packages/``,
  ``plugins/``, ``integration-tests/``, ``tools/``, ``docs/``, ``.ci/``) exists,
  from the repository root or from the doc's own folder;
- a module named by a path (``contain/pidns.py``, ``gate/files.py``) is a file below
  one of the places the docs name modules from: a package's ``src/agentreflex/`` or
  its folder, a package's ``tests/``, ``integration-tests/``;
- a test file name (``test_x.py``) is a file somewhere in the repository;
- a test's name (``test_x``) is a test function defined in some test file.

A few names are of a user's project in an example, not of this repository;
they are listed in EXAMPLES with the doc that uses them. A path below a folder that
.gitignore names by its path (``integration-tests/.hosts/``, where the tests install
the real hosts) is made at run time: a clean checkout does not have it yet, so it is
not checked.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = sorted(
    [
        ROOT / "README.md",
        ROOT / "SECURITY.md",
        ROOT / "tests" / "README.md",
        ROOT / "integration-tests" / "README.md",
        *ROOT.glob("packages/*/README.md"),
        *ROOT.glob("plugins/*/README.md"),
    ]
)
PREFIXES = ("tests/", "packages/", "plugins/", "integration-tests/", "tools/", "docs/", ".ci/")
# Folders .gitignore names by path: made at run time, absent from a clean checkout.
RUN_TIME_FOLDERS = tuple(
    line.strip()
    for line in (ROOT / ".gitignore").read_text(encoding="utf-8").splitlines()
    if line.strip().endswith("/") and "/" in line.strip()[:-1]
)
SKIP_FOLDERS = {".git", ".venv", ".hosts", "bundle", "node_modules", "__pycache__", ".tox"}

# (doc, name): a name in an example of a user's project, not of this repository.
EXAMPLES = {
    ("SECURITY.md", "packages/web"),  # a monorepo's folder in an example
    ("SECURITY.md", "packages/web/.claude"),
    ("SECURITY.md", "tools/server.py"),  # a project's .mcp.json server
    ("packages/gate/README.md", "tests/fixtures/"),  # dcg's fixtures, a peer project
    ("packages/judge2/README.md", "tests/test_a.py"),  # a project's test in an example
    ("plugins/codex/README.md", "tests/test_calc.py"),  # the demo project's test
    ("plugins/opencode/README.md", "tests/test_calc.py"),
    ("plugins/opencode/README.md", "plugins/agentreflex.js"),  # under .opencode/
    ("plugins/pi/README.md", "tests/test_calc.py"),
    ("SECURITY.md", "hermes_cli/middleware.py"),  # Hermes' own source
    ("plugins/hermes/README.md", "hermes_cli/middleware.py"),
    ("SECURITY.md", "t/fixtures.py"),  # a project's file in an example
    ("packages/instructions/README.md", "generated/api.py"),
    ("packages/instructions/README.md", "src/app.py"),
    ("plugins/codex/README.md", "src/calc.py"),
    ("integration-tests/README.md", "tests/test_calc.py"),  # the scripted host's project
    ("integration-tests/README.md", "src/app.py"),
}
# Where the docs name a module from, besides the root and the doc's own folder.
MODULE_ROOTS = [
    *ROOT.glob("packages/*/src"),
    *ROOT.glob("packages/*/src/agentreflex"),
    *ROOT.glob("packages/*/src/agentreflex/*"),
    *ROOT.glob("packages/*/tests"),
    ROOT / "integration-tests",
]


def _repository_files() -> tuple[set[str], set[str]]:
    """The file names in the repository, and the test functions defined in it (a shared
    scenario such as integration-tests/hostharness/js_scenarios.py defines some)."""
    names: set[str] = set()
    functions: set[str] = set()
    stack = [ROOT]
    while stack:
        folder = stack.pop()
        for path in folder.iterdir():
            if path.is_dir() and not path.is_symlink():
                if path.name not in SKIP_FOLDERS:
                    stack.append(path)
                continue
            names.add(path.name)
            if path.suffix == ".py":
                text = path.read_text(encoding="utf-8", errors="replace")
                functions.update(re.findall(r"def (test_\w+)", text))
    return names, functions


NAMES, FUNCTIONS = _repository_files()


def _cited(doc: Path) -> set[str]:
    names: set[str] = set()
    for span in re.findall(r"`([^`\n]+)`", doc.read_text(encoding="utf-8")):
        for token in re.findall(r"[\w./*-]+", span):
            names.add(token.rstrip("."))
    return names


def _missing(doc: Path, cited: set[str] | None = None) -> list[str]:
    relative = doc.relative_to(ROOT).as_posix()
    missing = []
    for name in sorted(_cited(doc) if cited is None else cited):
        if (relative, name) in EXAMPLES or "*" in name or name.startswith(RUN_TIME_FOLDERS):
            continue
        if name.startswith(PREFIXES) and "/" in name:
            found = (ROOT / name).exists() or (doc.parent / name).exists()
        elif "/" in name and name.endswith(".py"):
            module = name.removeprefix("./")
            bases = [ROOT, doc.parent, *MODULE_ROOTS]
            found = any((base / module).exists() for base in bases)
        elif re.fullmatch(r"test_\w+\.py", name):
            found = name in NAMES
        elif re.fullmatch(r"test_\w*[a-z0-9]", name):
            found = name in FUNCTIONS or name + ".py" in NAMES
        else:
            continue
        if not found:
            missing.append(name)
    return missing


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_cited_tests_and_files_exist(doc: Path) -> None:
    assert _missing(doc) == [], f"{doc.relative_to(ROOT)} cites what is not in the repository"


def test_examples_are_still_cited() -> None:
    """An example name no doc cites any more is dropped from EXAMPLES, so the list stays true."""
    cited = {(d.relative_to(ROOT).as_posix(), n) for d in DOCS for n in _cited(d)}
    assert EXAMPLES - cited == set()


def test_run_time_folders_are_not_required() -> None:
    """A clean checkout has no integration-tests/.hosts/ until the tests install the hosts
    (CI failed on README.md citing it); a path beside it is still checked."""
    assert "integration-tests/.hosts/" in RUN_TIME_FOLDERS
    cited = {"integration-tests/.hosts/claude-code-9/", "integration-tests/no_such_file.py"}
    assert _missing(ROOT / "README.md", cited) == ["integration-tests/no_such_file.py"]
