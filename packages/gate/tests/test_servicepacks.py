"""Service CLIs judged from data files (packs/*.json), one family read per program that runs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from agentreflex.gate import packs as servicepacks
from agentreflex.gate.check import check_command

from .conftest import corpus_check as _verdict

PACKS = Path(servicepacks.__file__).parent


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        ("restic forget --keep-last 3 --prune", ("BLOCK", ["GATE-PACK-BACKUP"])),
        ("vault kv metadata delete secret/app", ("BLOCK", ["GATE-PACK-SECRETS"])),
        ("nats stream purge ORDERS", ("BLOCK", ["GATE-PACK-MESSAGING"])),
        ("mc mirror --remove local/a remote/b", ("BLOCK", ["GATE-PACK-STORAGE"])),
        ("borg break-lock /srv/repo", ("ASK_USER", ["GATE-PACK-BACKUP"])),
        ("glab api -X DELETE /projects/123/hooks/456", ("BLOCK", ["GATE-PACK-CICD"])),
        ("glab api --method=DELETE projects/1", ("BLOCK", ["GATE-PACK-CICD"])),
        ("glab api -XDELETE projects/1", ("BLOCK", ["GATE-PACK-CICD"])),
        ("glab api -X GET projects/123", ("ALLOW", [])),
        ("java -jar jenkins-cli.jar -s http://j/ delete-job my-job", ("BLOCK", ["GATE-PACK-CICD"])),
        ("java -jar jenkins-cli.jar -s http://j/ get-job my-job", ("ALLOW", [])),
        ("vault --namespace admin secrets disable kv/", ("BLOCK", ["GATE-PACK-SECRETS"])),
        ("echo 'delete example.com' | nsupdate", ("BLOCK", ["GATE-PACK-DNS"])),
        ("echo 'show stat' | socat stdio /var/run/haproxy.sock", ("ALLOW", [])),
        (
            "echo 'disable server be/web1' | socat stdio /run/haproxy.sock",
            ("ASK_USER", ["GATE-PACK-LOADBALANCER"]),
        ),
        ("systemctl stop nginx", ("ASK_USER", ["GATE-PACK-LOADBALANCER"])),
        ("systemctl status nginx", ("ALLOW", [])),
        ("scp vmlinuz user@host:/boot/", ("BLOCK", ["GATE-PACK-REMOTE"])),
        ("scp user@host:/etc/hosts .", ("ALLOW", [])),
        ("scp file.txt user@host:/var/tmp/", ("ALLOW", [])),
        ("rsync -avn ./etc/ root@host:/etc/", ("ALLOW", [])),
        ("docker kill traefik", ("ASK_USER", ["GATE-PACK-CONTAINERS"])),
        ("podman stop traefik", ("ASK_USER", ["GATE-PACK-CONTAINERS"])),
        ("mvn deploy", ("BLOCK", ["GATE-PACK-PUBLISHING"])),
        ("aws s3 rm s3://bucket/key", ("WARN", ["GATE-PACK-CLOUD"])),
        (
            'aws route53 change-resource-record-sets --change-batch \'{"Action":"DELETE"}\'',
            ("BLOCK", ["GATE-PACK-CLOUD"]),
        ),
        ("restic snapshots", ("ALLOW", [])),
        ("vault kv list secret/app", ("ALLOW", [])),  # kv get prints a secret (rt100)
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
                assert e["severity"] in ("high", "medium", "low") and e["reason"], (program, e)
                assert isinstance(e["words"], list)


def test_only_the_family_of_a_running_program_is_read() -> None:
    servicepacks._FAMILIES.clear()
    _verdict("ls -la && echo done")
    assert servicepacks._FAMILIES == {}
    _verdict("cd /srv && restic prune")
    assert set(servicepacks._FAMILIES) == {"backup"}


@pytest.mark.parametrize(
    ("command", "wide", "narrow"),
    [
        # kubectl: a namespace, a selector, a manifest or a prod namespace vs named resources
        ("kubectl delete namespace prod", "BLOCK", None),
        ("kubectl delete pods --all -n dev", "BLOCK", None),
        ("kubectl delete -f app.yaml", "BLOCK", None),
        ("kubectl -n prod delete deploy api", "BLOCK", None),
        ("oc delete ns team-a", "BLOCK", None),
        ("kubectl delete pod web-1 -n dev", None, "WARN"),  # a restart (issue 30): low
        ("kubectl delete pods -l app=web", None, "WARN"),
        ("kubectl delete pod/web-1 deploy/api", None, "ASK_USER"),  # not only pods
        ("kubectl delete pvc data -n dev", "BLOCK", None),
        ("kubectl delete deploy/api", None, "ASK_USER"),
        # terraform: the whole stack vs -target (terraform still confirms it itself)
        ("terraform destroy", "BLOCK", None),
        ("terraform destroy -target=aws_instance.web -auto-approve", "BLOCK", None),
        ("terraform destroy -target=aws_instance.web", None, "ASK_USER"),
        # git clean: the work tree vs named paths (-x: ignored files such as .env too)
        ("git clean -fd", "BLOCK", None),
        ("git clean -fd .", "BLOCK", None),
        ("git clean -fdx build/", "BLOCK", None),
        ("git clean -fd build/", None, "ASK_USER"),
    ],
)
def test_scope_narrows_the_decision(command: str, wide: str | None, narrow: str | None) -> None:
    assert _verdict(command)[0] == (wide or narrow)


@pytest.mark.parametrize(
    ("command", "lean", "balanced", "thorough"),
    [
        ("kubectl delete deploy web -n dev", "WARN", "ASK_USER", "ASK_USER"),  # medium
        ("git clean -fd build/", "WARN", "ASK_USER", "ASK_USER"),  # medium (a rule's own grade)
        ("kubectl delete namespace prod", "BLOCK", "BLOCK", "BLOCK"),  # high
        ("aws s3 rm s3://bucket/key", "WARN", "WARN", "WARN"),  # low
        ("kubectl get pods", "ALLOW", "ALLOW", "ALLOW"),
    ],
)
def test_severity_is_decided_by_the_profile(
    command: str, lean: str, balanced: str, thorough: str
) -> None:
    got = [
        check_command(command, cwd="/home/user/project", home="/home/user", profile=p)[0]
        for p in ("lean", "balanced", "thorough")
    ]
    assert got == [lean, balanced, thorough]


def test_the_severity_table_is_data_and_fails_closed() -> None:
    from agentreflex.gate import severity

    table = severity.table()
    assert set(table) == {"high", "medium", "low"}
    assert {table["high"][p] for p in ("lean", "balanced", "thorough")} == {"block"}
    assert severity.decision("medium", "thorough") == "ask"
    assert severity.decision("medium", "lean") == "warn"
    assert severity.decision("unheard-of", "balanced") == "block"  # a floor fails closed
    assert severity.decision("medium", "off") == "warn"  # unknown profile: as lean


def test_no_pack_program_takes_the_pre_filter_shortcut() -> None:
    from agentreflex.gate import analyze

    assert analyze._SAFE_FIRST.isdisjoint(servicepacks.programs())


def test_the_catalogue_shows_each_pack_with_its_grades() -> None:
    from agentreflex.gate import catalogue

    rows = {code: (sev, reason) for code, _, sev, reason in catalogue.rows("balanced")}
    assert rows["GATE-PACK-CLOUD"][0] == "block/ask/warn"
    assert rows["GATE-PACK-CLOUD"][1].endswith("graded high/medium/low")
    lean = {code: sev for code, _, sev, _ in catalogue.rows("lean")}
    assert lean["GATE-PACK-CLOUD"] == "block/warn"
