"""Rules for things that live elsewhere: databases, clouds, clusters, registries.

Database statements are read from where the CLI really takes them (``-c``,
``-e``, ``--eval``, a positional query, a heredoc or a pipe), never from
text that merely mentions them.
"""

from __future__ import annotations

import re

from agentreflex.core.util.lazyre import LazyPattern
from agentreflex.gate.model import (
    DATA,
    DESTRUCTIVE,
    P_BLOCK,
    P_WARN,
    UNKNOWN,
    Cmd,
    Hit,
    has_marker,
    positional,
)
from agentreflex.gate.rules.http import http_method
from agentreflex.gate.rules.programs import DB_CLIS, SOCKET_CLIENTS, SQL_SUBCOMMANDS
from agentreflex.gate.shell import pipes
from agentreflex.gate.shell.inert import HOSTING_CLIS
from agentreflex.gate.shell.paths import Place, Where, classify, resolve

TYPE_CHECKING = False
if TYPE_CHECKING:
    from agentreflex.gate.rules.sql import Statement

_SQL_DESTROY = LazyPattern(
    r"(?:\bDROP\s+(?:DATABASE|SCHEMA|TABLE|KEYSPACE|COLLECTION|USER|ROLE|OWNED)|\bTRUNCATE\b|"
    r"\bFLUSHALL|\bFLUSHDB|dropDatabase\s*\(|\.drop\s*\(\s*\)|deleteMany\s*\(\s*\{\s*\}\s*\)|"
    r"\.remove\s*\(\s*\{\s*\}\s*\)|dropCollection|"
    r"(?:runCommand|adminCommand)\s*\(\s*\{\s*[\"']?(?:dropDatabase|drop)[\"']?\s*:|"
    r"deleteMany\s*:\s*\{\s*filter\s*:\s*\{\s*\})",
    re.IGNORECASE,
)
_DELETE = LazyPattern(r"\bDELETE\s+FROM\s+[\w.\"`\[\]]+\s*(;|$|\))", re.IGNORECASE | re.MULTILINE)
_UPDATE = LazyPattern(
    r"\bUPDATE\s+[\w.\"`]+\s+SET\b(?![^;]*\bWHERE\b)[^;]*(;|$)|"
    r"\.updateMany\s*\(\s*\{\s*\}|updateMany\s*:\s*\{\s*filter\s*:\s*\{\s*\}",  # MongoDB's
    re.IGNORECASE,
)


def database(cmd: Cmd, where: Where, written: dict[str, str]) -> list[Hit]:
    """Statements a database client is given that drop or empty data, graded by scope.

    SQL clients' text is parsed (:mod:`rules.sql`); other stores (mongosh,
    redis-cli, cqlsh) and SQL the parser rejects are scanned for the keywords.
    The database named by the command (:mod:`rules.dbscope`) grades the hit:
    a test database warns, a development one asks, production or unknown blocks.
    """
    name, args = cmd.name, cmd.args
    if name in ("valkey-cli", "keydb-cli"):
        name = "redis-cli"
    if name in ("dropdb", "dropuser"):
        return [_db(cmd, "drop", "the database and every table in it", ())]
    if name == "mysqladmin" and any(a in ("drop", "flush-tables") for a in args):
        return [_db(cmd, "drop", "the database and every table in it", ())]
    if name == "pg_restore":
        return _pg_restore_clean(cmd)
    flags = DB_CLIS.get(name)
    if flags is None:
        return _sql_subcommand(cmd, where, written)
    texts = _statements_given(cmd, where, written, flags)
    if name == "sqlite3":
        words = [a for a in args if not a.startswith("-")]
        if words:
            place, _ = classify(words[0], where, cmd.cwd)
            if place is Place.TEMP or words[0] == ":memory:":
                return []
    text = "\n".join(texts)
    if name == "redis-cli":
        hit = _redis_keys(cmd, args) or _redis_admin(cmd, text)
        if hit is not None:
            return [hit]
    from agentreflex.gate.rules import sql

    if name in sql.DIALECTS and sql.needs_parse(text):
        found = sql.destructive(text, sql.DIALECTS[name])
        if found is not None:
            return _graded(cmd, found)
    if _SQL_DESTROY.search(text) or _DELETE.search(text):
        lost = {
            "redis-cli": "every key of the Redis database (FLUSHALL/FLUSHDB)",
            "mongo": "the collections or database the script drops",
            "mongosh": "the collections or database the script drops",
        }.get(name, "the data the statement drops or empties")
        return [_db(cmd, "drop", lost, ())]
    if _UPDATE.search(text):
        return [_update_all(cmd, ())]
    return []


# Redis's key deletes, and a Lua script that deletes what KEYS or SCAN found.
_REDIS_DELETES = frozenset({"del", "unlink"})
_REDIS_LUA_SWEEP = LazyPattern(
    r"redis\.call\(\s*['\"](?:keys|scan)['\"][\s\S]*redis\.call\(\s*['\"](?:del|unlink)['\"]|"
    r"redis\.call\(\s*['\"](?:del|unlink)['\"][\s\S]*redis\.call\(\s*['\"](?:keys|scan)['\"]",
    re.IGNORECASE,
)


def _redis_keys(cmd: Cmd, args: list[str]) -> Hit | None:
    """``... | xargs redis-cli DEL``: keys chosen at run time, a KEYS or SCAN of a
    pattern, ``'*'`` the whole keyspace; ``EVAL`` of a script that deletes what KEYS
    found is the same sweep."""
    words = [a for a in args if not a.startswith("-")]
    for k, w in enumerate(words):
        if w.lower() in _REDIS_DELETES and any(DATA in x for x in words[k + 1 :]):
            return _db(cmd, "delete-all", "every key the list fed to it names", ())
        sweep = k + 1 < len(words) and _REDIS_LUA_SWEEP.search(words[k + 1])
        if w.lower() in ("eval", "eval_ro") and sweep:
            return _db(cmd, "delete-all", "every key the script's KEYS or SCAN matches", ())
    return None


