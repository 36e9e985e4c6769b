"""SQL text sent to a database client, read with a real SQL parser (sqlglot, MIT).

``psql -c``, ``-f FILE``, ``< FILE``, heredocs, ``mysql -e``, ``sqlite3 DB
"..."``: the statements are parsed in the client's dialect and each is
judged by what it does, not by the words it contains: ``DROP TABLE``,
``DROP DATABASE``, ``ALTER TABLE ... DROP COLUMN``, ``TRUNCATE``, ``DELETE``
or ``UPDATE`` without a ``WHERE``, a login's password replaced (``ALTER USER
... PASSWORD``), and the statements a ``DO`` block runs (``EXECUTE 'DROP ...'``).  A comment or a string that says ``DROP TABLE`` is no finding, and
``DELETE FROM t WHERE ...`` is ordinary work.

sqlglot costs about 250 ms to import on this machine, so it is imported only
when the text holds one of the destructive keywords (``needs_parse``): a
``psql -c 'SELECT 1'`` never loads it, and no command without a database
client reaches this module (``tests/test_hot_path_imports.py``).  Text sqlglot
cannot parse (psql meta-commands, a dialect's odd corner) is judged by the
keyword scan of :mod:`rules.infra` instead.
"""

from __future__ import annotations

import re

from agentreflex.core.util.lazyre import LazyPattern
from agentreflex.core.util.record import record

# client program -> sqlglot dialect
DIALECTS = {
    "psql": "postgres",
    "cockroach": "postgres",
    "mysql": "mysql",
    "mariadb": "mysql",
    "mycli": "mysql",
    "litecli": "sqlite",
    "sqlite3": "sqlite",
    "duckdb": "duckdb",
    "clickhouse-client": "clickhouse",
    "clickhouse": "clickhouse",
    "snowsql": "snowflake",
    "bq": "bigquery",
}
_KEYWORDS = ("drop", "truncate", "delete", "update", "password", "identified", "execute")
# DROP kinds that lose data (a view or an index is rebuilt from its definition)
_DATA_KINDS = frozenset({"TABLE", "DATABASE", "SCHEMA", "USER", "ROLE", "OWNED"})


@record(frozen=True)
class Statement:
    """One destructive statement: ``drop`` (a table, database, ..., or a column),
    ``truncate``, ``delete-all``, ``update-all`` or ``password`` (a login's password
    replaced: whoever logs in with the old one is locked out)."""

    kind: str
    what: str  # DATABASE/TABLE/... for a drop, else ""
    target: str  # the object's name, as written


def needs_parse(text: str) -> bool:
    """Whether ``text`` holds a keyword of a destructive statement (cheap, no import)."""
    low = text.lower()
    return any(k in low for k in _KEYWORDS)


def destructive(text: str, dialect: str) -> list[Statement] | None:
    """The destructive statements of ``text``; ``None`` when sqlglot cannot parse it."""
    import logging

    import sqlglot
    from sqlglot import exp

    # sqlglot logs a warning for each statement it keeps as raw text (ALTER USER, DO):
    # the hook's stderr is the host's, and the statement is judged here anyway
    logging.getLogger("sqlglot").setLevel(logging.ERROR)
    lines = [ln for ln in text.splitlines() if not ln.lstrip().startswith("\\")]
    try:
        parsed = sqlglot.parse("\n".join(lines), read=dialect)
    except Exception:  # sqlglot raises several error types; any means "not parsed"
        return None
    out: list[Statement] = []
    for stmt in parsed:
        if stmt is None:
            continue
        if isinstance(stmt, exp.Drop):
            kind = str(stmt.args.get("kind") or "").upper()
            if kind in _DATA_KINDS:
                out.append(Statement("drop", kind, _name(stmt)))
        elif isinstance(stmt, exp.Alter):
            # ALTER TABLE t DROP COLUMN c: every value the column holds is gone
            for action in stmt.args.get("actions") or []:
                if (
                    isinstance(action, exp.Drop)
                    and str(action.args.get("kind")).upper() == "COLUMN"
                ):
                    columns = [c.sql() for c in action.args.get("tables") or []]
                    target = f"{', '.join(columns)} of {_name(stmt)}"
                    out.append(Statement("drop", "COLUMN", target))
        elif isinstance(stmt, exp.TruncateTable):
            out.append(Statement("truncate", "TABLE", _name(stmt)))
        elif isinstance(stmt, exp.Command) and str(stmt.this).upper() in ("DROP", "TRUNCATE"):
            out.append(Statement(str(stmt.this).lower(), "", str(stmt.expression or "")))
        elif isinstance(stmt, exp.Command):
            found = _command(str(stmt.this).upper(), stmt.expression, dialect)
            if found is None:
                return None
            out.extend(found)
        else:
            # also inside a statement (WITH x AS (DELETE FROM t RETURNING *) SELECT ...);
            # a WHERE that holds for every row (1=1, TRUE) narrows nothing
            for node in stmt.find_all(exp.Delete, exp.Update):
                where = node.args.get("where")
                if where is None or _always_true(where.this):
                    kind = "delete-all" if isinstance(node, exp.Delete) else "update-all"
                    out.append(Statement(kind, "TABLE", _name(node)))
    return out


