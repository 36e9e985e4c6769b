"""agentreflex's own files: any change that reaches them needs the user.

An agent that rewrites ``.agentreflex/config.toml``, removes the hook entry
from ``~/.claude/settings.json`` or deletes an installed reflex has switched
the guard off, whatever tool it used.  So this module judges *effects*, not
command names: for every executed command it works out which paths the
command would write, delete, move, link, truncate or change permissions of
(redirections, coreutils, archivers, ``dd``, ``rsync``, downloads, ``git
checkout``...), resolves each the way the command will (its working
directory, ``..``, ``~`` and ``~user``, symlinks that exist, hard links,
globs) and compares the result with :func:`agentreflex.core.state.userdirs.protected_paths`
(the one definition of agentreflex's own files).  Interpreter code that writes
files and mentions one of them, and the file tools (Write, Edit, patches, MCP
file tools), are judged the same way.  Uninstalling or disabling agentreflex
and ``agentreflex trust`` (the user's approval) also need the user.

Every finding is ``ASK_USER`` and names the file:

- ``GATE-SELF-PROTECT``: a change that reaches one of agentreflex's own files;
- ``GATE-SELF-DISABLE``: uninstalling or disabling agentreflex, approving
  its configuration (``agentreflex trust``), or starting another coding agent
  with its approvals off (``claude --dangerously-skip-permissions``, ``gemini --yolo``);
- ``GATE-SELF-KEY``: reading the per-user key (a secret).

None of them can be allow-listed.
"""

from __future__ import annotations

from agentreflex.core.state.userdirs import PROTECTED_NAMES
from agentreflex.core.util.lazyre import LazyPattern
from agentreflex.gate.model import ASK, DESCENDANT, UNKNOWN, Cmd, Hit
from agentreflex.gate.rules.protected import (
    DELETE,
    GLOB_CHARS,
    PERMS,
    PERMS_TREE,
    WRITE,
    full_path,
    protected,
    reached,
    real_path,
    under,
)
from agentreflex.gate.shell.paths import Where, resolve

RULE = "GATE-SELF-PROTECT"
RULE_DISABLE = "GATE-SELF-DISABLE"
RULE_KEY = "GATE-SELF-KEY"
RULES = frozenset({RULE, RULE_DISABLE, RULE_KEY})

# --- uninstalling or disabling agentreflex --------------------------------------

_PACKAGE_TOOLS = frozenset(
    {
        "pip",
        "pip3",
        "pipx",
        "uv",
        "poetry",
        "pdm",
        "conda",
        "mamba",
        "micromamba",
        "rye",
        "hatch",
        "brew",
    }
)
_REMOVE_WORDS = frozenset({"uninstall", "remove", "rm", "purge", "erase", "uninstall-all"})
_PLUGIN_OFF = frozenset({"disable", "uninstall", "remove", "rm"})


def _ours(word: str) -> bool:
    return "agentreflex" in word.lower().replace("_", "-")


# Coding agents' switches that turn off their approvals or their sandbox: another agent
# started with one runs whatever it decides, unasked (the Nx "s1ngularity" malware ran
# claude --dangerously-skip-permissions, gemini --yolo and q chat --trust-all-tools to
# search the disk for credentials, August 2025: https://vectimus.com/blog/force-flags).
# program -> (its switches, option -> the values that mean the same)
_AGENT_BYPASS: dict[str, tuple[frozenset[str], dict[str, frozenset[str]]]] = {
    "claude": (
        frozenset({"--dangerously-skip-permissions"}),
        {"--permission-mode": frozenset({"bypassPermissions"})},
    ),
    "gemini": (frozenset({"--yolo", "-y"}), {"--approval-mode": frozenset({"yolo"})}),
    "qwen": (frozenset({"--yolo", "-y"}), {"--approval-mode": frozenset({"yolo"})}),
    "codex": (
        frozenset({"--dangerously-bypass-approvals-and-sandbox", "--yolo"}),
        {"--sandbox": frozenset({"danger-full-access"}), "-s": frozenset({"danger-full-access"})},
    ),
    "q": (frozenset({"--trust-all-tools"}), {}),
    "cursor-agent": (frozenset({"--force", "-f"}), {}),
    "copilot": (frozenset({"--allow-all-tools", "--allow-all", "--yolo"}), {}),
    "amp": (frozenset({"--dangerously-allow-all"}), {}),
    "aider": (frozenset({"--yes-always"}), {}),
}


# the npm packages' own names (npx @anthropic-ai/claude-code, npx @google/gemini-cli)
_AGENT_PACKAGES = {"claude-code": "claude", "gemini-cli": "gemini", "qwen-code": "qwen"}


def _unguarded_agent(name: str, args: list[str]) -> str:
    """The switch that starts coding agent ``name`` with no approvals (``""`` when none)."""
    spec = _AGENT_BYPASS.get(_AGENT_PACKAGES.get(name, name))
    if spec is None:
        return ""
    switches, valued = spec
    for i, a in enumerate(args):
        if a == "--":
            break
        option, eq, value = a.partition("=")
        if not eq and option in valued and i + 1 < len(args):
            value = args[i + 1]
        if a in switches or value in valued.get(option, ()):
            return a if a in switches else f"{option} {value}"
    return ""