# Redis's administrative commands that lose or overwrite more than keys: (spelling, why)
_REDIS_ADMIN = (
    (
        LazyPattern(r"\bCONFIG\s+SET\s+(?:dir|dbfilename)\s+\S+", re.IGNORECASE),
        "moves where Redis writes its snapshot: the next SAVE overwrites that file with the "
        "dataset (the known way to plant SSH keys or cron jobs through Redis), and a restart "
        "no longer finds the old one. Read it with CONFIG GET, or ask the user to change "
        "redis.conf.",
    ),
    (
        LazyPattern(r"\b(?:REPLICAOF|SLAVEOF)\s+(?!NO\s+ONE\b)\S+\s+\d+", re.IGNORECASE),
        "makes this server a replica of another: it drops its whole dataset and loads that "
        "server's in its place. Save a snapshot first (BGSAVE) and ask the user; REPLICAOF "
        "NO ONE only stops replicating.",
    ),
    (
        LazyPattern(r"\bMODULE\s+LOAD(?:EX)?\s+\S+", re.IGNORECASE),
        "loads a native library into the Redis server, which runs its code with the "
        "server's rights. Ask the user to add it to redis.conf (loadmodule).",
    ),
)


def _redis_admin(cmd: Cmd, text: str) -> Hit | None:
    """``CONFIG SET dir|dbfilename``, ``REPLICAOF host port``, ``MODULE LOAD``: typed to
    redis-cli or straight to the port, each loses or overwrites more than a key."""
    for pattern, why in _REDIS_ADMIN:
        m = pattern.search(text)
        if m is not None:
            return Hit.destructive("GATE-DB-DESTROY", P_BLOCK, cmd, f"{m.group(0)} {why}")
    return None


# What a line protocol typed to a socket deletes: Redis (inline or RESP, the same words)
# and memcached.  (store, what is lost)
_WIRE_DESTROY = (
    (
        LazyPattern(r"\bFLUSH(?:ALL|DB)\b", re.IGNORECASE),
        "redis-cli",
        "every key of the Redis database",
    ),
    (
        LazyPattern(r"^\s*flush_all\b", re.IGNORECASE | re.MULTILINE),
        "memcached",
        "every item of the memcached server",
    ),
)


_SOCKETS = ("/dev/tcp/", "/dev/udp/")


def socket_text(cmd: Cmd, where: Where) -> list[Hit]:
    """A store's commands typed straight to its port (``printf 'FLUSHALL\\r\\n' | nc
    redis 6379``, ``echo flush_all > /dev/tcp/cache/11211``): judged as the store's
    own client would run them."""
    texts = [cmd.stdin_text or "", pipes.output_text(cmd.stdin_from, {}) or ""]
    to_socket = any(op.startswith(">") and t.startswith(_SOCKETS) for op, t in cmd.redirects)
    if to_socket:  # echo FLUSHALL > /dev/tcp/host/6379: what the command prints goes there
        texts.append(pipes.output_text(cmd, {}) or "")
    elif cmd.name not in SOCKET_CLIENTS:
        return []
    for op, target in cmd.redirects:
        if op == "<":
            texts.append(_sql_file(target, cmd, where, {}))
    text = "\n".join(t for t in texts if t)
    for pattern, store, lost in _WIRE_DESTROY:
        if pattern.search(text):
            # the scope: which server (/dev/tcp/HOST/PORT without its /dev, not a "dev" word)
            hosts = (*cmd.args, *(t[9:] for _, t in cmd.redirects if t.startswith(_SOCKETS)))
            return [_db(cmd, "drop", f"{lost}, typed to its port", hosts, client=store)]
    moved = _redis_admin(cmd, text)
    return [moved] if moved is not None else []


# pg_restore's options that take a value: a short one glued to a cluster ends it (-Fc)
_PG_RESTORE_VALUED = frozenset("dfFhIjLnNpPSTtUW")


def _pg_restore_clean(cmd: Cmd) -> list[Hit]:
    """``pg_restore --clean -d DB DUMP`` drops every object of the dump in DB before
    it recreates them: rows written since the dump was taken are gone.  Without
    ``-d`` it only prints the script."""
    clean = target = False
    for a in cmd.args:
        if a in ("--clean", "-c"):
            clean = True
        elif a in ("-d", "--dbname") or a.startswith("--dbname="):
            target = True
        elif a[:1] == "-" and a[1:2] != "-":
            for ch in a[1:]:
                if ch in _PG_RESTORE_VALUED:
                    target = target or ch == "d"
                    break
                clean = clean or ch == "c"
    if not (clean and target):
        return []
    lost = "every table of the dump in that database, and the rows written since the dump"
    return [_db(cmd, "drop", lost, ())]


def _sql_subcommand(cmd: Cmd, where: Where, written: dict[str, str]) -> list[Hit]:
    """``prisma db execute``, ``wrangler d1 execute --command``, ``turso db shell DB "SQL"``:
    SQL handed to another tool, judged as Postgres-flavoured SQL (sqlglot reads the common
    statements of every dialect alike)."""
    words = positional(cmd.args, ())
    for key, (text_opts, file_opts) in SQL_SUBCOMMANDS.items():
        if cmd.name != key[0] or tuple(words[: len(key) - 1]) != key[1:]:
            continue
        texts = [v for o in text_opts for v in _values(cmd.args, o)]
        texts += [
            _sql_file(v, cmd, where, written) for o in file_opts for v in _values(cmd.args, o)
        ]
        if key[0] == "turso":
            texts.append(" ".join(words[3:]))
        if cmd.stdin_text is not None:
            texts.append(cmd.stdin_text)
        piped = pipes.output_text(cmd.stdin_from, written)
        if piped:
            texts.append(piped)
        text = "\n".join(t for t in texts if t)
        from agentreflex.gate.rules import sql

        found = sql.destructive(text, "postgres") if sql.needs_parse(text) else []
        if found is None:
            found = []
            if _SQL_DESTROY.search(text) or _DELETE.search(text):
                return [_db(cmd, "drop", "the data the statement drops or empties", ())]
        return _graded(cmd, found)
    return []


