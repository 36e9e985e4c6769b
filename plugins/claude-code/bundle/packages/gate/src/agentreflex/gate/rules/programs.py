"""Programs the rules single out by name, in one place.

The pre-analysis (``analyze.py``) uses these names to import a rules module
only for a command that can trip it; the rules use the same tables to decide.
A plain data module, cheap to import on every hook call.
"""

from __future__ import annotations

# Disk tools: the disk rule (``rules/fs.py``'s ``disk``) finds nothing in other commands.
DISK_PREFIXES = ("mkfs", "mke2fs", "newfs", "mkdosfs")
DISK_TOOLS = frozenset(
    {
        "wipefs",
        "blkdiscard",
        "mkswap",
        "fdisk",
        "sfdisk",
        "gdisk",
        "sgdisk",
        "cfdisk",
        "parted",
        "zpool",
        "lvremove",
        "vgremove",
        "pvremove",
        "cryptsetup",
        "diskutil",
        "format",
        "hdparm",
        "mdadm",
        "e2fsck",
    }
)

# Database clients and the flags that carry a query (``rules/infra.py``'s ``database``).
DB_CLIS: dict[str, tuple[str, ...]] = {
    "psql": ("-c", "--command"),
    "mysql": ("-e", "--execute"),
    "mariadb": ("-e", "--execute"),
    "mycli": ("-e", "--execute"),
    "litecli": ("-e", "--execute"),
    "sqlite3": (),
    "duckdb": ("-c",),
    "mongo": ("--eval",),
    "mongosh": ("--eval",),
    "redis-cli": (),
    "valkey-cli": (),  # Redis's forks speak its protocol and take its commands
    "keydb-cli": (),
    "cqlsh": ("-e", "--execute"),
    "clickhouse-client": ("-q", "--query"),
    "clickhouse": ("-q", "--query"),
    "cockroach": ("-e", "--execute"),
    "snowsql": ("-q", "--query"),
    "bq": (),
    "sqlcmd": ("-Q", "-q"),  # SQL Server; -i FILE runs a file
    "usql": ("-c", "--command"),
    "mssql-cli": ("-Q", "--query"),
    "trino": ("--execute",),
    "beeline": ("-e",),
    "hive": ("-e",),
    "spark-sql": ("-e",),
    "impala-shell": ("-q", "--query"),
    "sqlplus": (),  # its statements come from stdin or @script
}
# Subcommands of other tools that run SQL they are given: (program, subcommand words) ->
# the options that carry SQL text (``--command``) or a SQL file (``--file``); stdin counts too.
SQL_SUBCOMMANDS: dict[tuple[str, ...], tuple[tuple[str, ...], tuple[str, ...]]] = {
    ("prisma", "db", "execute"): ((), ("--file",)),
    ("wrangler", "d1", "execute"): (("--command",), ("--file",)),
    ("turso", "db", "shell"): ((), ()),
    ("supabase", "db", "query"): ((), ("--file", "-f")),
    # a framework's shell on the project's database: its client's options after ``--``
    ("manage.py", "dbshell"): (("-c", "--command", "-e", "--execute"), ("-f", "--file")),
    ("rails", "dbconsole"): ((), ()),
    ("rails", "db"): ((), ()),
}
# Every command the database rule can fire on.
DATABASE_TOOLS = frozenset(
    {
        "dropdb",
        "dropuser",
        "mysqladmin",
        "pg_restore",
        *DB_CLIS,
        *(k[0] for k in SQL_SUBCOMMANDS),
    }
)

# Clients that type their input straight to a TCP port (``rules/infra.socket_text``).
SOCKET_CLIENTS = frozenset({"nc", "ncat", "netcat", "socat", "telnet"})

# Where secrets can leave (``rules/exfil.py``): network clients, encoders, clipboards.
SINKS = frozenset(
    {
        "curl",
        "wget",
        "http",
        "https",
        "xh",
        "nc",
        "ncat",
        "netcat",
        "socat",
        "base64",
        "base32",
        "basenc",
        "xxd",
        "od",
        "hexdump",
        "uuencode",
        "openssl",
        "pbcopy",
        "xclip",
        "xsel",
        "wl-copy",
        "clip",
        "clip.exe",
        "dig",
        "nslookup",
        "host",
    }
)

# Command names whose command lines the gate blocks or asks about: handed to a program
# the gate does not know (``tool git reset --hard``), they are judged (:mod:`derived`).
DERIVED_HEADS = frozenset(
    {
        "rm",
        "git",
        "find",
        "sh",
        "bash",
        "zsh",
        "dash",
        "dd",
        "shred",
        "mkfs",
        "chmod",
        "chown",
        "xargs",
        "eval",
        "sudo",
        "kubectl",
        "terraform",
        "docker",
    }
)


def python_entry(argv: list[str]) -> tuple[str, list[str]] | None:
    """``("pytest", args)`` or ``("pip", ["install", ...])`` when ``argv`` runs pytest or a
    pip install, however it is spelled (``python -m pytest``, ``uv pip install``)."""
    name, args = argv[0].rsplit("/", 1)[-1], argv[1:]
    if name in ("pytest", "py.test"):
        return "pytest", args
    if name in ("pip", "pip3") and args[:1] == ["install"]:
        return "pip", args
    if name == "uv" and args[:2] == ["pip", "install"]:
        return "pip", args[1:]
    if name.startswith("python") and args[:1] == ["-m"] and len(args) > 1:
        if args[1] == "pytest":
            return "pytest", args[2:]
        if args[1] == "pip" and args[2:3] == ["install"]:
            return "pip", args[2:]
    return None
