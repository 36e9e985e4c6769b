"""A trial registry's name means what the project's own settings say (rt98).

``uv publish --index testpypi`` uploads to the ``publish-url`` that pyproject.toml's
``[[tool.uv.index]]`` entry of that name gives, and ``poetry publish -r testpypi`` to the
``url`` of poetry.toml's ``[repositories.testpypi]``: files an agent can write.  rt95
let both warn by the name alone; a name the project points at the real index publishes
for real and blocks, one it points at TestPyPI still warns.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

Checked = tuple[str, set[str]]

REAL, TRIAL = "https://upload.pypi.org/legacy/", "https://test.pypi.org/legacy/"


def _uv_index(project: Path, url: str) -> None:
    (project / "pyproject.toml").write_text(
        '[project]\nname = "x"\nversion = "1"\n\n'
        f'[[tool.uv.index]]\nname = "testpypi"\nurl = "https://test.pypi.org/simple/"\n'
        f'publish-url = "{url}"\nexplicit = true\n'
    )


def _poetry_repo(project: Path, url: str) -> None:
    (project / "poetry.toml").write_text(f'[repositories.testpypi]\nurl = "{url}"\n')


@pytest.mark.parametrize(
    ("write", "command"),
    [(_uv_index, "uv publish --index testpypi"), (_poetry_repo, "poetry publish -r testpypi")],
)
def test_a_name_the_project_points_at_the_real_index_blocks(
    gate_project: Path,
    gate_check: Callable[[str], Checked],
    write: Callable[[Path, str], None],
    command: str,
) -> None:
    write(gate_project, REAL)
    assert gate_check(command) == ("BLOCK", {"GATE-PUBLISH"})


@pytest.mark.parametrize(
    ("write", "command"),
    [(_uv_index, "uv publish --index testpypi"), (_poetry_repo, "poetry publish -r testpypi")],
)
def test_a_name_the_project_points_at_testpypi_warns(
    gate_project: Path,
    gate_check: Callable[[str], Checked],
    write: Callable[[Path, str], None],
    command: str,
) -> None:
    write(gate_project, TRIAL)
    assert gate_check(command) == ("WARN", {"GATE-PUBLISH"})


def test_a_name_the_project_does_not_define_keeps_its_usual_meaning(
    gate_check: Callable[[str], Checked],
) -> None:
    """The user's own settings (~/.pypirc, poetry's config) give it then, as before."""
    assert gate_check("poetry publish -r testpypi") == ("WARN", {"GATE-PUBLISH"})
