"""A project's ``.env``: what a command added there that changes how programs outside the boundary run, taken out.

Why: Gemini CLI, in a folder the user trusts, reads the first ``.env`` it
finds from the folder it starts in upwards into its own environment (every
variable not already set), and every program it starts outside any boundary
inherits it: agentreflex's hooks, its MCP servers.  So a contained command
that appends ``LD_PRELOAD=/tmp/x.so``, ``BASH_ENV=...``, ``PYTHONPATH=...``
or ``XDG_CONFIG_HOME=/tmp/x`` (agentreflex's own user settings, read from a
folder the agent wrote) to the project's ``.env`` runs its code outside the
boundary, or turns the guard off, the next time Gemini CLI starts there.
``.env`` can't be read-only: it is the application's file, and agents write
it every day.

So, like :mod:`.nestedgit`, the ``.env`` files in the folders looked at are
read before and after each shell command (only when their stamp moved), and
an entry the command added whose variable is of the kinds in :func:`reaches`
is taken out of the file, the rest kept byte for byte.  A ``.env`` that is a
link is never written through: it is moved aside, as is one that changed and
can't be read (larger than 1 MiB, a FIFO): Gemini CLI reads it all the same.  The record between the
two looks holds each entry as an HMAC under the per-user key, never a value
(a ``.env`` holds secrets).  Entries are read as Gemini CLI reads them (the
``dotenv`` package's grammar: ``export``, ``KEY: value``, quoted values over
several lines).  Stdlib only: it is on the hook's path.
"""

from __future__ import annotations

import os
import re

from agentreflex.core.util import fsutil
from agentreflex.core.util.digest import HmacSha256
from agentreflex.core.util.fsutil import move_under, read_regular
from agentreflex.core.util.lazyre import LazyPattern

__all__ = ["NAME", "Taken", "after", "before", "reaches", "stamp", "values"]

NAME = ".env"
_LIMIT = 1 << 20  # larger is not read (Gemini CLI reads it whole; nothing written then)

# the dotenv package's line (what Gemini CLI 0.61.0 bundles), in Python's syntax
_LINE = LazyPattern(
    r"""^\s*(?:export\s+)?([A-Za-z0-9_.-]+)(?:\s*=\s*?|:\s+?)"""
    r"""(\s*'(?:\\'|[^'])*'|\s*"(?:\\"|[^"])*"|\s*`(?:\\`|[^`])*`|[^#\r\n]+)?"""
    r"""\s*(?:#.*)?$""",
    re.M,
)

