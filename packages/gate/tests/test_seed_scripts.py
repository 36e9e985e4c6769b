"""A project's seed script, run by name or by the tool that runs it, is judged the same.

Seed scripts exist to fill a development database and commonly empty its tables
first (``await prisma.user.deleteMany()`` in ``prisma/seed.ts``, ``User.delete_all``
in ``db/seeds.rb``); Prisma runs the seed from ``prisma migrate dev|reset``, both
development-only commands (https://www.prisma.io/docs/orm/prisma-migrate/workflows/seeding).
So ``node prisma/seed.js`` and ``npx prisma db seed`` (which runs that same file) both
warn about the whole-table delete of a development database, and both block when the
command names production.  Before, the first blocked as an unknown database and the
second was not read at all, so a seed that deleted files passed unseen.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

Checked = tuple[str, set[str]]

SEED = (
    "const { PrismaClient } = require('@prisma/client')\n"
    "const prisma = new PrismaClient()\n"
    "async function main() {\n"
    "  await prisma.post.deleteMany()\n"
    "  await prisma.user.deleteMany()\n"
    "  await prisma.user.create({ data: { email: 'alice@prisma.io' } })\n"
    "}\n"
    "main()\n"
)
PROD = "DATABASE_URL=postgresql://app@db.prod.example.com:5432/app"


def _package(project: Path, seed: str) -> None:
    package = {"name": "app", "prisma": {"seed": seed}, "scripts": {"seed": seed}}
    (project / "package.json").write_text(json.dumps(package))


@pytest.fixture
def seeded(gate_project: Path) -> Path:
    (gate_project / "prisma").mkdir()
    (gate_project / "prisma" / "seed.js").write_text(SEED)
    _package(gate_project, "node prisma/seed.js")
    return gate_project


@pytest.mark.parametrize("command", ["node prisma/seed.js", "npx prisma db seed", "npm run seed"])
def test_seed_emptying_tables_warns_by_every_route(
    seeded: Path, gate_check: Callable[[str], Checked], command: str
) -> None:
    assert gate_check(command) == ("WARN", {"GATE-DB-DESTROY"})


@pytest.mark.parametrize("command", ["node prisma/seed.js", "npx prisma db seed"])
def test_seed_run_against_production_blocks(
    seeded: Path, gate_check: Callable[[str], Checked], command: str
) -> None:
    assert gate_check(f"{PROD} {command}") == ("BLOCK", {"GATE-DB-DESTROY"})


def test_same_deletes_outside_a_seed_still_block(
    seeded: Path, gate_check: Callable[[str], Checked]
) -> None:
    """A script that is not the seed (a clean-up job) names no database: unknown, blocked."""
    (seeded / "scripts").mkdir()
    (seeded / "scripts" / "cleanup.js").write_text(SEED)
    assert gate_check("node scripts/cleanup.js") == ("BLOCK", {"GATE-DB-DESTROY"})


def test_a_seed_that_adds_rows_is_allowed(
    gate_project: Path, gate_check: Callable[[str], Checked]
) -> None:
    (gate_project / "prisma").mkdir()
    (gate_project / "prisma" / "seed.js").write_text(SEED.replace("deleteMany", "upsert"))
    _package(gate_project, "node prisma/seed.js")
    assert gate_check("npx prisma db seed") == ("ALLOW", set())


def test_prisma_db_seed_reads_the_seed_command_of_prisma_config(
    gate_project: Path, gate_check: Callable[[str], Checked]
) -> None:
    """Prisma 6.x/7 name the seed in prisma.config.ts (``migrations.seed``)."""
    (gate_project / "prisma").mkdir()
    (gate_project / "prisma" / "seed.js").write_text(SEED)
    (gate_project / "prisma.config.ts").write_text(
        'import { defineConfig } from "prisma/config"\n'
        "export default defineConfig({\n"
        '  schema: "prisma/schema.prisma",\n'
        '  migrations: { path: "prisma/migrations", seed: "node prisma/seed.js" },\n'
        "})\n"
    )
    assert gate_check(f"{PROD} npx prisma db seed") == ("BLOCK", {"GATE-DB-DESTROY"})


def test_prisma_db_seed_runs_what_the_seed_command_says(
    gate_project: Path, gate_check: Callable[[str], Checked]
) -> None:
    """The seed command is shell text like a package.json script: its deletes are judged."""
    _package(gate_project, "node prisma/seed.js && rm -rf ~/.ssh")
    assert gate_check("npx prisma db seed")[0] == "BLOCK"


@pytest.mark.parametrize(
    ("path", "code"),
    [
        ("db/seeds.py", "from app import User, session\nsession.query(User).delete()\n"),
        ("seeders/seed-users.js", SEED),
    ],
)
def test_other_seed_files_grade_as_development(
    gate_project: Path, gate_check: Callable[[str], Checked], path: str, code: str
) -> None:
    (gate_project / path).parent.mkdir(parents=True)
    (gate_project / path).write_text(code)
    runner = "python" if path.endswith(".py") else "node"
    assert gate_check(f"{runner} {path}") == ("WARN", {"GATE-DB-DESTROY"})