def _values(args: list[str], option: str) -> list[str]:
    out = []
    for i, a in enumerate(args):
        if a == option and i + 1 < len(args):
            out.append(args[i + 1])
        elif a.startswith(option + "="):
            out.append(a.split("=", 1)[1])
    return out


def client_text(cmd: Cmd, where: Where, written: dict[str, str]) -> str:
    """Everything a database client reads as its input (statements and its own
    meta-commands), from wherever it takes it; ``""`` for other programs."""
    flags = DB_CLIS.get(cmd.name)
    return "" if flags is None else "\n".join(_statements_given(cmd, where, written, flags))


def _statements_given(
    cmd: Cmd, where: Where, written: dict[str, str], flags: tuple[str, ...]
) -> list[str]:
    """The statement text a client runs: query options, positional SQL, files, stdin."""
    args, texts = cmd.args, []
    short = {f for f in flags if len(f) == 2 and f[0] == "-"}
    for i, a in enumerate(args):
        if a in flags and i + 1 < len(args):
            texts.append(args[i + 1])
        elif any(a.startswith(f + "=") for f in flags if f.startswith("--")):
            texts.append(a.split("=", 1)[1])
        elif a[:1] == "-" and a[1:2] != "-" and len(a) > 2:
            if a[1:].isalpha() and "-" + a[-1] in short and i + 1 < len(args):
                texts.append(args[i + 1])  # a cluster: psql -tAc SQL, mysql -Ne SQL
            elif a[:2] in short and not a[1:].isalpha():
                texts.append(a[2:])  # attached: psql -c'DROP TABLE t', mysql -e"..."
    if cmd.name in ("sqlite3", "duckdb", "redis-cli", "valkey-cli", "keydb-cli", "bq"):
        words = [a for a in args if not a.startswith("-")]
        texts.append(" ".join(words[1:] if cmd.name in ("sqlite3", "duckdb") else words))
    if cmd.name in ("sqlcmd", "sqlplus"):  # sqlcmd -i FILE, sqlplus @FILE
        for i, a in enumerate(args):
            if cmd.name == "sqlcmd" and a == "-i" and i + 1 < len(args):
                texts.extend(_sql_file(f, cmd, where, written) for f in args[i + 1].split(","))
            elif cmd.name == "sqlplus" and a.startswith("@") and len(a) > 1:
                texts.append(_sql_file(a[1:], cmd, where, written))
    if cmd.name in ("psql", "cockroach"):
        for i, a in enumerate(args):
            if a in ("-f", "--file") and i + 1 < len(args):
                texts.append(_sql_file(args[i + 1], cmd, where, written))
            elif a.startswith("--file="):
                texts.append(_sql_file(a.split("=", 1)[1], cmd, where, written))
    if cmd.name in ("mongosh", "mongo"):  # --file F, -f F, and script.js operands run
        for i, a in enumerate(args):
            if a in ("-f", "--file") and i + 1 < len(args):
                texts.append(_sql_file(args[i + 1], cmd, where, written))
            elif a.startswith("--file="):
                texts.append(_sql_file(a.split("=", 1)[1], cmd, where, written))
            elif a.endswith(".js") and not a.startswith("-"):
                texts.append(_sql_file(a, cmd, where, written))
    if cmd.stdin_text is not None:
        texts.append(cmd.stdin_text)
    piped = pipes.output_text(cmd.stdin_from, written)
    if piped:
        texts.append(piped)
    elif pipes.catted(cmd.stdin_from, where):  # cat drop.sql | psql
        texts.append(_sql_file(pipes.catted(cmd.stdin_from, where), cmd, where, written))
    for op, target in cmd.redirects:
        if op == "<":
            texts.append(_sql_file(target, cmd, where, written))
    include = _INCLUDE.get(cmd.name)
    if include is not None:  # sqlite3's .read FILE, psql's \i FILE, mysql's source FILE
        for text in list(texts):
            for m in include.finditer(text):
                texts.append(_sql_file(m.group(1).strip("'\""), cmd, where, written))
    return texts


# A client's own command that runs the statements of a file, one a line.
_INCLUDE = {
    "sqlite3": LazyPattern(r"^\s*\.read\s+(\S+)\s*$", re.MULTILINE),
    "psql": LazyPattern(r"^\s*\\(?:i|ir|include|include_relative)\s+(\S+)", re.MULTILINE),
    "mysql": LazyPattern(r"^\s*(?:source|\\\.)\s+(\S+?);?\s*$", re.IGNORECASE | re.MULTILINE),
}
_INCLUDE["duckdb"] = _INCLUDE["sqlite3"]
_INCLUDE["cockroach"] = _INCLUDE["psql"]
_INCLUDE["mariadb"] = _INCLUDE["mysql"]


_SQL_FILE_MAX = 64 * 1024


def _sql_file(path: str, cmd: Cmd, where: Where, written: dict[str, str]) -> str:
    """A SQL file's text: written earlier in the same command, else read from disk
    (at most 64 kB; a file that is missing or unreadable gives nothing)."""
    if path in written:
        return written[path]
    if not path or path == "-" or has_marker(path):
        return ""
    full = resolve(path, where, cmd.cwd)
    if full in written:  # written earlier in the same command (keys are resolved paths)
        return written[full]
    if has_marker(full) or "\0" in full:  # a folder only known at run time (a container's)
        return ""
    from agentreflex.gate.code import scripts  # one reader for every file a command runs

    text = scripts.read(full, _SQL_FILE_MAX)
    return "" if text is None or text == scripts.UNREADABLE else text


