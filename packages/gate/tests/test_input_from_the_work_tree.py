"""Input a command names at run time but the work tree holds (rt76).

``ssh prod 'bash -s' < destroy.sh``, ``kubectl exec -i pod -- psql < drop.sql``,
``sh < destroy.sh``: the file is read from the project (bounded, never run) and
judged as the same text written inline would be; its safe neighbour (a script
that only prints, SQL that only creates) stays allowed.  A FIFO named as a SQL
file is not opened: the gate would wait on it for ever.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from .conftest import Checked

DESTROY = "rm -rf /var/lib/postgresql\n"
HARMLESS = "echo deployed\n"
DROP = "DROP TABLE users;\n"
SCHEMA = "CREATE TABLE users (id int);\n"


@pytest.fixture
def tree(gate_project: Path) -> Path:
    """The project with a destructive and a harmless file of each kind."""
    for name, text in (
        ("destroy.sh", DESTROY),
        ("deploy.sh", HARMLESS),
        ("drop.sql", DROP),
        ("schema.sql", SCHEMA),
    ):
        (gate_project / name).write_text(text)
    return gate_project


@pytest.mark.parametrize(
    ("command", "rule"),
    [
        ("ssh prod 'bash -s' < destroy.sh", "GATE-RM-SYSTEM"),
        ("ssh prod bash < destroy.sh", "GATE-RM-SYSTEM"),
        ("ssh -p 2222 prod 'cd /srv && sudo bash -s' < destroy.sh", "GATE-RM-SYSTEM"),
        ("ssh prod psql app < drop.sql", "GATE-DB-DESTROY"),
        ("kubectl exec -i pod -- sh < destroy.sh", "GATE-RM-SYSTEM"),
        ("kubectl exec -i db-0 -- psql -U postgres < drop.sql", "GATE-DB-DESTROY"),
        ("docker exec -i db psql < drop.sql", "GATE-DB-DESTROY"),
        ("sh < destroy.sh", "GATE-RM-SYSTEM"),
        ("bash -c psql < drop.sql", "GATE-DB-DESTROY"),
        ("psql -f drop.sql", "GATE-DB-DESTROY"),
        ("mysql app < drop.sql", "GATE-DB-DESTROY"),
        ("sqlite3 app.db < drop.sql", "GATE-DB-DESTROY"),
        ("cat destroy.sh | sh", "GATE-RM-SYSTEM"),
        ("cat destroy.sh | ssh prod bash", "GATE-RM-SYSTEM"),
        ("cat drop.sql | psql", "GATE-DB-DESTROY"),
        ("cat drop.sql | kubectl exec -i db-0 -- psql", "GATE-DB-DESTROY"),
    ],
)
def test_a_work_tree_file_fed_to_a_shell_or_client_is_judged_by_its_text(
    tree: Path, gate_check: Callable[[str], Checked], command: str, rule: str
) -> None:
    verdict, codes = gate_check(command)
    assert verdict == "BLOCK", codes
    assert rule in codes


@pytest.mark.parametrize(
    "command",
    [
        "ssh prod 'bash -s' < deploy.sh",
        "ssh prod psql app < schema.sql",
        "kubectl exec -i pod -- sh < deploy.sh",
        "kubectl exec -i db-0 -- psql -U postgres < schema.sql",
        "sh < deploy.sh",
        "psql -f schema.sql",
        "mysql app < schema.sql",
        "cat deploy.sh | ssh prod bash",
        "cat schema.sql | psql",
    ],
)
def test_the_same_commands_with_a_harmless_file_stay_allowed(
    tree: Path, gate_check: Callable[[str], Checked], command: str
) -> None:
    assert gate_check(command) == ("ALLOW", set())


def test_inline_input_to_a_remote_shell_is_judged(
    gate_check: Callable[[str], Checked],
) -> None:
    verdict, codes = gate_check("ssh prod bash <<< 'rm -rf /etc'")
    assert verdict == "BLOCK" and "GATE-RM-SYSTEM" in codes
    assert gate_check("ssh prod bash <<< 'uptime'") == ("ALLOW", set())


def test_a_script_read_from_input_does_not_feed_itself_to_what_it_runs(
    gate_project: Path, gate_check: Callable[[str], Checked]
) -> None:
    """The script ``bash -s`` reads is its input; ``psql`` inside it gets none of it
    (as SQL, the shell comment below would be a DROP TABLE)."""
    (gate_project / "report.sh").write_text("psql app -c 'SELECT 1'\n# DROP TABLE users;\n")
    assert gate_check("ssh prod 'bash -s' < report.sh") == ("ALLOW", set())


def test_a_file_missing_or_too_large_is_still_unknown_input(
    gate_project: Path, gate_check: Callable[[str], Checked]
) -> None:
    (gate_project / "big.sh").write_text("echo x\n" * 5000)
    for command in ("sh < missing.sh", "sh < big.sh"):
        verdict, codes = gate_check(command)
        assert verdict == "ASK_USER" and "GATE-PIPE-TO-SHELL" in codes, command


def test_a_fifo_named_as_input_is_not_opened(gate_project: Path) -> None:
    """Opening a FIFO blocks until someone writes to it: the gate must not wait."""
    os.mkfifo(gate_project / "drop.sql")
    code = (
        "import sys; from agentreflex.gate.check import check_command; "
        "print(check_command(sys.argv[1], cwd=sys.argv[2], home=sys.argv[3], "
        "project=sys.argv[2], budget_s=5.0)[0])"
    )
    for command in ("psql -f drop.sql", "psql app < drop.sql", "sh < drop.sql"):
        out = subprocess.run(
            [sys.executable, "-c", code, command, str(gate_project), str(gate_project.parent)],
            capture_output=True,
            text=True,
            timeout=60,
            check=True,
        )
        assert out.stdout.strip() in ("ALLOW", "ASK_USER"), (command, out.stdout)


@pytest.mark.parametrize(
    ("command", "harmless"),
    [
        ("python manage.py shell < purge.py", "python manage.py shell < report.py"),
        ("bin/rails runner purge.rb", "bin/rails runner report.rb"),
        ("php artisan tinker < purge.php", "php artisan tinker < report.php"),
    ],
)
def test_a_framework_console_runs_its_script_from_the_work_tree(
    gate_project: Path, gate_check: Callable[[str], Checked], command: str, harmless: str
) -> None:
    """The script a framework console reads is the application's code: every row of a
    model deleted blocks; a count stays allowed."""
    for name, text in (
        ("purge.py", "from shop.models import Order\nOrder.objects.all().delete()\n"),
        ("report.py", "from shop.models import Order\nprint(Order.objects.count())\n"),
        ("purge.rb", "Order.delete_all\n"),
        ("report.rb", "puts Order.count\n"),
        ("purge.php", "App\\Models\\Order::truncate();\n"),
        ("report.php", "echo App\\Models\\Order::count();\n"),
    ):
        (gate_project / name).write_text(text)
    verdict, codes = gate_check(command)
    assert verdict == "BLOCK" and "GATE-DB-DESTROY" in codes, codes
    assert gate_check(harmless) == ("ALLOW", set())


def test_a_gh_api_request_body_is_read_from_its_file_or_pipe(
    gate_project: Path, gate_check: Callable[[str], Checked]
) -> None:
    """``gh api --input FILE`` sends the file's fields: ``{"force": true}`` on a ref is
    a force update, as ``-F force=true`` is; ``{"force": false}`` is a fast-forward."""
    (gate_project / "force.json").write_text('{"sha": "abc123", "force": true}\n')
    (gate_project / "ff.json").write_text('{"sha": "abc123", "force": false}\n')
    ref = "gh api -X PATCH repos/acme/app/git/refs/heads/main"
    for command in (f"{ref} --input force.json", f"{ref} --input=force.json"):
        verdict, codes = gate_check(command)
        assert verdict == "BLOCK" and "GATE-PACK-CODEHOSTING" in codes, command
    verdict, codes = gate_check(f"{ref} --input - <<'EOF'\n{{\"force\": true}}\nEOF")
    assert verdict == "BLOCK" and "GATE-PACK-CODEHOSTING" in codes
    assert gate_check(f"{ref} --input ff.json") == ("ALLOW", set())
    verdict, codes = gate_check("gh api -X DELETE repos/acme/app --input ff.json")
    assert verdict == "BLOCK" and "GATE-GH-DELETE" in codes


def test_input_outside_the_project_is_not_read(
    gate_project: Path, gate_check: Callable[[str], Checked]
) -> None:
    """A file outside the project, or a link in it that leads out (to a key, to the
    user's own scripts), is not opened: the input stays unknown and is asked about."""
    outside = gate_project.parent / "jobs"
    outside.mkdir()
    (outside / "deploy.sh").write_text(HARMLESS)
    (gate_project / "linked.sh").symlink_to(outside / "deploy.sh")
    for command in ("sh < ../jobs/deploy.sh", "sh < linked.sh", "ssh prod bash < linked.sh"):
        verdict, codes = gate_check(command)
        assert verdict == "ASK_USER" and "GATE-PIPE-TO-SHELL" in codes, (command, codes)


@pytest.mark.parametrize(
    "command",
    ["{ sh; } < destroy.sh", "( sh ) < destroy.sh", "f() { sh; }; f < destroy.sh"],
)
def test_a_group_or_function_passes_its_input_to_its_commands(
    tree: Path, gate_check: Callable[[str], Checked], command: str
) -> None:
    verdict, codes = gate_check(command)
    assert verdict == "BLOCK" and "GATE-RM-SYSTEM" in codes, codes
    assert gate_check(command.replace("destroy.sh", "deploy.sh")) == ("ALLOW", set())


def test_ssh_without_a_command_runs_its_input_in_the_login_shell(
    tree: Path, gate_check: Callable[[str], Checked]
) -> None:
    """``ssh host < script``: with no command the remote login shell reads the input
    as its commands (``-N`` runs none; a bare ``ssh host`` is an interactive login)."""
    for command in ("ssh prod < destroy.sh", "cat destroy.sh | ssh -T deploy@prod"):
        verdict, codes = gate_check(command)
        assert verdict == "BLOCK" and "GATE-RM-SYSTEM" in codes, (command, codes)
    for command in ("ssh -T prod < deploy.sh", "ssh prod", "ssh -N -L 5432:db:5432 prod"):
        assert gate_check(command) == ("ALLOW", set()), command