def disable_reason(cmd: Cmd) -> str:
    """Why ``cmd`` uninstalls, disables or approves agentreflex; ``""`` when it does not."""
    from agentreflex.gate.shell.argv import operands  # shell commands only, not file tools

    name, args = cmd.name, cmd.args
    if name.startswith(("python", "pypy")) and args[:1] == ["-m"] and len(args) > 1:
        name, args = args[1].split(".", 1)[0], args[2:]
    if name.startswith("pip"):
        name = "pip"
    if any("disableAllHooks" in a for a in args):
        return "it sets disableAllHooks, which turns off every hook including agentreflex"
    if name in _PACKAGE_TOOLS:
        words = set(args)
        if "uninstall-all" in words or (
            not _REMOVE_WORDS.isdisjoint(words)
            and ("--all" in words or any(_ours(a) for a in args))
        ):
            return "it uninstalls agentreflex"
    unguarded = _unguarded_agent(name, args)
    if unguarded:
        return (
            f"it starts {name} with {unguarded}: a second agent whose commands no one "
            "approves, outside this session's checks"
        )
    plugin = name == "claude" and ("plugin" in args or "plugins" in args)
    ours = any(_ours(a) for a in args) or "--all" in args
    if plugin and ours and not _PLUGIN_OFF.isdisjoint(args):
        return "it disables or removes the agentreflex plugin"
    if name == "agentreflex":
        ops = operands(args)
        if ops[:1] == ["trust"] and not ({"--show", "--help", "-h"} & set(args)):
            return "agentreflex trust records the user's approval, so only the user may run it"
        if ops[:2] == ["state", "acknowledge"]:
            return "agentreflex state acknowledge accepts a lost session history for the user"
        if ops[:1] in (["uninstall"], ["disable"]):
            return "it uninstalls or disables agentreflex"
        if ops[:1] == ["install"] and "--dry-run" not in args:
            # --bin /bin/true: hooks that call another program and always allow
            return "agentreflex install rewrites the hook entries that run agentreflex"
        if _writes_history(ops, args, cmd.assigns):
            return (
                f"agentreflex {ops[0]} records into the session's history, which only the "
                "host's own hooks write (a forged PostToolUse could record tests that never "
                "ran); try a payload with `agentreflex check`, or with HOME or "
                "AGENTREFLEX_STATE_DIR set to a scratch folder"
            )
    return ""


# What points agentreflex at a scratch state instead of the user's live one.
_SCRATCH_STATE = ("HOME", "XDG_STATE_HOME", "AGENTREFLEX_STATE_DIR")


def _writes_history(ops: list[str], args: list[str], assigns: dict[str, str]) -> bool:
    """``agentreflex hook HOST EVENT`` or ``replay FILE`` run by the agent, on the live state."""
    if any(assigns.get(name) for name in _SCRATCH_STATE):
        return False
    if {"--help", "-h"} & set(args):
        return False
    if ops[:1] == ["hook"]:
        return True
    return ops[:1] == ["replay"] and not any(a.startswith("--state-dir") for a in args)


# --- the environment hosts start with -----------------------------------------------

# Files a shell reads when it starts (and direnv's, when it enters the project): a
# host started from a new terminal inherits what they export.
_STARTUP_NAMES = frozenset(
    {
        *(".bashrc", ".bash_profile", ".bash_login", ".profile", ".bash_aliases"),
        *(".zshrc", ".zshenv", ".zprofile", ".zlogin", ".kshrc", ".mkshrc"),
        *("config.fish", ".pam_environment", ".envrc", ".env.fish"),
    }
)
# agentreflex's own settings in the environment (``REFLEX_MODE=shadow`` stops it
# blocking; ``AGENTREFLEX_BIN`` chooses the program the Claude Code plugin runs)
_OWN_VARIABLES = LazyPattern(
    r"\b(?:AGENTREFLEX_|REFLEX_|JEV_)[A-Z0-9_]*\s*=|\bset\s+-[gx]+\s+(?:AGENTREFLEX_|REFLEX_|JEV_)",
    hints="REFLEX_ JEV_",
)


def startup_hits(written: dict[str, str], where: Where) -> list[Hit]:
    """``GATE-SELF-DISABLE`` for a shell start-up file given agentreflex's own settings.

    ``echo 'export REFLEX_MODE=shadow' >> ~/.bashrc``: every host started from a new
    shell then runs agentreflex in shadow mode, or (``AGENTREFLEX_BIN``) runs
    another program as its hook.  Only the words a command writes are known
    here (``echo``, ``printf``, here-documents, ``tee``).
    """
    hits = []
    for path, content in written.items():
        name = path.rpartition("/")[2]
        in_env_d = "/environment.d/" in path and name.endswith(".conf")
        if (name in _STARTUP_NAMES or in_env_d) and _OWN_VARIABLES.search(content):
            hits.append(
                Hit(
                    RULE_DISABLE,
                    ASK,
                    1.0,
                    path,
                    f"This puts agentreflex's own settings in {path}, which a shell reads when "
                    "it starts: every host started from a new terminal would inherit them "
                    "(REFLEX_MODE=shadow stops it blocking; AGENTREFLEX_BIN runs another "
                    "program as its hook), so only the user may. Ask the user to make this change.",
                )
            )
    return hits