# Variables that make a program started with them run other code, or read its settings
# from elsewhere: the loader, shells, interpreters, git, the settings folders, the hosts'
# and agentreflex's own.  Names as the program spells them (npm's are lower-case).
_EXACT = frozenset(
    (
        "BASH_ENV", "ENV", "PROMPT_COMMAND", "SHELLOPTS", "BASHOPTS", "PS4", "HOME", "PATH",
        "SHELL", "TMPDIR", "EDITOR", "VISUAL", "PAGER", "BROWSER", "NODE_OPTIONS",
        "NODE_PATH", "PERL5OPT", "PERL5LIB", "PERLLIB", "RUBYOPT", "RUBYLIB",
        "JAVA_TOOL_OPTIONS", "_JAVA_OPTIONS", "JDK_JAVA_OPTIONS", "CLASSPATH", "GCONV_PATH",
        "SSH_ASKPASS", "SUDO_ASKPASS", "PI_CODING_AGENT_DIR",
        # what the hook reads to find the servers' sockets it keeps out of reach
        # (contain/policy.py): a .env that moved them would leave the real ones reachable
        "TMUX", "TMUX_TMPDIR", "USER", "DBUS_SESSION_BUS_ADDRESS", "DOCKER_HOST",
        # Gemini CLI's own: the system prompt read from, and written to, a path at start;
        # its sandbox's proxy command; where its model is (a server that answers with tool
        # calls); and the proxies and certificates every client follows
        "GEMINI_SYSTEM_MD", "GEMINI_WRITE_SYSTEM_MD", "GEMINI_SANDBOX",
        "GEMINI_SANDBOX_PROXY_COMMAND", "GEMINI_SANDBOX_IMAGE", "GOOGLE_GEMINI_BASE_URL",
        "GOOGLE_VERTEX_BASE_URL", "HTTPS_PROXY", "HTTP_PROXY", "ALL_PROXY", "https_proxy",
        "http_proxy", "all_proxy", "NODE_EXTRA_CA_CERTS", "SSL_CERT_FILE", "SSL_CERT_DIR",
        # settings files whose entries run a program (credential_process, exec plugins,
        # credential helpers, an executable-sourced credential), and shells' and less's
        "AWS_CONFIG_FILE", "AWS_SHARED_CREDENTIALS_FILE", "KUBECONFIG", "DOCKER_CONFIG",
        "GOOGLE_APPLICATION_CREDENTIALS", "CLOUDSDK_CONFIG", "ZDOTDIR", "LESSOPEN",
        "LESSCLOSE", "GNUPGHOME",
        # .NET's startup hooks (an assembly loaded into every .NET program), and the files
        # Gemini CLI writes to a path it is given (its debug log, its context traces)
        "DOTNET_STARTUP_HOOKS", "GEMINI_DEBUG_LOG_FILE", "GEMINI_CONTEXT_TRACE_DIR",
        # the environment or interpreter a tool picks (uv runs the VIRTUAL_ENV's, else
        # CONDA_PREFIX's python: docs.astral.sh/uv/pip/environments), the programs a build
        # runs for the compiler (cargo's RUSTC_WRAPPER, `go -toolexec` through GOFLAGS,
        # make's MAKEFILES read first), and a file TLS keys are written to
        "VIRTUAL_ENV", "RUSTC", "RUSTC_WRAPPER", "GOFLAGS", "GOTOOLCHAIN", "GOROOT",
        "GOENV", "CC", "CXX", "MAKEFLAGS", "MAKEFILES", "LUA_PATH", "LUA_CPATH",
        "SSLKEYLOGFILE", "MANPAGER",
    )
)  # fmt: skip
_PREFIXES = (
    "LD_", "DYLD_", "PYTHON", "GIT_", "XDG_", "REFLEX_", "AGENTREFLEX_", "JEV_", "LAYA_",
    "GEMINI_CLI_", "CLAUDE_", "CODEX_", "COPILOT_", "OPENCODE", "HERMES_", "NPM_CONFIG_",
    "UV_", "PIP_", "BUN_", "CORECLR_",
    # OpenSSL's settings file (OPENSSL_CONF: a providers section's `module` is loaded by
    # every program linked with it, node's and Python's ssl included) and module folders;
    # the version managers' and toolchains' homes, which name the interpreter that runs
    "OPENSSL_", "CONDA_", "PYENV_", "NVM_", "VOLTA_", "RUSTUP_", "CARGO_", "YARN_",
    "COREPACK_", "DENO_",
)  # fmt: skip


def reaches(name: str, policy: frozenset[str] | None = None) -> bool:
    """Does the variable ``name`` change what a program started with it runs or reads
    (``policy``: :func:`~agentreflex.core.hook.client.policy_variables`, when known)?

    The containment policy's ``{env:NAME}`` (the built-in's and the user's, any case) do
    by their definition: each says where a tool outside takes what it runs, a Playwright
    MCP server its browser, gopls go's build cache (red-team rt84).
    """
    if name in _EXACT or name.upper().startswith(_PREFIXES):
        return True
    return name.lower() in (_policy() if policy is None else policy)


def _policy() -> frozenset[str]:
    from agentreflex.core.hook.client import policy_variables

    return policy_variables(os.environ)


def reaching(text: str) -> list[str]:
    """The names of ``text``'s entries (a ``.env`` file's) that :func:`reaches`."""
    return [name for name, _, _, _ in _entries(text)]


def _entries(text: str) -> list[tuple[str, str, int, int]]:
    """Each entry of ``text`` that :func:`reaches`: name, value as written, and its span
    (from its name, which ``export`` may come before on the line, to its end)."""
    policy = _policy()  # once for the file (a .env may hold thousands of lines)
    return [
        (m.group(1), m.group(2) or "", m.start(1), m.end())
        for m in _LINE.finditer(text)
        if reaches(m.group(1), policy)
    ]


def values(path: str) -> dict[str, str]:
    """The entries of the ``.env`` at ``path`` that :func:`reaches`, each with its value as a
    program gets it (surrounding quotes taken off); the first of a name wins, as in
    ``dotenv``'s parse; empty when there is no readable file."""
    text = _text(path)
    found: dict[str, str] = {}
    for name, value, _, _ in _entries(text or ""):
        value = value.strip()
        if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"`":
            value = value[1:-1]
        found.setdefault(name, value)
    return found


_JS_LINE_ENDS = {0x2028: "\n", 0x2029: "\n"}


