"""From a shell command string to rule hits: pre-filter, parse, walk, rules.

The common case (``ls -la``, ``git status``, ``pytest -q``) is decided by a
pre-filter without touching the parser.  Everything else is parsed with
tree-sitter, normalised by :class:`walker.Walker` into the commands that
would really run, and each of those goes through the rules.  Input that
cannot be analysed is never a free pass: unparseable executed text asks the
user, and running out of budget blocks (the floor fails closed).
"""

from __future__ import annotations

import time

from agentreflex.core.util.deadline import check as check_time
from agentreflex.core.util.record import field, record
from agentreflex.gate.model import ASK, DESTRUCTIVE, P_BLOCK, P_WARN, SECRET, Cmd, Hit
from agentreflex.gate.rules.literals import find_secrets, redacted_excerpt
from agentreflex.gate.shell.paths import Where, is_secret_file, names_protected, real_file

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

    Rule = Callable[[Cmd, Where], list[Hit]]

MAX_INPUT = 200_000
MAX_NESTING = 48

# Each command's own rules, as ``module.function`` names in this package,
# resolved on first use (:func:`_rules_of`): a command the pre-filter decides
# imports no rules module, and a parsed one only the modules its commands need.
_RULE_NAMES: dict[str, tuple[str, ...]] = {
    "rm": ("rules.fs.rm",),
    "unlink": ("rules.fs.rm",),
    "srm": ("rules.fs.shred",),
    "shred": ("rules.fs.shred",),
    "wipe": ("rules.fs.shred",),
    "truncate": ("rules.fs.truncate",),
    "chmod": ("rules.fs.perms",),
    "chown": ("rules.fs.perms",),
    "chgrp": ("rules.fs.perms",),
    "mv": ("rules.fs.move",),
    "cp": ("rules.fs.move",),
    "ln": ("rules.fs.move",),
    "install": ("rules.fs.move",),
    "rsync": ("rules.fs.rsync", "rules.fs.removes_sources"),
    "tar": ("rules.fs.removes_sources",),
    "gtar": ("rules.fs.removes_sources",),
    "bsdtar": ("rules.fs.removes_sources",),
    "zip": ("rules.fs.removes_sources",),
    "sed": ("rules.fs.sed_inplace",),
    "dd": ("rules.fs.dd",),
    "git": ("rules.git.git",),
    "shutdown": ("rules.system.power",),
    "reboot": ("rules.system.power",),
    "halt": ("rules.system.power",),
    "poweroff": ("rules.system.power",),
    "init": ("rules.system.power",),
    "telinit": ("rules.system.power",),
    "kexec": ("rules.system.power",),
    "systemctl": ("rules.system.power", "rules.system.services"),
    "service": ("rules.system.services",),
    "launchctl": ("rules.system.services",),
    "kill": ("rules.system.kill",),
    "killall5": ("rules.system.kill",),
    "pkill": ("rules.system.kill",),
    "killall": ("rules.system.kill",),
    "crontab": ("rules.system.cron",),
    "history": ("rules.system.history",),
    "unset": ("rules.system.history",),
    ":": ("rules.system.fork_bomb_text",),
    "docker": ("rules.infra.docker",),
    "podman": ("rules.infra.docker",),
    "docker-compose": ("rules.infra.docker",),
    "nerdctl": ("rules.infra.docker",),
    "gh": ("rules.infra.publish",),
    "npx": ("rules.orm.launched",),
    "bunx": ("rules.orm.launched",),
    "php": ("rules.orm.launched",),
    "yarn": ("rules.orm.launched",),
    "pnpm": ("rules.orm.launched",),
    "bun": ("rules.orm.launched",),
    "npm": ("rules.orm.launched",),
    "cargo": ("rules.orm.launched",),
    "etcdctl": ("rules.infra.kv_store",),
    "curl": ("rules.http.http_delete",),
    "wget": ("rules.http.http_delete",),
    "http": ("rules.http.http_delete",),
    "https": ("rules.http.http_delete",),
    "xh": ("rules.http.http_delete",),
    "consul": ("rules.infra.kv_store",),
}
# shells and the clients that carry a stream: a shell wired to the network
for _name in (
    "sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "fish", "rbash",
    "nc", "ncat", "netcat", "socat", "telnet", "openssl",
):  # fmt: skip
    _RULE_NAMES[_name] = ("rules.system.remote_shell",)