# --- interpreter code -------------------------------------------------------------

# Calls that change files, in python, node, perl, ruby and php one-liners.
# Languages whose file-writing calls _CODE_WRITES knows (the parsed ones, and awk).
_WRITES_KNOWN = frozenset(
    {"python", "python2", "python3", "pypy", "pypy3", "node", "nodejs", "bun", "deno"}
    | {"ruby", "perl", "php", "lua", "awk", "gawk", "mawk", "nawk"}
)
_CODE_WRITES = LazyPattern(
    r"""\bopen\s*\([^()]*,\s*(?:mode\s*=\s*)?['"][rbt]*[wax+]"""
    r"""|\bopen\s*\(\s*\w*\s*,?\s*['"]\s*(?:>|\+<)"""
    r"""|\.write(?:_text|_bytes|lines)?\s*\("""
    r"""|\bos\.(?:remove|unlink|rename|renames|replace|rmdir|removedirs|symlink|link|chmod|"""
    r"""chown|lchown|truncate|makedirs|mkdir|utime|write|ftruncate)\s*\("""
    r"""|\bshutil\.(?:copy\w*|move|rmtree|chown|unpack_archive|make_archive)\s*\("""
    r"""|\.(?:unlink|rename|replace|touch|symlink_to|hardlink_to|chmod|rmdir|mkdir)\s*\("""
    r"""|\b(?:write|append)File(?:Sync)?\b|\b(?:rename|unlink|rm|rmdir|copyFile|cp|symlink|link|"""
    r"""chmod|chown|truncate|mkdir|writev?|open)Sync\b|\bcreateWriteStream\b"""
    r"""|\bFile\.(?:write|delete|unlink|rename|symlink|link|chmod|truncate)\b"""
    r"""|\bFile\.open\s*\([^()]*,\s*['"][rb]*[wa+]|\bFileUtils\.|\bIO\.write\b"""
    r"""|\b(?:unlink|rename|symlink|chmod|chown|truncate)\s*[(\s'"]"""
    r"""|\bfile_put_contents\b|\bfwrite\b""",
    hints="open write os. shutil. unlink rename replace touch symlink link chmod rmdir mkdir "
    "File Sync createWriteStream IO. truncate chown file_put fwrite",
)
# Where one string literal ends and the next begins, joined by ``+``, ``.``, ``,``
# (``os.path.join``, ``path.join``) or ``/`` (``pathlib``'s operator).
_JOINS = LazyPattern(r"""['"`]\s*[+.,/]?\s*['"`]""")
_STRINGS = LazyPattern(r"""'([^'\\\n]*)'|"([^"\\\n]*)"|`([^`\n]*)`""")
# Spellings of agentreflex's own files that code may build a path from (core's one list).
_FRAGMENTS = PROTECTED_NAMES


def code_reason(code: str, where: Where, cwd: str, lang: str = "") -> tuple[str, str]:
    """(the file, why) when interpreter ``code`` writes files and names a protected one.

    For a language whose ways of writing files the gate has no list of (Tcl,
    R, Julia, PowerShell...: ``lang`` given and not one of
    :data:`_WRITES_KNOWN`), naming a protected file is enough: the gate
    cannot tell a read from a write there, and it fails closed for its own files.
    """
    if (not lang or lang in _WRITES_KNOWN) and not _CODE_WRITES.search(code):
        return "", ""
    for m in _STRINGS.finditer(code):
        text = next((grp for grp in m.groups() if grp is not None), "")
        if text and ("/" in text or text.startswith(".")) and len(text) < 4096:
            hit = reached(text, WRITE, where, cwd)
            if hit:
                return hit, "this code changes files and names it"
    g = protected(where)
    names = [*_FRAGMENTS, *(e for e in g.entries if e not in g.installed)]
    joined = _JOINS.sub("", code)  # '.agent' + 'reflex' spells .agentreflex
    for frag in names:
        if frag in code or frag in joined:
            return frag, "this code changes files and builds a path from it"
    return "", ""


# --- hits -------------------------------------------------------------------------


def _message(shown: str, effect: str, alias: str) -> str:
    via = f" (through {alias})" if alias and alias != shown else ""
    return (
        f"This {effect} {shown}{via}, one of agentreflex's own files (its configuration, "
        "state, installed code, the Python its hook runs on, a host's hook settings, a "
        "script those settings run, or what a host or your editor runs from the project, "
        "such as .mcp.json, .claude/skills or .vscode/tasks.json, all outside any "
        "sandbox): changing it can switch "
        "agentreflex off or run code unchecked, so only the user may. Ask the user to make "
        "this change."
    )


def path_hit(path: str, effect: str, where: Where, cwd: str, segment: str) -> Hit | None:
    """``GATE-SELF-PROTECT`` when changing ``path`` reaches one of agentreflex's own files."""
    hit = reached(path, effect, where, cwd)
    if not hit:
        return None
    shown = hit.replace(DESCENDANT, "*")
    alias = full_path(path, where, cwd).replace(DESCENDANT, "*")
    return Hit(RULE, ASK, 1.0, segment, _message(shown, effect, alias))


