"""ORM and migration tools reached through a launcher, judged by their pack.

``php artisan migrate:fresh``, ``php bin/console doctrine:database:drop``,
``cargo sqlx database reset``, ``python manage.py flush``, ``yarn prisma
migrate reset``, ``pnpm dlx prisma ...``, ``npm exec -- knex ...`` and
``npx prisma@5 ...`` run a program the ``databases`` pack knows
(``packs/databases.json``) under another name; this module finds that program
and hands the command to the pack as if the program had been run directly, so
the reset and force paths of every ORM are data, not code (issue 30).
"""

from __future__ import annotations

from agentreflex.gate.model import Cmd, Hit
from agentreflex.gate.shell.paths import Where

_PACKAGE_RUNNERS = frozenset({"yarn", "pnpm", "bun", "npm"})
_RUNNER_VERBS = frozenset({"dlx", "x", "exec"})
_SCOPED = {"@mikro-orm/cli": "mikro-orm", "@prisma/cli": "prisma"}


def program_of(argv: list[str]) -> list[str] | None:
    """``argv`` rewritten to start with the program a launcher runs, or ``None``."""
    name, args = argv[0].rsplit("/", 1)[-1], argv[1:]
    if name == "php" and args and args[0].rsplit("/", 1)[-1] in ("artisan", "console"):
        return [args[0].rsplit("/", 1)[-1], *args[1:]]  # Laravel, Symfony's bin/console
    if name == "cargo" and args[:1] in (["sqlx"], ["diesel"]):
        return [args[0], *args[1:]]
    if name.startswith("python"):
        if args and args[0].rsplit("/", 1)[-1] == "manage.py":
            return ["manage.py", *args[1:]]
        if args[:2] in (["-m", "django"], ["-m", "alembic"]):
            return ["manage.py" if args[1] == "django" else "alembic", *args[2:]]
        return None
    if name == "manage.py":
        return ["manage.py", *args]
    if name in _PACKAGE_RUNNERS:
        rest = args
        if rest[:1] and rest[0] in _RUNNER_VERBS:
            rest = rest[1:]
        elif name == "npm":
            return None
        while rest[:1] and (rest[0] == "--" or rest[0].startswith("-")):
            rest = rest[1:]
        return [_bare(rest[0]), *rest[1:]] if rest else None
    bare = _bare(argv[0])
    return [bare, *args] if bare != argv[0] else None


def _bare(word: str) -> str:
    """``prisma@5.1`` -> ``prisma``; ``@mikro-orm/cli@6`` -> ``mikro-orm``."""
    head, at, _ = word[1:].partition("@")
    word = word[0] + head if at else word
    return _SCOPED.get(word, word)


def launched(cmd: Cmd, where: Where) -> list[Hit]:
    """The databases pack's hit on the program ``cmd`` launches."""
    argv = program_of(cmd.argv)
    if argv is None:
        return []
    from agentreflex.gate import packs

    if packs.programs().get(argv[0]) != "databases":
        return []
    shown = Cmd(
        argv,
        cmd.text,
        cmd.cwd,
        assigns=cmd.assigns,
        vars_used=cmd.vars_used,
        stdin_text=cmd.stdin_text,
        stdin_from=cmd.stdin_from,
    )
    if argv[:2] == ["manage.py", "dbshell"]:
        return _dbshell(shown, where)
    return packs.check(shown, where)


def _dbshell(cmd: Cmd, where: Where) -> list[Hit]:
    """``manage.py dbshell``: the SQL piped in or passed after ``--`` (:mod:`rules.infra`);
    ``manage.py sqlflush | manage.py dbshell`` is ``flush`` spelled in two steps."""
    from agentreflex.gate import packs
    from agentreflex.gate.rules.infra import database

    feeder = cmd.stdin_from
    if feeder is not None and (program_of(feeder.argv) or feeder.argv)[:2] == [
        "manage.py",
        "sqlflush",
    ]:
        return packs.check(Cmd(["manage.py", "flush"], cmd.text, cmd.cwd), where)
    return database(cmd, where, {})