# tunnels that can put a login or database port on the internet
for _name in ("ngrok", "cloudflared", "bore", "lt", "localtunnel", "pinggy", "ssh", "autossh"):
    _RULE_NAMES[_name] = (*_RULE_NAMES.get(_name, ()), "rules.tunnels.exposed")
for _name in ("cmd", "cmd.exe", "powershell", "powershell.exe", "pwsh", "pwsh.exe"):
    _RULE_NAMES[_name] = ("rules.windows.launched",)
for _name in (
    "iptables",
    "ip6tables",
    "iptables-legacy",
    "iptables-nft",
    "ebtables",
    "arptables",
    "nft",
    "ufw",
    "firewall-cmd",
    "pfctl",
):
    _RULE_NAMES[_name] = ("rules.system.firewall",)
_TABLE: dict[str, tuple[str, ...]] = {}
_RESOLVED: dict[str, tuple[Rule, ...]] = {}


def _rule_table() -> dict[str, tuple[str, ...]]:
    """Every command name with rules of its own, and those rules' ``module.function`` names.

    Built on first use: the two lists it takes from :mod:`inert` are not
    needed by a command the pre-filter decides.
    """
    if _TABLE:
        return _TABLE
    from agentreflex.gate.shell.inert import HOSTING_CLIS, PACKAGE_MANAGERS

    names = dict(_RULE_NAMES)
    for name in (
        "terraform",
        "tofu",
        "terragrunt",
        "pulumi",
        "cdk",
        "cdktf",
        "kubectl",
        "oc",
        "k",
        "helm",
        "aws",
        "gcloud",
        "az",
        *HOSTING_CLIS,
    ):
        names[name] = ("rules.infra.cloud",)
    for name in (
        *PACKAGE_MANAGERS,
        "lerna",
        "changeset",
        "semantic-release",
        "goreleaser",
        "maturin",
        "vsce",
        "ovsx",
    ):
        names[name] = (*names.get(name, ()), "rules.infra.publish")
    for name in ("python", "python3"):
        names[name] = ("rules.infra.publish", "rules.orm.launched")
    from agentreflex.gate.packs import programs  # service CLIs as data

    for name in programs():
        names[name] = (*names.get(name, ()), "packs.check")
    _TABLE.update(names)
    return _TABLE


def _rules_of(name: str) -> tuple[Rule, ...]:
    """The rules of command ``name`` (its own, then the disk rule), imported on first use."""
    rules = _RESOLVED.get(name)
    if rules is None:
        import importlib

        from agentreflex.gate.rules.programs import DISK_PREFIXES, DISK_TOOLS

        specs = _rule_table().get(name, ())
        if name.startswith(DISK_PREFIXES) or name in DISK_TOOLS:
            specs = (*specs, "rules.fs.disk")
        if "@" in name or name.endswith("/manage.py"):  # npx prisma@5, ./manage.py
            specs = (*specs, "rules.orm.launched")
        found = []
        for spec in specs:
            module, _, function = spec.rpartition(".")
            found.append(getattr(importlib.import_module(f"agentreflex.gate.{module}"), function))
        rules = _RESOLVED[name] = tuple(found)
    return rules


def known_program(name: str) -> bool:
    """Whether the gate knows what ``name`` does with its arguments (rules of its own,
    or a plain command the pre-filter trusts)."""
    return name in _SAFE_FIRST or name in _rule_table()


def rules_for(cmds: list[Cmd], where: Where, written: dict[str, str]) -> list[Hit]:
    """The rules' hits on ``cmds`` (for a walk judging a command it may not run)."""
    return _rules(cmds, where, written)