def _key_message(key: str) -> str:
    if key.endswith(".json"):
        return (
            f"{key} is agentreflex's trust record (the project settings the user approved); "
            "no command reads it inside the boundary, nor here without one: only the user "
            "may read or copy it (agentreflex trust --show)."
        )
    return (
        f"{key} is agentreflex's per-user key, a secret that authenticates its "
        "records; only the user may read or copy it."
    )


def _secret_hit(secret: str, segment: str) -> Hit:
    return Hit(RULE_KEY, ASK, 1.0, segment, _key_message(secret))


def key_hit(path: str, where: Where, cwd: str, segment: str, recursive: bool = False) -> Hit | None:
    """``GATE-SELF-KEY`` when ``path`` is one of the guard's secrets (the per-user key, the
    trust record: ``userdirs.secret_paths``) or the folder that holds them.

    ``recursive``: the program reads whole folders (``grep -r``, ``rsync``, ``zip -r``),
    so any folder between the home and a secret reaches it too.
    """
    if UNKNOWN in path and DESCENDANT not in path:
        return _unknown_key_hit(path, where, cwd, segment)
    full = full_path(path, where, cwd)
    if not full or DESCENDANT in full:
        return None
    g = protected(where)
    if recursive and full != where.home and under(full, where.home):
        held = next((s for s in g.secrets if under(s, full)), "")
        if held:
            return _secret_hit(held, segment)
    # where the OS leads: a link made earlier, in the last part (making one to the key asks:
    # LINK_TARGET) or a folder on the way (``st -> ~/.local/state``, whose target is no file
    # of the guard's; red-team rt35)
    names = {full, real_path(full)}
    if any(ch in full for ch in GLOB_CHARS):
        names.update(s for s in g.secrets if glob_matches(full, s))
    if g.state_dir in names:
        return _secret_hit(g.key, segment)
    for secret in g.secrets:
        if secret in names or real_path(secret) in names:
            return _secret_hit(secret, segment)
    return None


def _unknown_key_hit(path: str, where: Where, cwd: str, segment: str) -> Hit | None:
    """``GATE-SELF-KEY`` when a path with parts known only at run time could be a secret
    (``d=$(cat n); cat ~/.local/state/$d/key``, ``cat ~/.local/state/agentreflex/$v``):
    its known parts match the secret's path, each unknown part standing for any text,
    and they say more than the home (``cat ~/$f`` could be any file: not asked, red-team
    rt89)."""
    import re

    full = resolve(path, where, cwd or None)
    if full[:1] != "/" or DESCENDANT in full:
        return None
    known = full[: full.find(UNKNOWN)].rpartition("/")[0]
    if not under(known, where.home) or (known == where.home and full.endswith(UNKNOWN)):
        return None
    parts = []
    for ch in full:
        if ch == UNKNOWN:
            parts.append(".*")
        elif ch in GLOB_CHARS and ch != "[":
            parts.append("[^/]*" if ch == "*" else "[^/]")
        else:
            parts.append(re.escape(ch))
    pattern = re.compile("".join(parts))
    secret = next((s for s in protected(where).secrets if pattern.fullmatch(s)), "")
    return _secret_hit(secret, segment) if secret else None


def glob_matches(pattern: str, path: str) -> bool:
    """Whether the glob ``pattern`` (absolute, ``**`` for any number of folders) matches
    ``path``, as Python's and node's globs and the shell's would."""
    from fnmatch import fnmatchcase

    def match(ps: list[str], xs: list[str]) -> bool:
        if not ps:
            return not xs
        if ps[0] == "**":
            return any(match(ps[1:], xs[k:]) for k in range(len(xs) + 1))
        return bool(xs) and fnmatchcase(xs[0], ps[0]) and match(ps[1:], xs[1:])

    return match(pattern.strip("/").split("/"), path.strip("/").split("/"))


def code_key_hit(code: str, where: Where, segment: str) -> Hit | None:
    """``GATE-SELF-KEY`` when interpreter code names one of the guard's secrets, however it
    joins it.

    ``Path.home().joinpath('.local/state/agentreflex/key')`` or ``homedir() + '/...'``:
    the part of the path below the home (or below the state folder's parent)
    is enough, as no other program has a reason to spell it.
    """
    g = protected(where)
    joined = _JOINS.sub("", code)
    import re

    for secret in g.secrets:
        tails = {secret, "/".join(secret.rsplit("/", 2)[-2:])}  # agentreflex/key
        if under(secret, where.home) and secret != where.home:
            tails.add(secret[len(where.home.rstrip("/")) + 1 :])
        # the name ends there (``.../agentreflex/key``, not ``.../agentreflex/keyboard``)
        pattern = "(?:" + "|".join(re.escape(tail) for tail in tails) + r")(?![\w.-])"
        # its names as separate literals: ``Path.home() / 'agentreflex' / 'key'``
        parts = "(?:" + "|".join(re.escape(t.replace("/", "")) for t in tails) + r")(?![\w.-])"
        if re.search(pattern, code) or re.search(pattern, joined) or re.search(parts, joined):
            return _secret_hit(secret, segment)
    return _globbed_secret(code, where, segment)


