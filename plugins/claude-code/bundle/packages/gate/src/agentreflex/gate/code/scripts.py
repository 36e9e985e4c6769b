"""The code a command runs from a local file: scripts, Makefile recipes, package.json scripts.

``bash x.sh``, ``./x.sh``, ``source x``, ``python x.py`` and ``node x.js`` run
a file; ``make [target]`` runs the target's recipe lines (and its
prerequisites'); ``npm test`` / ``npm|pnpm|yarn run X`` run a ``package.json``
script (with its ``pre``/``post`` scripts); ``pytest`` imports the
``conftest.py`` files of the folders it collects and ``pip install .`` /
``pip install -e .`` runs ``setup.py`` (both judged as Python code).  The walker judges that code as if
it were written inline.  Files are read only when a command runs one, bounded
(:data:`MAX_BYTES`), and never stored: only the text handed back to the walk.

``read`` answers ``None`` for a file that does not exist (the command fails)
and :data:`UNREADABLE` for one that exists but cannot be judged (too large,
binary, no permission), so the caller can say so.
"""

from __future__ import annotations

import os
import re

from agentreflex.core.util.deadline import check as check_time

MAX_BYTES = 16 * 1024  # a 16 kB shell script walks in ~40 ms; the floor budget is 200 ms
UNREADABLE = "\x00unreadable"
_MAKE_VAR = re.compile(r"^([A-Za-z_][A-Za-z0-9_.-]*)\s*(?::{1,3}=|\?=|=)\s*(.*)$")
_MAKE_RULE = re.compile(r"^([^\s:=#][^:=#]*?)\s*::?(?!=)\s*([^=;#]*?)\s*(?:;\s*(.*))?$")
_MAKE_REF = re.compile(r"\$[({]([A-Za-z_][A-Za-z0-9_.-]*)[)}]")
_MAKEFILES = ("GNUmakefile", "makefile", "Makefile")
MAX_CONFTESTS = 16  # conftest.py files read for one pytest run
_MAX_DIRS = 200  # folders looked at for them
_SKIP_DIRS = frozenset({"node_modules", "venv", "build", "dist", "site-packages", "__pycache__"})


def read(path: str, limit: int = MAX_BYTES) -> str | None:
    """The text of a local file a command runs or feeds to a program (at most ``limit``
    bytes), ``None`` if there is none.  Only a regular file is opened (symbolic links
    followed): a FIFO or a device (``/dev/stdin``, ``/dev/zero``) would block the gate or
    never end."""
    try:
        if not os.path.isfile(path):
            return None
        if os.path.getsize(path) > limit:
            return UNREADABLE
        with open(path, "rb") as fh:
            data = fh.read(limit + 1)
    except OSError:
        return UNREADABLE
    if b"\0" in data[:4096]:
        return UNREADABLE  # a compiled program: nothing to read
    return data.decode("utf-8", "replace")


def _read(path: str, written: dict[str, str] | None) -> str | None:
    """A file written earlier in the same command, else the one on disk."""
    if written and path in written:
        return written[path]
    return read(path)


def makefile_path(args: list[str], cwd: str, makefile: str) -> str:
    """Where ``make ARGS`` looks for the Makefile named ``makefile`` (``-C`` applied)."""
    folder = _make_args(args, cwd)[0]
    return os.path.normpath(os.path.join(folder, makefile))


def _make_args(args: list[str], cwd: str) -> tuple[str, str, list[str]]:
    """``make ARGS``: the folder (``-C``), the Makefile named (``-f``, or ""), the targets."""
    folder, makefile, targets = cwd, "", []
    i = 0
    while i < len(args):
        a = args[i]
        if a in ("-C", "--directory") and i + 1 < len(args):
            folder = os.path.join(folder, args[i + 1])
            i += 2
            continue
        if a in ("-f", "--file", "--makefile") and i + 1 < len(args):
            makefile = args[i + 1]
            i += 2
            continue
        if a.startswith("-C") and len(a) > 2:
            folder = os.path.join(folder, a[2:])
        elif a.startswith("-f") and len(a) > 2:
            makefile = a[2:]
        elif not a.startswith("-") and "=" not in a:
            targets.append(a)
        i += 1
    return folder, makefile, targets


