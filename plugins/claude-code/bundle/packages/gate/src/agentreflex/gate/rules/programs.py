"""Programs the rules single out by name, in one place.

The pre-analysis (``analyze.py``) uses these names to import a rules module
only for a command that can trip it; the rules use the same tables to decide.
A plain data module, cheap to import on every hook call.
"""

from __future__ import annotations

# Disk tools: the disk rule (``rules_fs.disk``) finds nothing in other commands.
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

# Database clients and the flags that carry a query (``rules_remote.database``).
DB_CLIS: dict[str, tuple[str, ...]] = {
    "psql": ("-c", "--command"),
    "mysql": ("-e", "--execute"),
    "mariadb": ("-e", "--execute"),
    "sqlite3": (),
    "duckdb": ("-c",),
    "mongo": ("--eval",),
    "mongosh": ("--eval",),
    "redis-cli": (),
    "cqlsh": ("-e", "--execute"),
    "clickhouse-client": ("-q", "--query"),
    "clickhouse": ("-q", "--query"),
    "cockroach": ("-e", "--execute"),
    "snowsql": ("-q", "--query"),
    "bq": (),
}
# Every command the database rule can fire on.
DATABASE_TOOLS = frozenset({"dropdb", "dropuser", "mysqladmin", *DB_CLIS})

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