def _globbed_secret(code: str, where: Where, segment: str) -> Hit | None:
    """A glob pattern in ``code`` that matches a secret: ``glob.glob('/home/*/.local/state/
    agentreflex/*key*')`` on a machine whose homes are in ``/home``, ``fs.globSync(...)``
    (red-team rt81).  The pattern names no secret, but what it yields is one.

    A relative pattern may be globbed from any folder (``Path('/home').glob('*/.local/
    state/*/k*')``): it counts when it matches a secret's path from some folder on and
    names one of that path's folders below the home outright, so ``Path('.').glob('**/*')``
    does not.  A pattern a path-joining call builds from literals counts as the one
    string it makes (``os.path.join('/home', '*', '.local', ...)``: red-team rt86).
    """
    secrets = protected(where).secrets
    for text in _code_strings(code):
        if not (any(ch in text for ch in GLOB_CHARS) and "/" in text and len(text) < 4096):
            continue
        found = key_hit(text, where, where.cwd, segment)
        if found is None and text[:1] not in ("/", "~"):
            named = {p for p in text.split("/") if p not in ("", ".", "..")}
            named = {p for p in named if not any(ch in p for ch in GLOB_CHARS)}
            for secret in secrets:
                below = (
                    secret[len(where.home.rstrip("/")) :] if under(secret, where.home) else secret
                )
                if named & set(below.split("/")) and glob_matches("**/" + text, secret):
                    found = _secret_hit(secret, segment)
                    break
        if found is not None:
            return found
    return None


def _code_strings(code: str) -> list[str]:
    """The string literals of ``code``, and the paths its path-joining calls make of
    literals side by side: ``os.path.join('/home', '*')`` and node's ``path.join``,
    ``Path('/home', '*')``, ``joinpath``, ``path.resolve`` join theirs with ``/``
    (https://docs.python.org/3/library/os.path.html#os.path.join,
    https://nodejs.org/api/path.html#pathjoinpaths).  Only a call's own arguments are
    joined, so ``print('a', '*')`` stays two strings."""
    texts = [next((g for g in m.groups() if g is not None), "") for m in _STRINGS.finditer(code)]
    for m in _PATH_CALL.finditer(code):
        args = _call_args(code, m.end())
        if "," in args:
            joined = _JOINED_ARGS.sub("/", args)
            for lit in _STRINGS.finditer(joined):
                text = next((g for g in lit.groups() if g is not None), "")
                texts.append(_SLASHES.sub("/", text))
    return texts


def _call_args(code: str, start: int) -> str:
    """The text of a call's arguments from ``start`` (just after its ``(``) to its
    closing parenthesis, bounded; parentheses inside strings are not told apart, which
    at worst ends the arguments early."""
    depth = 0
    for k in range(start, min(len(code), start + 4096)):
        ch = code[k]
        if ch == "(":
            depth += 1
        elif ch == ")":
            if depth == 0:
                return code[start:k]
            depth -= 1
    return ""


_PATH_CALL = LazyPattern(r"\b(?:join|joinpath|resolve|Path|PurePath|PosixPath)\s*\(", hints="(")
_JOINED_ARGS = LazyPattern(r"""['"`]\s*,\s*['"`]""")
_SLASHES = LazyPattern(r"//+", hints="//")


# Programs that read whole folders: with one of these, a folder above the key reaches it.
_WALKERS = frozenset({"rg", "ag", "ack", "rsync", "tar", "gtar", "bsdtar", "7z", "7za"})
_WALK_FLAGS = {"grep": "rR", "egrep": "rR", "fgrep": "rR", "cp": "rRa", "zip": "r", "scp": "r"}
_WALK_LONG = frozenset({"--recursive", "--dereference-recursive", "--archive", "--recurse-paths"})
_EXEC_ACTIONS = frozenset({"-exec", "-execdir", "-ok", "-okdir"})


def _walks(cmd: Cmd) -> bool:
    """Whether ``cmd`` reads the contents of whole folders it names."""
    if cmd.name in _WALKERS:
        return True
    if cmd.name == "find":
        return any(a in _EXEC_ACTIONS for a in cmd.args)
    letters = _WALK_FLAGS.get(cmd.name)
    if letters is None:
        return False
    for a in cmd.args:
        if a in _WALK_LONG:
            return True
        if a.startswith("-") and not a.startswith("--") and any(ch in a[1:] for ch in letters):
            return True
    return False


# Programs that, handed a file, read its name or metadata and never its contents
_NAMES_ONLY = frozenset(
    {"ls", "stat", "du", "realpath", "readlink", "basename", "dirname", "echo", "printf"}
    | {"test", "true", "file", "touch", "chmod", "chown", "rm", "wc"}
)