# A framework's console handed code runs it in the application, with its models loaded:
# the program words -> the interpreter that code is, and the options that carry it.
_CONSOLES = {
    ("rails", "runner"): ("ruby", "-e", ("-e", "--environment")),
    ("rails", "r"): ("ruby", "-e", ("-e", "--environment")),
    ("rails", "console"): ("ruby", "-e", ()),
    ("rails", "c"): ("ruby", "-e", ()),
    ("manage.py", "shell"): ("python", "-c", ("-i", "--interface", "--settings", "--pythonpath")),
    ("artisan", "tinker"): ("php", "-r", ("--env",)),
}
_CODE_OPTIONS = {"manage.py": ("-c", "--command"), "artisan": ("--execute",)}
# The option by which a console names its environment, and the variable it stands for:
# ``rails runner -e test`` is ``RAILS_ENV=test`` (guides.rubyonrails.org/command_line.html,
# "bin/rails runner": "-e switch"), ``artisan --env=testing`` is ``APP_ENV=testing``
# (laravel.com/docs/configuration, "Determining the Current Environment"), ``manage.py
# --settings=app.settings.test`` is ``DJANGO_SETTINGS_MODULE`` (docs.djangoproject.com,
# django-admin "--settings").
_SCOPE_OPTIONS = {
    "rails": (("-e", "--environment"), "RAILS_ENV"),
    "artisan": (("--env",), "APP_ENV"),
    "manage.py": (("--settings",), "DJANGO_SETTINGS_MODULE"),
}


def console_code(argv: list[str]) -> list[str] | None:
    """The interpreter command a framework console amounts to: ``rails runner 'CODE'``
    is ``ruby -e 'CODE'`` (``rails runner script.rb`` is ``ruby script.rb``),
    ``manage.py shell -c 'CODE'`` is ``python -c 'CODE'`` and ``artisan tinker
    --execute='CODE'`` is ``php -r 'CODE'``; without code each reads its input, as
    the bare interpreter does (``manage.py shell < job.py``).  ``None``: no console."""
    words = program_of(argv) or [argv[0].rsplit("/", 1)[-1], *argv[1:]]
    found = _CONSOLES.get((words[0], words[1])) if len(words) > 1 else None
    if found is None:
        return None
    lang, flag, valued = found
    args = words[2:]
    for option in _CODE_OPTIONS.get(words[0], ()):
        for k, a in enumerate(args):
            if a == option and k + 1 < len(args):
                return [lang, flag, args[k + 1]]
            if a.startswith(option + "="):
                return [lang, flag, a.split("=", 1)[1]]
    if words[0] != "rails" or words[1] in ("console", "c"):
        return [lang]  # the code comes from the input (echo 'User.delete_all' | rails c)
    k = 0
    while k < len(args) and args[k].startswith("-"):
        k += 1 if "=" in args[k] or args[k] not in valued else 2
    if k >= len(args):
        return None
    code = args[k]
    return [lang, code] if code.endswith(".rb") else [lang, flag, code]


def console_scope(argv: list[str]) -> dict[str, str]:
    """The assignment a console's environment option amounts to (``rails runner -e test``:
    ``RAILS_ENV=test``), so the code it runs is graded by the database it reaches, as
    ``RAILS_ENV=test rails runner`` is (:mod:`rules.dbscope`)."""
    words = program_of(argv) or [argv[0].rsplit("/", 1)[-1], *argv[1:]]
    found = _SCOPE_OPTIONS.get(words[0])
    if found is None:
        return {}
    options, variable = found
    args = words[2:]
    for k, a in enumerate(args):
        if a in options and k + 1 < len(args):
            return {variable: args[k + 1]}
        name, eq, value = a.partition("=")
        if eq and name in options:
            return {variable: value}
    return {}
