"""The finding-code catalogue lists every code the gate's sources can emit."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from agentreflex.gate import catalogue

SRC = Path(catalogue.__file__).parent


def test_every_emitted_code_is_catalogued() -> None:
    codes = set()
    for path in SRC.rglob("*.py"):  # every module: rules/, shell/, code/, packs/ too
        codes |= set(re.findall(r'"(GATE-[A-Z0-9-]*[A-Z0-9])"', path.read_text()))
    # the rule families' own modules are read, not only the top level
    assert {"GATE-DB-DESTROY", "GATE-GIT-RESET-HARD", "GATE-EXFIL-SECRET"} <= codes
    missing = codes - set(catalogue.CATALOGUE)
    assert not missing, sorted(missing)


def test_rows_include_the_service_packs(capsys: pytest.CaptureFixture[str]) -> None:
    assert catalogue.main(["--json"]) == 0
    table = json.loads(capsys.readouterr().out)
    codes = {r["code"] for r in table}
    assert {"GATE-RM-ROOT", "GATE-PACK-BACKUP", "GATE-PACK-SECRETS"} <= codes
    assert all(r["severity"] and r["reason"] for r in table)
    assert catalogue.main([]) == 0
    assert "GATE-HTTP-DELETE" in capsys.readouterr().out


def test_the_gate_rules_command(capsys: pytest.CaptureFixture[str]) -> None:
    assert catalogue.command(["rules"]) == 0
    assert "GATE-GIT-RESET-HARD" in capsys.readouterr().out
    assert catalogue.command(["nope"]) == 2
    assert "usage" in capsys.readouterr().err


def test_every_code_is_in_the_readme(capsys: pytest.CaptureFixture[str]) -> None:
    """The README's rule tables name every code the catalogue lists, service packs included,
    each spelled out (a code written as a family pattern is found by no search)."""
    readme = Path(__file__).resolve().parent.parent / "README.md"
    assert catalogue.main(["--json"]) == 0
    codes = {r["code"] for r in json.loads(capsys.readouterr().out)}
    assert "GATE-JUDGE-SECRET" in codes and "GATE-PACK-BACKUP" in codes
    named = set(re.findall(r"GATE-[A-Z0-9-]*[A-Z0-9]", readme.read_text(encoding="utf-8")))
    assert sorted(codes - named) == []
