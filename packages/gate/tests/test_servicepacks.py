"""Service CLIs judged from data files (packs/*.json), one family read per program that runs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from agentreflex.gate import servicepacks
from agentreflex.gate.check import check_command

PACKS = Path(servicepacks.__file__).parent / "packs"


def _verdict(command: str) -> tuple[str, list[str]]:
    verdict, proposals = check_command(command, cwd="/home/user/project", home="/home/user")
    return verdict, [p.code for p in proposals]


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        ("restic forget --keep-last 3 --prune", ("BLOCK", ["GATE-PACK-BACKUP"])),
        ("vault kv metadata delete secret/app", ("BLOCK", ["GATE-PACK-SECRETS"])),
        ("nats stream purge ORDERS", ("BLOCK", ["GATE-PACK-MESSAGING"])),
        ("mc mirror --remove local/a remote/b", ("BLOCK", ["GATE-PACK-STORAGE"])),
        ("borg break-lock /srv/repo", ("WARN", ["GATE-PACK-BACKUP"])),
        ("restic snapshots", ("ALLOW", [])),
        ("vault kv get secret/app", ("ALLOW", [])),
        ("mc mirror local/a remote/b", ("ALLOW", [])),
        ("rclone sync --dry-run src: dst:", ("ALLOW", [])),
    ],
)
def test_pack_entries_decide(command: str, expected: tuple[str, list[str]]) -> None:
    assert _verdict(command) == expected


def test_every_family_file_is_well_formed_and_indexed() -> None:
    index = servicepacks.programs()
    families = {p.stem for p in PACKS.glob("*.json")}
    assert set(index.values()) == families
    for family in families:
        data = json.loads((PACKS / f"{family}.json").read_text())
        assert data["family"] == family
        for program, entries in data["programs"].items():
            assert index[program] == family
            for e in entries:
                assert e["severity"] in ("high", "medium") and e["reason"], (program, e)
                assert isinstance(e["words"], list)


def test_only_the_family_of_a_running_program_is_read() -> None:
    servicepacks._FAMILIES.clear()
    _verdict("ls -la && echo done")
    assert servicepacks._FAMILIES == {}
    _verdict("cd /srv && restic prune")
    assert set(servicepacks._FAMILIES) == {"backup"}