# Commands whose plain-word forms no rule can object to (pre-filter).  A
# program with a service pack (packs/index.tsv: mvn, java, gradle) is never
# here: its pack decides (tests/test_servicepacks.py holds the two apart).
_SAFE_FIRST = frozenset(
    {
        "ls",
        "pwd",
        "whoami",
        "date",
        "true",
        "false",
        "uname",
        "id",
        "hostname",
        "which",
        "type",
        "stat",
        "du",
        "df",
        "file",
        "tree",
        "ps",
        "uptime",
        "nproc",
        "echo",
        "mkdir",
        "touch",
        "pytest",
        "tox",
        "nox",
        "ruff",
        "mypy",
        "black",
        "isort",
        "flake8",
        "pylint",
        "eslint",
        "tsc",
        "jest",
        "vitest",
        "go",
        "make",
        "cmake",
        "ninja",
        "cargo",
        "npm",
        "pnpm",
        "yarn",
        "node",
        "wc",
        "cat",
        "head",
        "tail",
        "less",
        "grep",
        "rg",
        "diff",
        "sort",
        "uniq",
        "man",
        "help",
        "basename",
        "dirname",
        "realpath",
        "readlink",
        "sleep",
        "test",
        "printf",
        "uv",
        "pip",
        "pip3",
        "poetry",
        "git",
        "gofmt",
        "rustc",
        "javac",
        "swift",
        "bundle",
        "rspec",
        "phpunit",
        "composer",
        "deno",
        "bun",
        "just",
    }
)
_SAFE_GIT = frozenset(
    {
        "status",
        "log",
        "diff",
        "show",
        "add",
        "fetch",
        "blame",
        "rev-parse",
        "ls-files",
        "describe",
        "shortlog",
        "grep",
        "init",
        "version",
        "remote",
        "config",
        "commit",
        "merge-base",
        "cat-file",
        "ls-tree",
        "tag",
    }
)
# Plain commands that create or write files (``uniq IN OUT``, ``tree -o F``, ``less -o F``):
# unless they name plain entries of the working directory, a symlinked alias may lead
# them to agentreflex's own files.
_CREATES = frozenset({"touch", "mkdir", "uniq", "tree", "less"})
_UNSAFE_SUB = frozenset(
    {"publish", "unpublish", "yank", "upload", "push", "exec", "dlx", "x", "run", "eval", "repl"}
    | {"deprecate", "dist-tag", "dist-tags"}  # npm's registry changes (rules/infra.py)
)
# A command of plain words: what ``[A-Za-z0-9_][A-Za-z0-9_./:=,@+%\- ]*`` fullmatches,
# tested without compiling it (tests/test_reflex_imports.py holds the regex to it).
_WORD_START = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_")
_PLAIN_CHARS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_./:=,@+%- "


def is_plain(command: str) -> bool:
    """Only letters, digits, spaces and ``_./:=,@+%-``, starting with a letter, digit or ``_``."""
    return bool(command) and command[0] in _WORD_START and not command.strip(_PLAIN_CHARS)


@record
class Analysis:
    """Hits found in one command and the commands it would run."""

    hits: list[Hit] = field(default_factory=list)
    cmds: list[Cmd] = field(default_factory=list)
    parsed: bool = False


_FILTERING = frozenset({"grep", "egrep", "fgrep", "rg"})
_FILTERS = ("--include", "--glob", "--iglob", "-g")


def prefilter(command: str, where: Where) -> Cmd | None:
    """The command as one :class:`Cmd` when it is plainly harmless, else ``None``."""
    if len(command) > 300 or not is_plain(command):
        return None
    words = command.split()
    if not words or words[0] not in _SAFE_FIRST:
        return None
    if words[0] == "git" and (len(words) < 2 or words[1] not in _SAFE_GIT or "-C" in words):
        return None
    if words[:2] == ["git", "config"] and len([w for w in words[2:] if w[:1] != "-"]) > 1:
        return None  # sets a value: it may be a program later git commands run
    if words[0] == "git" and words[1] in ("add", "grep") and _home_or_above(where):
        return None  # git add -A in the home gathers the key into its objects (selfguard)
    if any(w in _UNSAFE_SUB for w in words[1:3]) or runs_local_file(words):
        return None
    if words[0] in ("pip", "pip3", "uv") and _names_place(words):
        return None  # envinstall judges where it installs: maybe the hook's own Python
    if (
        words[0] in ("uv", "poetry")
        and words[1:2]
        and (words[1] in ("run", "publish") or words[1].startswith("-"))
    ):
        return None  # runs a command, maybe after its own options (``uv --directory D run X``)
    if words[0] in RUNNER_FIRST and _runs_what_follows(words):
        return None  # runs what follows, maybe after its options (``npm --prefix web exec X``)
    if words[0] == "cargo" and words[1:2] in (["sqlx"], ["diesel"], ["release"]):
        return None  # database tools run through cargo: the databases pack decides; and
        # cargo-release's whole flow publishes (cargo release patch -x): infra.publish decides
    if words[0] in ("node", "deno", "bun") and any(
        w in ("-e", "-p", "--eval", "eval") for w in words
    ):
        return None
    if words[0] in _FILTERING and any(w.startswith(_FILTERS) for w in words[1:]):
        return None  # a file filter may pick a credential (rules/secrets.py _filter_picks)
    if any(is_secret_file(w) or real_file(w, where) for w in words[1:] if w[:1] != "-"):
        return None  # a credential, or a symlink that may lead to one (the rules follow it)
    if names_protected(command) or (words[0] in _CREATES and not _here(words[1:], where)):
        return None  # may reach agentreflex's own files (selfguard)
    return Cmd(words, command, where.cwd)