def _graded(cmd: Cmd, found: list[Statement]) -> list[Hit]:
    drops = [s for s in found if s.kind not in ("update-all", "password")]
    logins = [s.target for s in found if s.kind == "password"]
    if logins and not drops:
        # nothing stored is lost and setting a fresh server's password is everyday set-up,
        # so it warns; on a database the command names as production it blocks
        from agentreflex.gate.rules.dbscope import scope_of

        scope = scope_of(cmd)
        if scope in ("test", "dev"):  # a test or development login: set-up, no one locked out
            return []
        severity = "high" if scope == "prod" else "low"
        return [
            Hit(
                "GATE-DB-DESTROY",
                DESTRUCTIVE,
                P_BLOCK if severity == "high" else P_WARN,
                cmd.text,
                f"This replaces the password of the database login {logins[0]} ({scope} "
                "database): every application, job and person that signs in with the old "
                "one is locked out, and the old one cannot be read back. Ask the user to "
                "rotate it, or create a new login for what you need.",
                severity=severity,
            )
        ]
    if drops:
        first = drops[0]
        named = tuple(s.target for s in drops if s.what in ("DATABASE", "SCHEMA"))
        lost = {
            "drop": f"the {first.what.lower() or 'object'} {first.target} and all its rows"
            if first.what != "COLUMN"
            else f"the column {first.target} and every value in it",
            "truncate": f"every row of {first.target}",
            "delete-all": f"every row of {first.target} (DELETE without WHERE)",
        }.get(first.kind, "data")
        return [_db(cmd, first.kind, lost, named)]
    return [_update_all(cmd, ())] if found else []


def orm_every_row(cmd: Cmd, call: str) -> Hit:
    """Code that calls an ORM on a whole model (``User.delete_all``, ``Order.objects.all()
    .delete()``): every row of its table, graded by the database the command names as the
    ORM tools' own resets are (``RAILS_ENV=test`` warns, production or unknown blocks)."""
    seed = any(_SEED_FILE.search(a) for a in cmd.args if not a.startswith("-"))
    lost = f"every row of the table behind {call}"
    if seed:  # the seed's own fixtures, refilled by it: warned, unless production is named
        return _db(cmd, "delete-all", f"{lost}, to refill it from the seed", ("fixtures",), "orm")
    return _db(cmd, "delete-all", lost, (), client="orm")


# A seed script (prisma/seed.ts, db/seeds.rb, seeders/users.js, DatabaseSeeder.php): it
# exists to fill a development database, and emptying its tables first is its ordinary
# work (Prisma runs it from ``migrate dev|reset``, development-only commands): the rows
# it deletes are the fixtures it writes back.  Its deletes grade as fixtures' (a warning)
# unless the command names production.
_SEED_FILE = LazyPattern(
    r"(?:^|/)(?:seeds?|seeders?|seeding)/|"
    r"(?:^|/)(?:[\w-]*[_-])?(?:seeds?|seeders?|seeding)(?:[_.-][\w.-]*)?$|"
    r"[a-z]Seeder\.\w+$",
    re.IGNORECASE,
)


def _db(cmd: Cmd, kind: str, lost: str, named: tuple[str, ...], client: str = "") -> Hit:
    from agentreflex.gate.rules.dbscope import grade

    severity, scope = grade("high", cmd, named)
    return Hit(
        "GATE-DB-DESTROY",
        DESTRUCTIVE,
        P_BLOCK if severity == "high" else P_WARN,
        cmd.text,
        f"This deletes {lost} ({scope} database). "
        f"{_BACKUP.get(client or cmd.name, _BACKUP['sql'])}",
        severity=severity,
    )


_BACKUP = {
    "psql": "Take a backup first (pg_dump -t TABLE), add a WHERE clause to delete only the "
    "rows you mean, or ask the user.",
    "mysql": "Take a backup first (mysqldump DB TABLE), add a WHERE clause to delete only "
    "the rows you mean, or ask the user.",
    "sqlite3": "Copy the database file first (sqlite3 DB .dump > backup.sql), add a WHERE "
    "clause, or ask the user.",
    "redis-cli": "Save a snapshot first (redis-cli BGSAVE), delete specific keys "
    "(UNLINK key), or ask the user.",
    "mongosh": "Dump it first (mongodump --db DB), delete specific documents with a filter, "
    "or ask the user.",
    "dropdb": "Dump it first (pg_dump DB > backup.sql), or ask the user.",
}
_BACKUP["sql"] = (
    "Take a backup first (copy the table: CREATE TABLE t_backup AS SELECT * FROM t), add "
    "a WHERE clause to delete only the rows you mean, or ask the user."
)
_BACKUP["usql"] = _BACKUP["cockroach"] = _BACKUP["supabase"] = _BACKUP["psql"]
_BACKUP["pg_restore"] = (
    "Restore into a new database first (createdb app_restore; pg_restore -d app_restore "
    "DUMP) and compare, or ask the user."
)
_BACKUP["sqlcmd"] = _BACKUP["mssql-cli"] = (
    "Back it up first (BACKUP DATABASE ... TO DISK), add a WHERE clause to delete only "
    "the rows you mean, or ask the user."
)
_BACKUP["orm"] = (
    "Name the rows you mean (User.where(...).delete_all, Model.objects.filter(...).delete()), "
    "dump the table first, or ask the user."
)
_BACKUP["mariadb"] = _BACKUP["mysql"]
_BACKUP["mongo"] = _BACKUP["mongosh"]
_BACKUP["valkey-cli"] = _BACKUP["keydb-cli"] = _BACKUP["redis-cli"]
_BACKUP["memcached"] = (
    "A cache server keeps no copy: delete the keys you mean (delete KEY), or ask the user."
)