def _command(verb: str, rest: object, dialect: str) -> list[Statement] | None:
    """What a statement sqlglot keeps as raw text does: ``ALTER USER|ROLE x PASSWORD``
    (MySQL's ``IDENTIFIED BY``, ``SET PASSWORD FOR x``) replaces a login's password;
    ``DO $$ ... $$`` runs its PL/pgSQL body, whose ``EXECUTE 'DROP DATABASE d'`` is
    that statement run.  ``None``: a body not parsed (the caller scans its keywords)."""
    from sqlglot import exp

    text = (rest.name if isinstance(rest, exp.Literal) else str(rest or "")).strip()
    if verb in ("ALTER", "SET"):
        m = _PASSWORD.match(text)
        if m is None:
            return []
        return [Statement("password", "USER", (m.group(1) or m.group(2)).strip("'\"`"))]
    if verb != "DO":
        return []
    body = re.sub(r"^\s*(\$\w*\$)([\s\S]*)\1\s*$", r"\2", text)
    run = re.findall(r"\bEXECUTE\s+'((?:[^']|'')*)'", body, re.IGNORECASE)
    body = re.sub(r"\bEXECUTE\s+'(?:[^']|'')*'", ";", body, flags=re.IGNORECASE)
    body = re.sub(r"\b(?:BEGIN|END|DECLARE)\b", ";", body, flags=re.IGNORECASE)
    return destructive("\n".join([body, *(s.replace("''", "'") + ";" for s in run)]), dialect)


_PASSWORD = LazyPattern(
    r"(?:(?:USER|ROLE)\s+(?:IF\s+EXISTS\s+)?(\S+)[\s\S]*?\b(?:PASSWORD|IDENTIFIED\s+(?:BY|WITH))\b|"
    r"PASSWORD\s+FOR\s+(\S+))",
    re.IGNORECASE,
)


def _always_true(cond: object) -> bool:
    """A condition every row meets whatever it holds: ``TRUE``, a non-zero number,
    two equal literals (``1=1``, ``'a'='a'``), and those in brackets, ORs and ANDs."""
    from sqlglot import exp

    if isinstance(cond, exp.Paren):
        return _always_true(cond.this)
    if isinstance(cond, exp.Boolean):
        return bool(cond.this)
    if isinstance(cond, exp.Literal):
        return not cond.is_string and cond.this not in ("0", "0.0")
    if isinstance(cond, exp.EQ):
        left, right = cond.this, cond.expression
        return (
            isinstance(left, exp.Literal)
            and isinstance(right, exp.Literal)
            and left.sql() == right.sql()
        )
    if isinstance(cond, exp.Or):
        return _always_true(cond.this) or _always_true(cond.expression)
    if isinstance(cond, exp.And):
        return _always_true(cond.this) and _always_true(cond.expression)
    return False


def _name(stmt: object) -> str:
    from sqlglot import exp

    assert isinstance(stmt, exp.Expression)
    table = stmt.find(exp.Table)
    if table is not None:
        return table.sql()
    ident = stmt.find(exp.Identifier)
    return ident.sql() if ident is not None else ""