def _home_or_above(where: Where) -> bool:
    """Whether the command runs in the home or a folder above it (``/``, ``/home``)."""
    cwd = where.cwd.rstrip("/") + "/"
    return (where.home.rstrip("/") + "/").startswith(cwd)


# Commands that run code from a file of the project whatever their words say:
# make (the Makefile), pytest (conftest.py), npm test/start (package.json),
# node x.js (the script), pip install . (setup.py).
_RUNS_FILES = frozenset({"make", "gmake", "pytest", "py.test", "yarn", "pnpm", "bun"})
_NPM_RUNS = frozenset({"test", "t", "tst", "start", "stop", "restart", "run", "run-script"})


# The package runners among _SAFE_FIRST (pkgrunners.RUNNERS; a test holds them equal):
# read lazily, so an everyday command does not import the table.
RUNNER_FIRST = frozenset({"npm", "pnpm", "yarn", "bun", "bundle", "poetry", "uv", "deno"})


def _runs_what_follows(words: list[str]) -> bool:
    """Whether a subcommand that runs a command is among ``words``, wherever the
    runner's options put it (``pnpm -C . exec X``, ``bundle --verbose exec X``)."""
    from agentreflex.gate.shell.pkgrunners import SUB_WORDS

    sub = SUB_WORDS.get(words[0], frozenset())
    return any(w in sub for w in words[1:])


def runs_local_file(words: list[str]) -> bool:
    """Whether the plain command ``words`` runs a local file the gate must read first.

    Why: the pre-filter answers from the words alone; ``make`` or ``npm test``
    look harmless but run whatever the Makefile or package.json says, and
    ``pip install .`` runs setup.py (issue 22 item 1).
    """
    name, rest = words[0], words[1:]
    if name in _RUNS_FILES:
        return True
    if name == "npm":
        return bool(rest) and rest[0] in _NPM_RUNS
    if name in ("node", "deno"):  # node x.js, deno run x.ts: the script file
        return any(not w.startswith("-") for w in rest)
    if not (name in ("pip", "pip3", "uv") or name.startswith("python")):
        return False
    from agentreflex.gate.rules.programs import python_entry  # pip install, python -m pytest

    entry = python_entry(words)
    if entry is None:
        return False
    tool, args = entry
    return tool == "pytest" or any(
        w in (".", "-e", "--editable") or w.startswith(("./", "/", "../")) for w in args
    )


def _names_place(words: list[str]) -> bool:
    """Whether the installer command ``words`` names where it installs (``--prefix=ENV``,
    ``-p ENV``): read as :mod:`envinstall` reads it, so no spelling it judges
    is decided here."""
    from agentreflex.gate.shell.installplace import places

    return any(places(words[0], words[1:], words[0], {}))


def _here(args: list[str], where: Where) -> bool:
    """Only options and plain names in the working directory (``mkdir -p dist``)."""
    return not names_protected(where.cwd) and all(
        a.startswith("-") or ("/" not in a and not a.startswith(".")) for a in args
    )


