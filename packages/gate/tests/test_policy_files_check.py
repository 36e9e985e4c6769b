"""``agentreflex config check`` on the gate's own files: rules the gate would ignore, allow
entries without a rule or a date (the checks :mod:`agentreflex.gate.policyfiles` declares).

Moved from ``packages/core/tests/test_config_check.py``, where core alone has no gate.
"""

from __future__ import annotations

from pathlib import Path

from agentreflex.core.cli.configcheck import check_text


def test_gate_rules_the_gate_would_ignore_are_reported(tmp_path: Path) -> None:
    rules = """\
[[rule]]
id = "USER-OK"
command = "psql"

[[rule]]
id = "USER-BAD-VERDICT"
command = "psql"
verdict = "deny"

[[rule]]
id = "USER-BAD-REGEX"
regex = "(unclosed"

[[rule]]
id = "USER-TYPO"
comand = "psql"
"""
    problems = check_text(rules.encode(), "rules.toml", "gate-rules")
    found = [(p.line, p.key) for p in problems]
    assert (8, "rule[1].verdict") in found
    assert (12, "rule[2].regex") in found
    assert (14, "rule[3]") in found
    typo = next(p for p in problems if p.key == "rule[3]")
    assert "matches nothing" in typo.message and "unknown keys: comand" in typo.message
    assert not any(p.key.startswith("rule[0]") for p in problems)
    regex = next(p for p in problems if p.key == "rule[2].regex")
    assert "not a valid regular expression" in regex.message


def test_allow_entries_need_a_rule_and_a_date(tmp_path: Path) -> None:
    text = (
        '[[allow]]\nrule = "GATE-GIT-RESET-HARD"\nexpires = 2026-12-31\n\n[[allow]]\nrule = "X"\n'
    )
    problems = check_text(text.encode(), "allow.toml", "gate-allow")
    assert [(p.line, p.key) for p in problems] == [(5, "allow[1].expires")]