def make_recipes(
    args: list[str], cwd: str, written: dict[str, str] | None = None
) -> tuple[str | None, str]:
    """The shell text ``make ARGS`` would run (recipes of the targets and their
    prerequisites, Makefile variables substituted), and the Makefile's path."""
    folder, makefile, targets = _make_args(args, cwd)
    if makefile:
        path = os.path.join(folder, makefile)
    else:
        path = next(
            (
                os.path.join(folder, n)
                for n in _MAKEFILES
                if os.path.isfile(os.path.join(folder, n))
            ),
            os.path.join(folder, "Makefile"),
        )
        for name in _MAKEFILES:
            if written and os.path.join(folder, name) in written:
                path = os.path.join(folder, name)
    path = os.path.normpath(path)
    text = _read(path, written)
    if text is None or text == UNREADABLE:
        return text, path
    variables, rules, first = _parse_makefile(text)
    lines: list[str] = []
    seen: set[str] = set()
    todo = list(targets or ([first] if first else []))
    while todo and len(seen) < 16:
        target = todo.pop(0)
        if target in seen or target not in rules:
            continue
        seen.add(target)
        prereqs, recipe = rules[target]
        todo[:0] = prereqs
        lines.extend(_expand(line, variables) for line in recipe)
    return "\n".join(lines), path


def _parse_makefile(
    text: str,
) -> tuple[dict[str, str], dict[str, tuple[list[str], list[str]]], str]:
    variables: dict[str, str] = {}
    rules: dict[str, tuple[list[str], list[str]]] = {}
    first = ""
    current: list[str] | None = None
    for raw in text.replace("\\\n", " ").splitlines():
        if raw.startswith("\t"):
            if current is not None:
                current.append(raw[1:].lstrip("@-+ \t"))
            continue
        line = raw.split("#", 1)[0].rstrip()
        if not line.strip():
            continue
        var = _MAKE_VAR.match(line.strip().removeprefix("export ").removeprefix("override "))
        if var and ":" not in line.split("=", 1)[0].rstrip(":"):
            variables[var.group(1)] = var.group(2).strip()
            current = None
            continue
        rule = _MAKE_RULE.match(line)
        if rule is None:
            current = None
            continue
        names, prereqs, inline = rule.group(1).split(), rule.group(2).split(), rule.group(3)
        current = [inline] if inline else []
        for name in names:
            rules[name] = (prereqs, current)
            if not first and not name.startswith(".") and "%" not in name:
                first = name
    return variables, rules, first


def _expand(line: str, variables: dict[str, str]) -> str:
    for _ in range(4):  # nested references, bounded
        new = _MAKE_REF.sub(
            lambda m: variables.get(m.group(1), "${" + m.group(1).replace(".", "_") + "}"), line
        )
        if new == line:
            break
        line = new
    return line.replace("$$", "$")


def package_script(
    tool: str, args: list[str], cwd: str, written: dict[str, str] | None = None
) -> tuple[str | None, str]:
    """The shell text ``npm test`` / ``npm|pnpm|yarn|bun run X`` runs from package.json."""
    words = [a for a in args if not a.startswith("-")]
    if not words:
        return "", ""
    if words[0] in ("test", "t", "tst", "start", "stop", "restart"):
        name = {"t": "test", "tst": "test"}.get(words[0], words[0])
    elif words[0] in ("run", "run-script", "rum", "urn") and len(words) > 1:
        name = words[1]
    elif tool in ("yarn", "pnpm", "bun") and words[0] not in _PM_COMMANDS:
        name = words[0]
    else:
        return "", ""
    path = os.path.normpath(os.path.join(cwd, "package.json"))
    text = _read(path, written)
    if text is None or text == UNREADABLE:
        return text, path
    import json  # only for a command that runs a package.json script

    try:
        scripts = json.loads(text).get("scripts") or {}
    except (ValueError, AttributeError):
        return UNREADABLE, path
    if not isinstance(scripts, dict):
        return UNREADABLE, path
    body = [scripts.get(k) for k in (f"pre{name}", name, f"post{name}")]
    return "\n".join(b for b in body if isinstance(b, str)), path


# Where Prisma 6.x/7 name the seed command: ``migrations: { seed: "tsx prisma/seed.ts" }``
_PRISMA_CONFIGS = ("prisma.config.ts", "prisma.config.mts", "prisma.config.js", ".config/prisma.ts")
_PRISMA_CONFIG_SEED = re.compile(r"""\bseed\s*:\s*(["'`])((?:(?!\1)[^\n])+)\1""")