def analyse(command: str, where: Where, env: dict[str, str], deadline: float) -> Analysis:
    """Every hit in ``command``; never raises."""
    out = Analysis()
    if not command or not command.strip():
        return out
    found = find_secrets(command, command=True)
    if found:
        out.hits.append(
            Hit(
                "GATE-SECRET-IN-COMMAND",
                SECRET,
                0.9,
                redacted_excerpt(command, 200),
                f"The command line contains a secret ({found[0]}); it ends up in the "
                "transcript and shell history. Read it from an environment variable "
                "or a file instead.",
            )
        )
    quick = prefilter(command, where)
    if quick is not None:
        out.cmds.append(quick)
        return out
    if len(command) > MAX_INPUT or max_nesting(command, MAX_NESTING) > MAX_NESTING:
        out.hits.extend(_fallback_scan(command))
        out.hits.append(
            Hit(
                "GATE-PARSE-TOO-COMPLEX",
                ASK,
                1.0,
                redacted_excerpt(command, 200),
                "The command is too large or too deeply nested to analyse. Split it "
                "into simple commands or a script file the user can read.",
            )
        )
        return out
    # Imported here, not at the top: a command the pre-filter decides (the
    # common case) never pays for the walker and the tree-sitter parser.
    from agentreflex.gate.shell.walker import ParseBudgetExceeded, Walker

    walker = Walker(where, env, deadline)
    out.parsed = True
    try:
        walker.run(command)
    except (ParseBudgetExceeded, RecursionError) as exc:
        out.hits.extend(_fallback_scan(command))
        out.hits.append(
            Hit(
                "GATE-PARSE-BUDGET",
                DESTRUCTIVE,
                P_BLOCK,
                redacted_excerpt(command, 200),
                f"The safety check could not finish ({exc or 'too deep'}); blocked "
                "to be safe. Split the command into simpler steps.",
            )
        )
    out.cmds = walker.cmds
    out.hits.extend(walker.hits)
    out.hits.extend(
        _rules(
            walker.cmds,
            where,
            walker.state.written,
            (walker.captured, walker.captured_vars),
            walker.fed_from,
        )
    )
    if walker.parse_errors:
        out.hits.extend(_fallback_scan(command))
        accepts = _bash_accepts(command, deadline)
        if not accepts:
            out.hits.append(_rejected(command, known=accepts is False))
    return out


def _rejected(command: str, known: bool) -> Hit:
    """A command bash refuses to parse.

    Bash reads and runs a script command by command, so on one line a syntax
    error (``echo 'unterminated``) means nothing runs at all: a note, not a
    question.  Over several lines, the lines before the error do run and the
    parse of what they are cannot be trusted: the user is asked.  So is a line
    bash could not be asked about (``known`` False: no bash, no time left).
    """
    if known and "\n" not in command.strip():
        return Hit(
            "GATE-SYNTAX-REJECTED",
            DESTRUCTIVE,
            P_WARN,
            redacted_excerpt(command, 200),
            "bash rejects this line with a syntax error (an unclosed quote or "
            "bracket), so nothing of it runs. Fix the quoting.",
        )
    return Hit(
        "GATE-PARSE-ERROR",
        ASK,
        1.0,
        redacted_excerpt(command, 200),
        "The command does not parse as shell, so what it would run "
        "cannot be checked. Fix the quoting.",
    )


def max_nesting(text: str, limit: int) -> int:
    """Deepest ``(`` nesting in ``text``, stopping early once past ``limit``."""
    depth = best = 0
    for ch in text:
        if ch == "(":
            depth += 1
            if depth > best:
                best = depth
                if best > limit:
                    return best
        elif ch == ")" and depth:
            depth -= 1
    return best


def _fallback_scan(command: str) -> list[Hit]:
    """The parse-free scan, imported only on the rare paths that need it."""
    from agentreflex.gate.shell import fallback

    return fallback.scan(command)


