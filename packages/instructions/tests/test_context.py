"""``rules_for_path``: the short list the context layer injects."""

from __future__ import annotations

from pathlib import Path

from agentreflex.instructions.context import rules_for_path


def test_enforced_rules_and_path_specific_advice(project: Path) -> None:
    (project / "AGENTS.md").write_text("- Never edit generated/.\n- Prefer short functions.\n")
    (project / "api").mkdir()
    (project / "api" / "AGENTS.md").write_text("- Handlers return JSON.\n")
    got = rules_for_path("api/h.py", cwd=str(project))
    assert got == ["AGENTS.md:1: Never edit generated/.", "api/AGENTS.md:1: Handlers return JSON."]
    assert rules_for_path("web/x.py", cwd=str(project)) == ["AGENTS.md:1: Never edit generated/."]


def test_nothing_outside_the_project_or_without_rules(project: Path, tmp_path: Path) -> None:
    assert rules_for_path("x.py", cwd=str(project)) == []
    (project / "AGENTS.md").write_text("- Never edit generated/.\n")
    assert rules_for_path(str(tmp_path / "elsewhere.py"), cwd=str(project)) == []


def test_bounded(project: Path) -> None:
    (project / "AGENTS.md").write_text("".join(f"- Never edit dir{i}/.\n" for i in range(40)))
    assert len(rules_for_path("x.py", cwd=str(project), limit=3)) == 3
    assert sum(map(len, rules_for_path("x.py", cwd=str(project), max_chars=100))) <= 100