def prisma_seed(
    args: list[str], cwd: str, written: dict[str, str] | None = None
) -> tuple[str | None, str]:
    """The shell text ``prisma db seed`` runs: ``prisma.seed`` of package.json (Prisma up
    to 6), else ``migrations.seed`` of prisma.config.ts (``--config`` names another).
    It is a command line, run as a package.json script is
    (https://www.prisma.io/docs/orm/prisma-migrate/workflows/seeding)."""
    configs = list(_PRISMA_CONFIGS)
    if "--config" in args[:-1]:
        configs = [args[args.index("--config") + 1]]
    for name in configs:
        path = os.path.normpath(os.path.join(cwd, name))
        text = _read(path, written)
        if text is not None and text != UNREADABLE:
            m = _PRISMA_CONFIG_SEED.search(text)
            if m:
                return m.group(2), path
    path = os.path.normpath(os.path.join(cwd, "package.json"))
    text = _read(path, written)
    if text is None or text == UNREADABLE:
        return text, path
    import json  # only for a command that runs the seed

    try:
        seed = (json.loads(text).get("prisma") or {}).get("seed")
    except (ValueError, AttributeError):
        return UNREADABLE, path
    return (seed if isinstance(seed, str) else ""), path


_PM_COMMANDS = frozenset(
    {
        "install",
        "i",
        "add",
        "remove",
        "rm",
        "uninstall",
        "update",
        "upgrade",
        "up",
        "init",
        "create",
        "dlx",
        "exec",
        "x",
        "why",
        "list",
        "ls",
        "info",
        "view",
        "outdated",
        "audit",
        "publish",
        "pack",
        "link",
        "unlink",
        "config",
        "set",
        "cache",
        "global",
        "workspace",
        "workspaces",
        "version",
        "login",
        "logout",
        "import",
        "dedupe",
        "prune",
        "store",
        "env",
        "help",
        "bin",
        "patch",
        "plugin",
    }
)


def conftest_files(args: list[str], cwd: str) -> list[str]:
    """The ``conftest.py`` files ``pytest ARGS`` would import (bounded).

    pytest imports the rootdir's ``conftest.py``, those of the folders above
    each test path up to the rootdir, and those of every folder it collects.
    The walk is bounded (:data:`_MAX_DIRS` folders, :data:`MAX_CONFTESTS`
    files) and skips hidden folders, virtual environments and build output.
    """
    root, paths, i = cwd, [], 0
    while i < len(args):
        a = args[i]
        if a == "--rootdir" and i + 1 < len(args):
            root, i = os.path.join(cwd, args[i + 1]), i + 2
            continue
        if a.startswith("--rootdir="):
            root = os.path.join(cwd, a.partition("=")[2])
        elif a in ("-c", "-k", "-m", "-p", "-o", "--override-ini", "--confcutdir"):
            i += 1  # the option's value is no test path
        elif not a.startswith("-"):
            paths.append(os.path.join(cwd, a.split("::", 1)[0]))
        i += 1
    found: list[str] = []
    _add(found, os.path.join(root, "conftest.py"))
    for path in paths or [cwd]:
        folder = path if os.path.isdir(path) else os.path.dirname(path)
        above = folder
        while above.startswith(root) and len(above) > len(root):
            _add(found, os.path.join(above, "conftest.py"))
            above = os.path.dirname(above)
        if os.path.isdir(path):
            _walk_conftests(path, found)
    return found[:MAX_CONFTESTS]


def _add(found: list[str], path: str) -> None:
    path = os.path.normpath(path)
    if path not in found and os.path.isfile(path):
        found.append(path)


def _walk_conftests(top: str, found: list[str]) -> None:
    for seen, (folder, dirs, files) in enumerate(os.walk(top), 1):
        check_time()  # a folder at a time: each may be slow to list
        if seen > _MAX_DIRS or len(found) >= MAX_CONFTESTS:
            return
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d not in _SKIP_DIRS)
        if "conftest.py" in files:
            _add(found, os.path.join(folder, "conftest.py"))


def setup_files(args: list[str], cwd: str) -> list[str]:
    """The ``setup.py`` files ``pip install [-e] PATH`` runs for local project folders."""
    found: list[str] = []
    skip = False
    for a in args[1:] if args[:1] == ["install"] else []:
        if skip:
            skip = False
        elif a in (
            "-r",
            "--requirement",
            "-c",
            "--constraint",
            "-t",
            "--target",
            "-i",
            "--index-url",
            "--extra-index-url",
            "--prefix",
            "--root",
            "--src",
        ):
            skip = True
        elif a.startswith("-"):
            continue  # -e/--editable: the folder follows
        else:
            folder = a.split("[", 1)[0]  # ".[dev]": extras
            if folder in (".", "..") or folder.startswith(("./", "../", "/")):
                _add(found, os.path.join(cwd, folder, "setup.py"))
    return found