def _update_all(cmd: Cmd, named: tuple[str, ...]) -> Hit:
    from agentreflex.gate.rules.dbscope import grade

    severity, scope = grade("medium", cmd, named)
    return Hit(
        "GATE-DB-UPDATE-ALL",
        DESTRUCTIVE,
        P_WARN,
        cmd.text,
        f"This UPDATE has no WHERE clause and overwrites a column in every row ({scope} "
        "database). Add a WHERE clause, or run it in a transaction (BEGIN; ...; check; COMMIT)."
        if cmd.name not in ("mongosh", "mongo")
        else f"This updateMany has an empty filter and overwrites a field in every document "
        f"({scope} database). Give it a filter that selects the documents you mean, or dump "
        "the collection first (mongodump --collection NAME).",
        severity=severity,
    )


def cloud(cmd: Cmd, where: Where) -> list[Hit]:
    """Destroying cloud and cluster resources (dry runs and help never get here)."""
    name, args = cmd.name, cmd.args
    words = positional(args, _VALUED_GLOBALS)
    msg = "This destroys cloud or cluster resources. Ask the user to run it."
    if name in ("terraform", "tofu", "terragrunt", "pulumi", "cdk", "cdktf"):
        # terragrunt runs terraform over many modules: run-all X, run --all X, stack run X
        if name == "terragrunt":
            while words[:1] in (["run-all"], ["run"]) or words[:2] == ["stack", "run"]:
                words = words[2:] if words[0] == "stack" else words[1:]
            if words[:1] and words[0].endswith("-all"):
                words = [words[0][: -len("-all")], *words[1:]]
        # a -target destroy that terraform itself confirms: graded in packs/cloud.json
        scoped = any(a.startswith(("-target", "--target")) for a in args) and not any(
            a.startswith(("-auto-approve", "--auto-approve", "--yes", "-y")) for a in args
        )
        if (
            (words[:1] == ["destroy"] and not scoped)
            or (words[:1] == ["apply"] and "-destroy" in args)
            or (words[:2] in (["workspace", "delete"], ["stack", "rm"]))
        ):
            return [Hit.destructive("GATE-CLOUD-DESTROY", P_BLOCK, cmd, _STACK)]
        if words[:2] == ["state", "rm"]:
            return [Hit.destructive("GATE-CLOUD-DESTROY", P_BLOCK, cmd, _FORGET)]
        return []
    if name in ("kubectl", "oc", "k"):  # kubectl delete, by its scope: packs/cloud.json
        if words[:1] == ["drain"]:
            return [
                Hit.destructive(
                    "GATE-K8S-DELETE", P_WARN, cmd, "kubectl drain evicts every pod on a node."
                )
            ]
        return []
    if name == "helm":
        if words[:1] in (["uninstall"], ["delete"], ["del"], ["un"]):
            return [Hit.destructive("GATE-HELM-UNINSTALL", P_BLOCK, cmd, _HELM)]
        return []
    if name == "aws":
        if words[:2] in (["s3", "rb"],) or (words[:2] == ["s3", "rm"] and "--recursive" in args):
            return [Hit.destructive("GATE-CLOUD-DELETE", P_BLOCK, cmd, _S3)]
        # one object (aws s3 rm without --recursive): graded in packs/cloud.json
        if len(words) >= 2 and (
            re.match(
                r"(delete|terminate|remove|deregister|purge|destroy|"
                r"disable|revoke|detach|reset)-",
                words[1],
            )
            or (
                _AWS_DELETE_INSIDE.search(words[1])
                and not re.match(r"(get|list|describe|cancel|wait)-", words[1])
            )
        ):
            return [Hit.destructive("GATE-CLOUD-DELETE", P_BLOCK, cmd, msg)]
        return []
    if name in ("gcloud", "az", *HOSTING_CLIS):
        destroy = {
            "delete",
            "destroy",
            "remove",
            "rm",
            "rb",
            "terminate",
            "apps:destroy",
            "purge",
            "sites:delete",
            "deprovision",
        }
        if (
            name == "gsutil"
            and words[:1] == ["rm"]
            and not any(a in ("-r", "-R", "-rf") for a in args)
        ):
            return [
                Hit.destructive("GATE-CLOUD-DELETE", P_WARN, cmd, "This deletes a cloud object.")
            ]
        # topic:verb commands (heroku addons:destroy, netlify sites:delete): the verb decides
        if any(w in destroy or w.rpartition(":")[2] in destroy for w in words):
            return [Hit.destructive("GATE-CLOUD-DELETE", P_BLOCK, cmd, msg)]
        return []
    return []


# The deleting word later in an operation's name: batch-delete-image,
# schedule-key-deletion (a KMS key, and every byte it encrypted), close-account
_AWS_DELETE_INSIDE = LazyPattern(
    r"-(?:delete|deletion|destroy|purge)(?:-|$)|^close-account$|^leave-organization$"
)

_STACK = (
    "This destroys every resource of the stack: its databases, buckets and servers with "
    "their data. `terraform plan -destroy` (pulumi preview --destroy) shows what would go; "
    "ask the user to run it."
)
# ``state rm`` destroys nothing that runs: the stack forgets it (rt71 found the reason
# above given for it, which sends the user looking for a teardown that never happened)
_FORGET = (
    "This makes the stack forget these resources: they keep running (and costing), nothing "
    "manages them any more, and the next apply may create them a second time. Pull a copy "
    "of the state first (terraform state pull > backup.tfstate); `terraform import` or "
    "`terraform state mv` is usually what is meant. Ask the user to run it."
)
_HELM = (
    "This uninstalls the release: its workloads, services and config go (volumes of its "
    "StatefulSets may follow). `helm get manifest RELEASE` shows them; ask the user."
)
_S3 = (
    "This deletes the bucket or every object under the prefix. `aws s3 ls --recursive` "
    "shows them, `--dryrun` rehearses it; keep versioning on, and ask the user."
)

_VALUED_GLOBALS = frozenset(
    {
        "-n",
        "--namespace",
        "--context",
        "--kubeconfig",
        "-c",
        "--cluster",
        "--profile",
        "--region",
        "--project",
        "-g",
        "--resource-group",
        "--subscription",
        "-chdir",
        "--chdir",
        "-s",
        "--server",
        "--user",
    }
)