def _rules(
    cmds: list[Cmd],
    where: Where,
    written: dict[str, str],
    captured: tuple[set[int], set[str]] | None = None,
    fed_from: dict[str, set[int]] | None = None,
) -> list[Hit]:
    # Imported here, with the walker: the pre-filter's commands never need them,
    # and each rules module only once a command needs its rules.
    from agentreflex.gate.rules import secrets, selfguard
    from agentreflex.gate.rules.programs import DATABASE_TOOLS, SOCKET_CLIENTS
    from agentreflex.gate.shell import inert

    hits: list[Hit] = selfguard.command_hits(cmds, where) + selfguard.startup_hits(written, where)
    net_fed = secrets.network_fed(cmds)
    shown = secrets.shown_through_pipes(cmds)
    hits += secrets.env_file_dumped(cmds, shown)
    hits += secrets.captured_secret_shown(cmds, fed_from or {}, shown)
    stored = secrets.stored_through_pipes(cmds) | secrets.loaded_env(
        cmds, *(captured or (set(), set())), shown
    )
    made = _made_dirs(cmds, where)
    for k, cmd in enumerate(cmds):
        check_time()  # each segment's rules may read files: the hook's time holds
        # A dry run, help or analysis changes nothing: skip the tool's own rules
        # (what it reads, writes through redirects or runs is still checked).
        if not inert.inert(cmd.name, cmd.args) and not (
            k in made and _in_made(cmd, made[k], where)
        ):
            for rule in _rules_of(cmd.name):
                hits.extend(rule(cmd, where))
            if cmd.name in DATABASE_TOOLS:
                from agentreflex.gate.rules.infra import database

                hits.extend(database(cmd, where, written))
        if cmd.name in SOCKET_CLIENTS or any(
            t.startswith(("/dev/tcp/", "/dev/udp/")) for _, t in cmd.redirects
        ):
            from agentreflex.gate.rules.infra import socket_text

            hits.extend(socket_text(cmd, where))
        if cmd.redirects or cmd.name == "tee":
            from agentreflex.gate.rules.fs import redirects

            hits.extend(redirects(cmd, where))
        hits.extend(secrets.shell_hits(cmd, where, net_fed, shown, stored))
    if sum(c.name == "git" for c in cmds) > 1:
        from agentreflex.gate.rules.git import pointed_pushes

        hits.extend(pointed_pushes(cmds))
    return _exfil(cmds, where) + hits  # exfiltration first: it says more than a read


def _exfil(cmds: list[Cmd], where: Where) -> list[Hit]:
    """Secrets reaching a sink (``rules/exfil.py``), loaded only when a sink is present."""
    from agentreflex.gate.rules.programs import SINKS

    if not any(
        c.name in SINKS
        or c.name in ("grep", "egrep", "rg")
        or any(t.startswith(("/dev/tcp/", "/dev/udp/")) for _, t in c.redirects)
        for c in cmds
    ) and not _copy_staged(cmds):
        return []
    from agentreflex.gate.rules import exfil

    return exfil.pipeline_hits(cmds, where)


def _copy_staged(cmds: list[Cmd]) -> bool:
    """A file copied, then ``git add``: the copy may be of a credential (``rules/exfil.py``)."""
    return any(c.name == "git" and "add" in c.args for c in cmds) and any(
        c.name in ("cp", "mv", "install", "rsync", "dd", "openssl", "split", "tar", "zip")
        or any(op in (">", ">>", ">|") for op, _ in c.redirects)
        for c in cmds
    )


def _made_dirs(cmds: list[Cmd], where: Where) -> dict[int, list[str]]:
    """Folders made earlier in the same command, per permission command (``rules/created.py``)."""
    if not any(c.name in ("chown", "chmod", "chgrp") for c in cmds):
        return {}
    from agentreflex.gate.rules.created import made_dirs

    return made_dirs(cmds, where)


def _in_made(cmd: Cmd, made: list[str], where: Where) -> bool:
    from agentreflex.gate.rules.created import all_made

    return all_made(cmd, made, where)


_BASH: list[str | None] = []


def _bash_accepts(command: str, deadline: float) -> bool | None:
    """Whether bash itself parses ``command`` (tree-sitter's grammar has gaps);
    ``None`` when bash cannot tell (not installed, no time left, failed)."""
    import subprocess  # only on the rare parse-error path

    from agentreflex.core.util.sysprog import system_program

    if not _BASH:  # the system's bash: this runs outside any boundary, never a planted one
        _BASH.append(system_program("bash"))
    bash = _BASH[0]
    budget = deadline - time.monotonic()
    if bash is None or budget < 0.02:
        return None
    try:
        done = subprocess.run(
            [bash, "-n", "-c", command], capture_output=True, timeout=min(budget, 1.0), check=False
        )
    except (OSError, subprocess.SubprocessError, ValueError):
        return None
    return done.returncode == 0
