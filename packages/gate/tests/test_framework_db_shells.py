"""SQL typed into a framework's database shell.

``python manage.py dbshell`` and ``rails dbconsole`` start the project's own
database client (psql, mysql, sqlite3) with the project's credentials, so the
statements piped into them, or passed after ``--``, run against whatever
database the settings name: production, as often as not.  A query stays allowed.
"""

from __future__ import annotations

import pytest

from .conftest import corpus_verdict as _verdict


@pytest.mark.parametrize(
    "command",
    [
        # https://docs.djangoproject.com/en/5.0/ref/django-admin/#dbshell
        "echo 'DROP TABLE auth_user;' | python manage.py dbshell",
        "python manage.py sqlflush | python manage.py dbshell",
        "python manage.py dbshell -- -c 'DROP TABLE auth_user'",
        "./manage.py dbshell <<< 'TRUNCATE django_session'",
        # https://guides.rubyonrails.org/command_line.html#bin-rails-dbconsole
        "rails dbconsole -p <<< 'DROP TABLE users;'",
        "echo 'drop database app_production;' | bin/rails db -p",
    ],
)
def test_destructive_sql_in_a_framework_shell_is_stopped(command: str) -> None:
    assert _verdict(command) in ("ASK_USER", "BLOCK")


@pytest.mark.parametrize(
    "command",
    [
        "echo 'SELECT count(*) FROM auth_user;' | python manage.py dbshell",
        "python manage.py dbshell -- -c 'SELECT 1'",
        "rails dbconsole -p <<< 'SELECT 1;'",
    ],
)
def test_a_query_stays_allowed(command: str) -> None:
    assert _verdict(command) == "ALLOW"