def docker(cmd: Cmd, where: Where) -> list[Hit]:
    """Container commands that delete volumes, the place containers keep their data.

    ``compose down -v`` is the command behind many lost databases
    (owncloud/client#7358, twentyhq/twenty#3403); volumes are graded medium
    (the user decides) when named or limited to one project, high when every
    volume on the machine goes.
    """
    name, args = cmd.name, _after_globals(cmd.args)
    if name not in ("docker", "podman", "docker-compose", "nerdctl"):
        return []
    words = [a for a in args if not a.startswith("-")]
    flags = set(args)
    every = bool(flags & {"-a", "--all", "-af", "-fa"})
    filtered = any(a.startswith("--filter") for a in args)
    if words[:2] == ["system", "prune"] and (every or "--volumes" in flags):
        if filtered and "--volumes" not in flags:
            return []
        return [
            _volumes(
                cmd,
                "high",
                "every unused image and volume on the machine, database data included",
                "docker system prune --filter until=24h "
                "(keeps volumes), or remove specific objects",
            )
        ]
    if name == "podman" and words[:2] == ["system", "reset"]:
        return [
            _volumes(
                cmd,
                "high",
                "every container, image and volume podman stores",
                "podman system prune (keeps volumes)",
            )
        ]
    if words[:2] == ["volume", "prune"]:
        if every and not filtered:
            return [
                _volumes(
                    cmd,
                    "high",
                    "every unused volume on the machine, named ones included, with their data",
                    "docker volume rm NAME for the volumes you mean, after docker volume ls",
                )
            ]
        return [
            _volumes(
                cmd,
                "medium",
                "the unused anonymous volumes and their data",
                "docker volume ls -f dangling=true first",
            )
        ]
    if words[:2] in (["volume", "rm"], ["volume", "remove"]):
        return [
            _volumes(
                cmd,
                "medium",
                "the named volumes and the data in them",
                'back the volume up first: docker run --rm -v NAME:/v -v "$PWD":/b '
                "alpine tar czf /b/NAME.tgz -C /v .",
            )
        ]
    compose = (name == "docker-compose" and words[:1]) or (
        words[:1] == ["compose"] and _compose_verb(args)
    )
    volumes = any(
        a == "--volumes"
        or (a.startswith("--volumes=") and a != "--volumes=false")
        or (a[:1] == "-" and a[1:2] != "-" and a[1:].isalpha() and "v" in a[1:])
        for a in args
    )
    if (words[:1] == ["rm"] or words[:2] == ["container", "rm"]) and volumes and not compose:
        return [
            _volumes(
                cmd,
                "medium",
                "the containers' anonymous volumes and their data",
                "docker rm without -v removes the containers and keeps the volumes",
            )
        ]
    if compose and compose[0] in ("down", "rm") and volumes:
        return [
            _volumes(
                cmd,
                "medium",
                "the project's volumes: its database and uploads",
                "docker compose down (without -v) stops the project and keeps "
                "its volumes; docker compose stop only stops it",
            )
        ]
    return []


def _compose_verb(args: list[str]) -> list[str]:
    """The words after ``compose``, skipping compose's own options with values."""
    valued = {
        "-f",
        "--file",
        "-p",
        "--project-name",
        "--profile",
        "--env-file",
        "--project-directory",
        "--ansi",
        "--progress",
        "--parallel",
    }
    out: list[str] = []
    seen = False
    skip = False
    for a in args:
        if skip:
            skip = False
        elif a in valued:
            skip = True
        elif not a.startswith("-"):
            if seen:
                out.append(a)
            seen = seen or a == "compose"
    return out


def _after_globals(args: list[str]) -> list[str]:
    """``args`` from the subcommand on: ``-H HOST``, ``--context NAME`` and the like skipped."""
    from agentreflex.gate.shell.remote import DOCKER_GLOBAL_VALUED

    k = 0
    while k < len(args) and args[k].startswith("-"):
        k += 2 if args[k] in DOCKER_GLOBAL_VALUED else 1
    return args[k:]


def _volumes(cmd: Cmd, severity: str, lost: str, instead: str) -> Hit:
    return Hit(
        "GATE-DOCKER-PRUNE",
        DESTRUCTIVE,
        P_BLOCK if severity == "high" else P_WARN,
        cmd.text,
        f"This deletes {lost}; a deleted volume cannot be recovered. Instead: {instead}.",
        severity=severity,
    )


_RELEASES: dict[str, tuple[tuple[str, ...], ...]] = {
    # a dist-tag moves what every ``npm install NAME`` gets; a deprecation is shown to every
    # user installing it (https://docs.npmjs.com/cli/v10/commands/npm-dist-tag, rt100)
    "npm": (
        ("publish",),
        ("unpublish",),
        ("deprecate",),
        ("dist-tag", "add"),
        ("dist-tag", "rm"),
        ("dist-tags", "add"),
        ("dist-tags", "rm"),
    ),
    "yarn": (("publish",), ("npm", "publish"), ("npm", "tag", "add"), ("npm", "tag", "remove")),
    "pnpm": (("publish",),),
    "bun": (("publish",),),
    "cargo": (("publish",), ("yank",)),
    "twine": (("upload",),),
    "maturin": (("publish",), ("upload",)),  # https://www.maturin.rs/distribution.html
    "poetry": (("publish",),),
    "uv": (("publish",),),
    "flit": (("publish",),),
    "hatch": (("publish",),),
    "pdm": (("publish",),),
    "rye": (("publish",),),
    "gem": (("push",), ("yank",)),
    "lerna": (("publish",),),
    "changeset": (("publish",),),
    "dotnet": (("nuget", "push"), ("nuget", "delete")),
    "nuget": (("push",), ("delete",)),
    "vsce": (("publish",), ("unpublish",)),
    "ovsx": (("publish",),),
    "goreleaser": (("release",), ()),
    "semantic-release": ((),),
}