def _found_key(cmd: Cmd, where: Where) -> Hit | None:
    """The key reached through a walk's own resolution rather than a path in the words.

    ``find ~ -name key -exec cat {} +`` and ``find ~ -name key | xargs cat``
    read what find's name test picks out; ``tar -C ~ -cf - .local`` reads
    ``.local`` from the folder ``-C`` names.
    """
    from agentreflex.gate.shell.changes import find_yields

    finder = cmd if cmd.name == "find" and _walks(cmd) else None
    named = True  # a name test lets the key through (``find ~ -name key``)
    if cmd.name == "xargs" and cmd.stdin_from is not None and cmd.stdin_from.name == "find":
        finder = cmd.stdin_from
        # a reader of contents is handed every file find yields, the key among them
        # (``find ~/.local/state -type f | xargs od -c``); one of names only is not
        from agentreflex.gate.shell.fanout import split_xargs

        program = (split_xargs(cmd.args)[1] or ["echo"])[0]
        named = program.rsplit("/", 1)[-1] in _NAMES_ONLY
    if finder is not None:
        yielded = find_yields(finder.args, finder.cwd, where, named=named)
        secret = next((s for s in protected(where).secrets if s in yielded), "")
        if secret:
            return _secret_hit(secret, cmd.text)
    if cmd.name == "git":
        return _git_gathered(cmd, where)
    if cmd.name in ("tar", "gtar", "bsdtar"):
        for operand, folder in _tar_operands(cmd, where):
            found = key_hit(operand, where, folder, cmd.text, recursive=True)
            if found is not None:
                return found
    return None


_GIT_VALUED = frozenset({"-C", "-c", "--git-dir", "--work-tree", "--namespace", "--config-env"})
# git's ways of copying files it does not track yet into its objects (or its output):
# ``add -A``/``add PATH``, ``stash -u``/``-a``, ``grep --untracked``/``--no-index``
_GATHER = {
    "add": frozenset({"-A", "--all", "--no-ignore-removal", "-f", "--force"}),
    "stash": frozenset({"-u", "--include-untracked", "-a", "--all"}),
    "grep": frozenset({"--untracked", "--no-index"}),
}


def _git_gathered(cmd: Cmd, where: Where) -> Hit | None:
    """A secret read through git: ``git -C ~/.local/state add -A`` copies the key into
    git's objects, where ``git show :agentreflex/key`` prints it (red-team rt81).

    The folder git works in is ``-C``'s (after the command's own), its work tree
    ``--work-tree`` or ``GIT_WORK_TREE``; what it gathers is the paths ``add`` names
    (the whole tree for ``-A`` alone) or the whole tree (``stash -u``, ``grep
    --untracked``), each judged as a whole-folder read.
    """
    args, folder, tree = cmd.args, cmd.cwd, ""
    i = 0
    while i < len(args) and args[i].startswith("-"):
        option, eq, value = args[i].partition("=")
        if not eq and option in _GIT_VALUED:
            value, i = (args[i + 1] if i + 1 < len(args) else ""), i + 1
        if option == "-C" and value:
            folder = full_path(value, where, folder) or folder
        elif option == "--work-tree":
            tree = value
        i += 1
    sub, rest = (args[i], args[i + 1 :]) if i < len(args) else ("", [])
    tree = tree or cmd.assigns.get("GIT_WORK_TREE") or cmd.shell_vars.get("GIT_WORK_TREE", "")
    root = full_path(tree, where, folder) if tree else folder
    gathering = _GATHER.get(sub)
    if not root or gathering is None:
        return None
    flags = {a.partition("=")[0] for a in rest if a.startswith("-")}
    named = rest[rest.index("--") + 1 :] if "--" in rest else [a for a in rest if a[:1] != "-"]
    if sub != "add" or not named:
        if not flags & gathering:
            return None
        named = ["."]
    base = folder if under(folder, root) else root
    for spec in named:
        spec = "." if spec.startswith(":") else spec  # ``:/``, ``:(top)``: from the top
        full = full_path(spec, where, root if spec == "." else base)
        if full and under(where.home, full):
            # the home or above it, whole: git copies every file it holds into its objects,
            # the key among them (``cd ~ && git add -A``, rt89), where tar's and rsync's
            # whole-home reads are left to the home's other guards
            held = next((s for s in protected(where).secrets if under(s, full)), "")
            if held:
                return _secret_hit(held, cmd.text)
        found = key_hit(spec, where, root if spec == "." else base, cmd.text, recursive=True)
        if found is not None:
            return found
    return None


def _tar_operands(cmd: Cmd, where: Where) -> list[tuple[str, str]]:
    """tar's operands, each with the folder it is read from (``-C DIR`` applies to those after it)."""
    folder, args = cmd.cwd, cmd.args
    out: list[tuple[str, str]] = []
    skip = False
    for i, arg in enumerate(args):
        if skip:
            skip = False
            continue
        if arg in ("-C", "--directory") and i + 1 < len(args):
            folder, skip = full_path(args[i + 1], where, folder) or folder, True
        elif arg.startswith("--directory="):
            folder = full_path(arg.partition("=")[2], where, folder) or folder
        elif i and not arg.startswith("-") and folder != cmd.cwd:
            out.append((arg, folder))
    return out


def _read_arguments(cmd: Cmd) -> list[str]:
    """The words of ``cmd`` that may name a file it reads.

    ``curl -F f=@FILE`` and ``-d @FILE`` give FILE, ``dd if=FILE`` and
    ``--upload-file=FILE`` give FILE, and every word is itself a candidate.
    """
    words = [*cmd.args, *(t for op, t in cmd.redirects if op == "<")]
    out = []
    for word in words:
        if word.startswith("file://"):  # ``curl file:///home/u/...``
            out.append("/" + word[len("file://") :].removeprefix("localhost").lstrip("/"))
        if "@" in word and not word.startswith("-"):
            at = word.split("@", 1)[1].split(";", 1)[0]
            if at:
                out.append(at)
        if "=" in word:
            out.append(word.partition("=")[2])
        out.append(word)
    return out


