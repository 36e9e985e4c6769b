"""Which database a command reaches, graded from what the command says: the scope.

A reset of a database named ``app_test`` costs a test run; the same reset of
``app`` or of the production URL costs the user's data.  The command says
which in its words: a connection URL (``postgres://.../app_test``), a flag
(``--env=testing``, ``-d app_dev``, ``--linked``), an assignment before it
(``RAILS_ENV=test``, ``DATABASE_URL=...``), the name of the variable it reads
(``$TEST_DATABASE_URL``), or the database a ``DROP DATABASE`` names.

The words that mark each scope and the grade each gets are data: the
``scope`` section of ``packs/databases.json``.  Production wins over test,
test over development; a command that names none is ``unknown`` and graded
like production (issue 30).
"""

from __future__ import annotations

from agentreflex.gate.model import Cmd

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

_ORDER = ("low", "medium", "high")


def _scope_data() -> dict[str, Any]:
    from agentreflex.gate import packs

    scope: dict[str, Any] = packs.family("databases")["scope"]
    return scope


def _tokens(text: str) -> set[str]:
    out: set[str] = set()
    word = []
    for ch in text.lower():
        if ch.isalnum() or ch == ".":
            word.append(ch)
        else:
            if word:
                out.add("".join(word))
            word = []
    if word:
        out.add("".join(word))
    for tok in list(out):  # app_test, myapp-dev, test1: the parts and the digits dropped
        out.update(p for p in tok.split(".") if p)
        out.add(tok.rstrip("0123456789"))
    return out


def scope_of(cmd: Cmd, extra: tuple[str, ...] = ()) -> str:
    """``prod``, ``test``, ``dev`` or ``unknown`` for the database ``cmd`` reaches."""
    from agentreflex.gate.rules.programs import DB_CLIS

    data = _scope_data()
    # a client's first word may be the database (sqlite3 test.db, psql app_test -c ...);
    # other tools' first word is their subcommand
    texts = [*cmd.args[0 if cmd.name in DB_CLIS else 1 :], *extra, *cmd.vars_used]
    texts.extend(f"{k}={v}" for k, v in cmd.assigns.items())
    words: set[str] = set()
    for t in texts:
        words |= _tokens(t)
        if "_" in t or "-" in t:
            words |= {p for p in t.lower().replace("-", "_").split("_") if p}
    for name in ("prod", "test", "dev"):
        if words & set(data[name]):
            return name
    if "--linked" in cmd.args:
        return "prod"
    return "unknown"


def grade(severity: str, cmd: Cmd, extra: tuple[str, ...] = ()) -> tuple[str, str]:
    """``severity`` lowered to what the scope allows, and the scope."""
    scope = scope_of(cmd, extra)
    ceiling = str(_scope_data()["grades"].get(scope, "high"))
    if severity in _ORDER and ceiling in _ORDER:
        severity = _ORDER[min(_ORDER.index(severity), _ORDER.index(ceiling))]
    return severity, scope