# Options that name where a package is published, and the registries meant for trying a
# release out: TestPyPI (its usual names in twine's, poetry's and hatch's settings) and a
# registry on this machine (Verdaccio's localhost:4873).
_REGISTRY_OPTIONS = frozenset(
    {"-r", "--repository", "--repo", "--repository-url", "--publish-url", "--index", "--registry"}
)
_TRIAL_NAMES = frozenset({"testpypi", "test-pypi", "test"})
_TRIAL_HOSTS = frozenset({"test.pypi.org", "localhost", "127.0.0.1", "[::1]", "0.0.0.0"})


def _to_trial_registry(cmd: Cmd) -> bool:
    """Whether a publish's every named target is a registry for trying a release out.
    Not when another target is named beside it (a second ``--registry``, twine's
    ``--repository-url`` which wins over ``-r``, a scope's ``--@acme:registry=``), a
    variable set in the line names one (``TWINE_REPOSITORY_URL=``), or a settings file
    given on the line says what a name means (``--config-file ./pypirc``)."""
    env = {**cmd.shell_vars, **cmd.assigns}
    if any(_TARGET_VARIABLES.match(n.upper()) for n in env) or any(
        a.partition("=")[0] in _TARGET_FILES or a.startswith("--@") for a in cmd.args
    ):
        return False
    trial = []
    for k, a in enumerate(cmd.args):
        flag, eq, value = a.partition("=")
        if not eq:
            flag, value = (cmd.args[k - 1] if k else ""), a
        if flag not in _REGISTRY_OPTIONS:
            continue
        value = _project_registry(value, cmd.cwd) or value
        host = value.split("://", 1)[-1].split("/", 1)[0].rsplit("@", 1)[-1]
        host = host if host.startswith("[") else host.split(":", 1)[0]
        trial.append(value.lower() in _TRIAL_NAMES or host.lower() in _TRIAL_HOSTS)
    return bool(trial) and all(trial)


def _project_registry(name: str, cwd: str) -> str:
    """The upload URL the project's own settings give a registry's name: pyproject.toml's
    ``[[tool.uv.index]]`` ``publish-url`` (uv publish --index) or poetry.toml's
    ``[repositories.NAME]`` ``url`` (poetry publish -r).  Files an agent can write, so
    their word beats the name's usual meaning; ``""`` when neither names it."""
    if "://" in name or UNKNOWN in cwd:
        return ""
    import os
    import tomllib  # only for a publish that names a registry

    found: list[str] = []
    for file in ("pyproject.toml", "poetry.toml"):
        try:
            with open(os.path.join(cwd, file), "rb") as fh:
                data = tomllib.load(fh)
        except (OSError, ValueError):
            continue
        tool = data.get("tool")
        indexes = tool.get("uv", {}).get("index", []) if isinstance(tool, dict) else []
        found += [
            str(i.get("publish-url") or i.get("url") or "")
            for i in indexes
            if isinstance(i, dict) and i.get("name") == name
        ]
        repos = data.get("repositories")
        entry = repos.get(name) if isinstance(repos, dict) else None
        found += [str(entry.get("url") or "")] if isinstance(entry, dict) else []
    return next((u or UNKNOWN for u in found), "")


# Variables that name where a publisher uploads, or the settings that do (twine, uv,
# flit, poetry, hatch, npm, yarn, cargo).
_TARGET_VARIABLES = LazyPattern(
    r"TWINE_REPOSITORY|UV_PUBLISH_(?:URL|INDEX)|FLIT_INDEX_URL|POETRY_REPOSITORIES_"
    r"|HATCH_INDEX_REPO|NPM_CONFIG_(?:REGISTRY|USERCONFIG|GLOBALCONFIG)"
    r"|YARN_NPM_(?:PUBLISH_REGISTRY|REGISTRY_SERVER)|CARGO_REGISTR",
    hints="TWINE_REPOSITORY UV_PUBLISH_ FLIT_INDEX_URL POETRY_REPOSITORIES_ HATCH_INDEX_REPO "
    "NPM_CONFIG_ YARN_NPM_ CARGO_REGISTR",
)
# Options that read a settings file where a repository's name gets its URL.
_TARGET_FILES = frozenset({"--config-file", "--userconfig", "--globalconfig"})


# cargo-release's steps that publish nothing (``cargo release version patch -x`` edits
# Cargo.toml, ``push`` is a git push); ``publish`` and the whole flow (a level or a
# version as first word, or none) upload to the registry unless --no-publish.
_CARGO_RELEASE_STEPS = frozenset(
    {"changes", "version", "replace", "hook", "commit", "tag", "push", "owner", "config"}
)


def _cargo_release_publishes(name: str, args: list[str], words: list[str]) -> bool:
    """Whether ``cargo release ...`` uploads to crates.io: only with ``--execute``/``-x``
    (without it cargo-release is a dry run), in its ``publish`` step or its whole flow."""
    if name != "cargo" or words[:1] != ["release"]:
        return False
    if not any(a in ("--execute", "-x") for a in args) or "--no-publish" in args:
        return False
    steps = set(words[1:])  # an option's value may stand among them (-p crate)
    return "publish" in steps or not steps & _CARGO_RELEASE_STEPS


# Flags that make a program print its version or usage and stop, whatever it does by default.
_ASKS_ONLY = frozenset({"--version", "-v", "--help", "-h"})