def command_hits(cmds: list[Cmd], where: Where) -> list[Hit]:
    """Every executed command that changes agentreflex's own files, reads its key, or switches it off."""
    from agentreflex.gate.shell.changes import effects  # shell commands only, not file tools

    hits: list[Hit] = []
    for cmd in cmds:
        reason = disable_reason(cmd)
        if reason:
            hits.append(
                Hit(
                    RULE_DISABLE,
                    ASK,
                    1.0,
                    cmd.text,
                    f"This switches agentreflex off or approves its settings ({reason}); "
                    "only the user may. Ask the user to run it.",
                )
            )
        found = None
        for path, effect, cwd in effects(cmd, where):
            if effect in (PERMS, PERMS_TREE) and _to_the_user(cmd, where):
                continue
            found = path_hit(path, effect, where, cwd, cmd.text)
            if found is not None:
                hits.append(found)
                break
        read = _found_key(cmd, where) or _named_key(cmd, where)
        if found is None:
            # a program with no model may only read what it is given (``zip -r s.zip
            # ~/.local/state``): the read of a secret, which is sure, is named first
            found = unmodelled_hit(cmd, where)
            hits.extend(h for h in (read, found) if h is not None)
        elif read is not None:
            hits.append(read)
    return hits


def _to_the_user(cmd: Cmd, where: Where) -> bool:
    """Whether ``cmd`` is a chown to the user running it, group too if named
    (``chown -R $USER .``, ``sudo chown -R $USER:$USER .``): the guard's files are the
    user's already, so nothing of them changes; without sudo it cannot reach another's
    files at all.  Giving them to anyone else (``chown -R nobody .``) still asks."""
    if cmd.name != "chown":
        return False
    from agentreflex.gate.rules.fs import gives_to_user  # only for a chown

    return gives_to_user(cmd, where)


def _named_key(cmd: Cmd, where: Where) -> Hit | None:
    """The key read through a path the command's words name (or a folder above it, for a walker)."""
    walks = _walks(cmd)
    for path in _read_arguments(cmd):
        # a walker reads a folder by its bare name too (``cd ~/.local && tar -c state``)
        named = walks or "/" in path or path[:1] in ("~", ".") or path == "key"
        if path and not path.startswith("-") and named:
            found = key_hit(path, where, cmd.cwd, cmd.text, recursive=walks)
            if found is not None:
                return found
    return None


def unmodelled_hit(cmd: Cmd, where: Where) -> Hit | None:
    """``GATE-SELF-PROTECT`` for a program the gate has no model of that names an own file.

    Fails closed for agentreflex's own files where the parse ends (issue #28):
    ``vim .claude/settings.json``, ``openssl enc -out ~/.claude/settings.json``
    and ``sqlite3 db "select writefile('.agentreflex/config.toml', x)"`` write
    them, and no list of programs' output options is ever complete.  Each
    argument is read as a path, and so is each quoted string inside it and each
    word after its first (sqlite3's ``'.output F'`` and ``-cmd '.once F'``); an
    interpreter's inline code is judged by :func:`code_hit` instead.
    """
    from agentreflex.gate.code.interp import INTERPRETERS
    from agentreflex.gate.shell.changes import modelled

    if modelled(cmd.name) or cmd.name == "agentreflex" or _awk_reads_only(cmd):
        return None  # its subcommands that switch it off: disable_reason
    inline = INTERPRETERS.get(cmd.name)
    for i, arg in enumerate(cmd.args):
        if inline and i and cmd.args[i - 1] == inline:
            continue
        if _filter_pattern(cmd.args[i - 1] if i else "", arg):
            continue
        candidates = [arg.partition("=")[2] if arg.startswith("-") else arg]
        candidates += [next(g for g in m.groups() if g is not None) for m in _STRINGS.finditer(arg)]
        candidates += arg.split()[1:]  # after a word: sqlite3's ``.output F``, ``.backup DB F``
        for text in candidates:
            if text and ("/" in text or text.startswith((".", "~"))) and len(text) < 4096:
                hit = reached(text, WRITE, where, cmd.cwd) or _folder_holding(text, where, cmd.cwd)
                if hit:
                    return Hit(
                        RULE,
                        ASK,
                        1.0,
                        cmd.text,
                        f"{cmd.name} is not a program the gate knows the effects of, and it "
                        f"names {hit.replace(DESCENDANT, '*')}, one of agentreflex's own files: "
                        "it may change it, which can switch agentreflex off, so only the "
                        "user may. Ask the user to run it.",
                    )
    return None