def _text(path: str) -> str | None:
    data = read_regular(path, _LIMIT)  # through a link: what Gemini CLI reads
    if data is None or len(data) > _LIMIT:
        return None
    # dotenv reads it as UTF-8 with its line ends made \n, and JavaScript's ^ and $ also
    # end a line at U+2028 and U+2029, where Python's do not: read as line ends here too
    # (an entry taken out is written back with \n there)
    text = re.sub(r"\r\n?", "\n", data.decode("utf-8", "surrogateescape"))
    return text.translate(_JS_LINE_ENDS)


def stamp(path: str) -> list[int] | None:
    """What changes when the file (or what a link leads to) is written; None if there is none."""
    found, linked = fsutil.stamp(path, follow=True), fsutil.stamp(path)
    return None if found is None or linked is None else [*found, linked[0]]


def _sign(signer: HmacSha256, name: str, value: str) -> str:
    data = f"{name}\0{value}".encode("utf-8", "surrogateescape")
    return signer.hexdigest(data)[:32]


def before(paths: list[str], key: bytes) -> dict[str, object]:
    """What each ``.env`` among ``paths`` holds that :func:`reaches`, signed, for :func:`after`."""
    signer = HmacSha256(key)
    record: dict[str, object] = {}
    for path in paths:
        text = _text(path)
        signed = sorted({_sign(signer, n, v) for n, v, _, _ in _entries(text or "")})
        record[path] = {"stamp": stamp(path), "signed": signed}
    return record


class Taken:
    """What :func:`after` took out: entries by file, and links moved aside."""

    def __init__(self) -> None:
        self.entries: list[str] = []  # ".../.env: LD_PRELOAD"
        # (a link, or a file too large to read, and where it went or "")
        self.moved: list[tuple[str, str]] = []
        # a file's stamp moved (or it came or went): the record before no longer says what it is
        self.read = False

    def __bool__(self) -> bool:
        return bool(self.entries or self.moved)


def after(
    record: dict[str, object],
    paths: list[str],
    key: bytes,
    folder: str,
    act: bool,
    roots: list[str],
) -> Taken:
    """Take out what the command added since :func:`before` (only say so when ``act`` is False).

    Nothing is written or moved through a link (``.env``, or a folder on the way below
    one of ``roots``, the projects): what it leads to may be anyone's file, the user's
    own ``~/.gemini/.env`` for one.  The link goes."""
    signer = HmacSha256(key)
    taken = Taken()
    for path in paths:
        link = path if os.path.islink(path) else fsutil.through_link(path, roots)
        was = record.get(path)
        earlier = was if isinstance(was, dict) else {}
        if earlier and earlier.get("stamp") == stamp(path):
            continue  # unchanged: nothing read
        taken.read = True
        text = _text(path)
        if text is None:
            # (a folder is no settings file: Gemini CLI fails to read one, and `.env` is a
            # common name for a virtualenv)
            if os.path.lexists(path) and not os.path.isdir(path):
                # changed, and too large to read or no file (a FIFO): Gemini CLI reads it
                # whole all the same, so what it holds can't be vouched for; it goes aside
                taken.moved.append((link, move_under(link, folder) if act else ""))
            continue
        known = earlier.get("signed")
        had = set(known) if isinstance(known, list) else set()
        added = [e for e in _entries(text) if _sign(signer, e[0], e[1]) not in had]
        if not added:
            continue
        if link != path or os.path.islink(path):
            # what it leads to may be anyone's file: the link goes, never written through
            taken.moved.append((link, move_under(link, folder) if act else ""))
            continue
        kept = act and not _take_out(path, text, added)
        taken.entries += [
            f"{path}: {name}" + (" (could not be taken out)" if kept else "")
            for name, _, _, _ in added
        ]
    return taken


def _take_out(path: str, text: str, added: list[tuple[str, str, int, int]]) -> bool:
    """``path`` written again without the ``added`` entries' spans; False if it could not be."""
    for _, _, start, end in sorted(added, key=lambda e: e[2], reverse=True):
        # the entry's own lines: from the start of the line its name is on, its line end too
        start = text.rfind("\n", 0, start) + 1
        end += text[end : end + 1] == "\n"
        text = text[:start] + text[end:]
    try:
        mode = os.stat(path).st_mode & 0o7777
        # from its folder opened with no link on the way: never written through one
        fsutil.replace_in_place(path, text.encode("utf-8", "surrogateescape"), mode)
    except OSError:
        return False
    return True