def publish(cmd: Cmd, where: Where) -> list[Hit]:
    """Releasing packages to public registries, and deleting things on GitHub."""
    name, args = cmd.name, cmd.args
    words = [a for a in args if not a.startswith("-")]
    released = any(
        tuple(words[: len(verb)]) == verb and (verb or name in ("goreleaser", "semantic-release"))
        for verb in _RELEASES.get(name, ())
    ) or (
        name in ("python", "python3")
        and (args[:3] == ["-m", "twine", "upload"] or ("upload" in words and "setup.py" in words))
    )
    if name == "goreleaser" and words[:1] and words[0] != "release":
        released = False
    released = released or _cargo_release_publishes(name, args, words)
    if not words and any(a in _ASKS_ONLY for a in args):
        released = False  # goreleaser --version: a tool that releases by default, asked about
    if released and _to_trial_registry(cmd):
        return [
            Hit.destructive(
                "GATE-PUBLISH",
                P_WARN,
                cmd,
                "This publishes to a registry for trying a release out (TestPyPI, or one on "
                "this machine), not the public one. Check the user wants it uploaded.",
            )
        ]
    if released:
        return [
            Hit.destructive(
                "GATE-PUBLISH",
                P_BLOCK,
                cmd,
                "Publishing a package is public and cannot really be undone. Ask the user "
                "to publish, or use --dry-run.",
            )
        ]
    if name != "gh":
        return []
    words = [
        a
        for k, a in enumerate(args)
        if not a.startswith("-") and (k == 0 or args[k - 1] not in ("-R", "--repo"))
    ]
    if len(words) >= 2 and words[0] in ("repo", "release") and words[1] == "delete":
        return [
            Hit.destructive(
                "GATE-GH-DELETE",
                P_BLOCK,
                cmd,
                f"gh {words[0]} delete removes it from GitHub for good. Ask the user.",
            )
        ]
    if len(words) >= 2 and words[0] in ("secret", "variable") and words[1] in ("delete", "remove"):
        return [
            Hit.destructive(
                "GATE-GH-DELETE",
                P_BLOCK,
                cmd,
                f"gh {words[0]} {words[1]} deletes a repository or organisation {words[0]} "
                "other workflows depend on; its value cannot be recovered. Ask the user.",
            )
        ]
    sent = _gh_api_input(cmd, where) if words[:1] == ["api"] else []
    if sent:
        return sent
    if words[:1] == ["api"] and http_method(args) == "DELETE":
        endpoint = positional(args, _GH_API_VALUED)[1:2]
        if endpoint and _GH_SMALL.search(endpoint[0]) and "/git/" not in endpoint[0]:
            return [
                Hit(
                    "GATE-GH-DELETE",
                    DESTRUCTIVE,
                    P_WARN,
                    cmd.text,
                    "gh api -X DELETE removes a label, reaction, comment, assignee, cache or "
                    "artifact: small and re-creatable, so it only warns.",
                    severity="low",
                )
            ]
        return [
            Hit.destructive(
                "GATE-GH-DELETE",
                P_BLOCK,
                cmd,
                "gh api -X DELETE deletes a GitHub resource (a repository, release, ref or "
                "comment) for good. Ask the user, or use a read-only GET.",
            )
        ]
    return []


def _gh_api_input(cmd: Cmd, where: Where) -> list[Hit]:
    """``gh api ... --input body.json`` (or ``--input -`` fed by a pipe): the request's
    fields are the file's, so they are judged by the codehosting pack as if each were
    given as ``-F key=value`` (``{"force": true}`` is ``-F force=true``)."""
    import json

    from agentreflex.gate import packs

    bodies = _values(cmd.args, "--input")
    fields: list[str] = []
    for body in bodies:
        if body == "-":
            text = cmd.stdin_text or pipes.output_text(cmd.stdin_from, {}) or ""
        else:
            text = _sql_file(body, cmd, where, {})
        try:
            data = json.loads(text) if text.strip() else {}
        except ValueError:
            continue
        if isinstance(data, dict):
            fields += [f"{k}={v if isinstance(v, str) else json.dumps(v)}" for k, v in data.items()]
    if not fields:
        return []
    return packs.check(Cmd(cmd.argv + fields, cmd.text, cmd.cwd), where)


# GitHub resources whose deletion is small and re-creatable: what CI and triage
# scripts remove every day (labels, reactions, comments, review requests,
# Actions caches and artifacts, a run's logs).
_GH_SMALL = LazyPattern(
    r"/(?:labels|reactions|comments|assignees|requested_reviewers|subscription|"
    r"caches|artifacts|logs|notifications/threads)(?:/[^/]*)?/?(?:\?.*)?$"
)


_GH_API_VALUED = frozenset(
    {
        "-X",
        "--method",
        "-R",
        "--repo",
        "-H",
        "--header",
        "-f",
        "-F",
        "--field",
        "--raw-field",
        "-q",
        "--jq",
        "-t",
        "--template",
        "--input",
        "--hostname",
        "--cache",
    }
)


def kv_store(cmd: Cmd, where: Where) -> list[Hit]:
    """Deleting a whole key-value store: ``etcdctl del "" --prefix``, ``consul kv delete -recurse``."""
    args = cmd.args
    words = [a for a in args if not a.startswith("-")]
    if cmd.name == "etcdctl" and words[:1] in (["del"], ["delete"]):
        ranged = any(a in ("--prefix", "--from-key") for a in args)
        keys = words[1:]
        if ranged and (not keys or keys[0] in ("", "/", "\\0")):
            return [_kv(cmd)]
        if ranged:
            return [
                Hit.destructive(
                    "GATE-KV-DELETE", P_WARN, cmd, "This deletes every key under a prefix."
                )
            ]
    if cmd.name == "consul" and words[:2] == ["kv", "delete"]:
        recurse = any(a.lstrip("-") == "recurse" for a in args)
        keys = words[2:]
        if recurse and (not keys or keys[0] in ("", "/")):
            return [_kv(cmd)]
        if recurse:
            return [
                Hit.destructive(
                    "GATE-KV-DELETE", P_WARN, cmd, "This deletes every key under a prefix."
                )
            ]
    return []


def _kv(cmd: Cmd) -> Hit:
    return Hit.destructive(
        "GATE-KV-DELETE",
        P_BLOCK,
        cmd,
        "This deletes every key in the store (an empty or root prefix). Delete specific "
        "keys or a narrow prefix, after a snapshot.",
    )