def _folder_holding(path: str, where: Where, cwd: str) -> str:
    """The guard's file inside ``path`` when it names a folder that holds one
    (``rclone copy remote:x ~/.claude`` fills ``~/.claude/settings.json``).

    Narrower than every folder a program is given, which would ask for ``black .``: the
    project, the home and the folders above them are left out, and so are the guard's
    installed code and derived data, where a write into a parent is everyday work.  In
    the project only files that exist count (``prettier --write .github`` asks where
    ``.github/hooks`` is there to rewrite); outside it, a file the program may create
    counts too.
    """
    import os

    full = full_path(path, where, cwd)
    if not full or DESCENDANT in full or any(ch in full for ch in GLOB_CHARS):
        return ""
    if under(where.home, full) or (where.project and under(where.project, full)):
        return ""
    g = protected(where)
    inside = bool(where.project) and under(full, where.project)
    for folder in dict.fromkeys((full, real_path(full))):
        for entry in g.all_entries():
            if entry in g.installed or entry in g.rebuilt or not under(entry, folder):
                continue
            if not inside or os.path.lexists(entry):
                return entry
    return ""


# Options whose value is a pattern of what a command skips or picks (aws s3 sync
# --exclude '.*', rclone --include '*.md'): a glob there names no file to write.
_FILTER_OPTIONS = frozenset(
    {"--exclude", "--include", "--exclude-pattern", "--include-pattern", "--rexclude"}
)


def _filter_pattern(previous: str, arg: str) -> bool:
    option, eq, value = arg.partition("=")
    if not (eq and option in _FILTER_OPTIONS):
        option, value = previous, arg
    return option in _FILTER_OPTIONS and any(c in value for c in "*?[")


_AWK_WRITES = LazyPattern(r"\bprintf?\b[^;{}]*>", hints="print")


def _awk_reads_only(cmd: Cmd) -> bool:
    """``awk '{print $1}' FILE``: a program written out with no output redirection, pipe
    or ``system`` only reads the files it names (``-i inplace`` and ``-f`` are not that)."""
    from agentreflex.gate.code.interp import AWKS

    if cmd.name not in AWKS:
        return False
    args = cmd.args
    k = 0
    while k < len(args) and args[k].startswith("-"):
        if args[k] in ("-i", "-f", "--include", "--file") or args[k].startswith(("-i", "-f")):
            return False
        k += 2 if args[k] in ("-v", "-F") else 1
    program = args[k] if k < len(args) else ""
    return bool(program) and not any(c in program for c in "|>") and "system" not in program


def code_arguments_hit(
    code: str, lang: str, args: list[str], where: Where, cwd: str, segment: str
) -> Hit | None:
    """``GATE-SELF-PROTECT`` for code that writes files, handed one of agentreflex's own as an
    argument: ``perl -e 'open(F, ">", $ARGV[0])' .agentreflex/config.toml``, or an
    assignment (``awk -v f=.agentreflex/config.toml 'BEGIN{print "x" > f}'``)."""
    writes = _AWK_WRITES if lang == "awk" else _CODE_WRITES
    if not writes.search(code):
        return None
    for arg in args:
        if arg == code:
            continue
        for candidate in (arg, arg.partition("=")[2]):
            hit = reached(candidate, WRITE, where, cwd) if candidate[:1] not in ("", "-") else ""
            if hit:
                return Hit(RULE, ASK, 1.0, segment, _message(hit, WRITE, ""))
    return None


def code_hit(code: str, where: Where, cwd: str, segment: str, lang: str = "") -> Hit | None:
    """``GATE-SELF-PROTECT`` for interpreter code that writes files and names a protected one."""
    shown, why = code_reason(code, where, cwd, lang)
    if not shown:
        return None
    return Hit(
        RULE,
        ASK,
        1.0,
        segment,
        f"{why[0].upper()}{why[1:]} ({shown}), one of agentreflex's own files or a "
        "fragment of their names: changing them can switch agentreflex off, so only the "
        "user may. Ask the user to make this change.",
    )


def mcp_paths(tool_name: str, data: object) -> tuple[list[str], bool]:
    """The paths an MCP tool's input names, and whether the tool only reads them."""
    from agentreflex.gate.tool_input import LIST_PATH_KEYS, PATH_KEYS, READ_VERBS

    paths: list[str] = []
    if isinstance(data, dict):
        for key in PATH_KEYS:
            value = data.get(key)
            if isinstance(value, str) and value:
                paths.append(value)
            elif isinstance(value, list):
                paths.extend(v for v in value if isinstance(v, str) and v)
        for key in LIST_PATH_KEYS:
            value = data.get(key)
            if isinstance(value, list):
                paths.extend(v for v in value if isinstance(v, str) and v)
    verb = tool_name.rsplit("__", 1)[-1].lower()
    return paths, verb.startswith(READ_VERBS)


def tool_hits(paths: list[str], where: Where, segment: str, deleting: bool = False) -> list[Hit]:
    """File tools (Write, Edit, patches, MCP file tools) that change agentreflex's own files."""
    effect = DELETE if deleting else WRITE
    hits = []
    for p in paths:
        found = path_hit(p, effect, where, where.cwd, segment or p)
        if found is not None:
            hits.append(found)
    return hits


def read_hits(paths: list[str], where: Where) -> list[Hit]:
    """File reads of the per-user key."""
    hits = []
    for p in paths:
        found = key_hit(p, where, where.cwd, p)
        if found is not None:
            hits.append(found)
    return hits
