"""Git rules: history and work-tree destruction, in every spelling.

Git's global options (``-C dir``, ``--git-dir``, ``-c k=v``, ``--work-tree``)
are skipped to find the subcommand, so ``git -C /other reset --hard`` and
``GIT_DIR=x git push -f`` are judged like the plain forms.  Force pushes are
recognised as ``-f``, ``--force``, ``+refspec``, ``--mirror``; remote deletes
as ``--delete``, ``-d`` and ``:ref``.  ``--force-with-lease`` on a feature
branch, ``reset --soft``, ``clean -n`` and ``branch -d`` stay allowed.
"""

from __future__ import annotations

from agentreflex.core.util.lazyre import LazyPattern
from agentreflex.gate.model import (
    ASK,
    DESTRUCTIVE,
    P_BLOCK,
    P_WARN,
    SECRET,
    Cmd,
    Hit,
    has_marker,
    positional,
)
from agentreflex.gate.shell.paths import Where

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

_GLOBAL_VALUED = frozenset(
    {
        "-C",
        "-c",
        "--git-dir",
        "--work-tree",
        "--namespace",
        "--exec-path",
        "--super-prefix",
        "--config-env",
    }
)
_PROTECTED = frozenset({"main", "master", "trunk", "develop", "production", "prod", "release"})


def _sub(cmd: Cmd) -> tuple[str, list[str]]:
    sub, rest, aliases = split(cmd.args, cmd.assigns)
    expansion = aliases.get(sub)
    if expansion is not None and not expansion.startswith("!"):
        words = _split_words(expansion)
        if words:
            return words[0], [*words[1:], *rest]
    return sub, rest


def settings(args: list[str], env: Mapping[str, str] | None = None) -> dict[str, str]:
    """Config set for this run: ``GIT_CONFIG_PARAMETERS``, ``GIT_CONFIG_COUNT`` pairs, ``-c``.

    Keys are lower-cased in their section and name, as git compares them.
    """
    out: dict[str, str] = {}
    env = env or {}
    for m in _PARAM.finditer(env.get("GIT_CONFIG_PARAMETERS", "")):
        key, _, value = m.group(1).partition("=")
        out[_key(key)] = value
    count = env.get("GIT_CONFIG_COUNT", "").strip()
    if count.isdigit() and len(count) <= 6:  # git refuses a bogus count
        for n in range(min(int(count), 4096)):
            key = env.get(f"GIT_CONFIG_KEY_{n}", "")
            if key:
                out[_key(key)] = env.get(f"GIT_CONFIG_VALUE_{n}", "")
    i = 0
    while i < len(args):
        a = args[i]
        if a in _GLOBAL_VALUED:
            if a == "-c" and i + 1 < len(args):
                key, sep, value = args[i + 1].partition("=")
                out[_key(key)] = value if sep else "true"
            i += 2
        elif a.startswith("-c") and len(a) > 2:
            key, sep, value = a[2:].partition("=")
            out[_key(key)] = value if sep else "true"
            i += 1
        elif a.startswith("-"):
            i += 1
        else:
            break
    return out


def _key(key: str) -> str:
    section, _, name = key.strip().rpartition(".")
    head, dot, sub = section.partition(".")
    return f"{head.lower()}{dot}{sub}.{name.lower()}" if section else key.lower()


_PARAM = LazyPattern(r"'([^']*)'")
# Settings whose value is a program git runs, and the subcommands that run it
# (None: any).  Values that only switch a built-in feature on are skipped.
_PROGRAM_KEYS: dict[str, frozenset[str] | None] = {
    "core.fsmonitor": None,
    "core.sshcommand": None,
    "core.pager": None,
    "core.editor": None,
    "core.askpass": None,
    "core.gitproxy": None,
    "sequence.editor": None,
    "diff.external": None,
    "gpg.program": None,
    "credential.helper": None,
    "uploadpack.packobjectshook": None,
}
_PROGRAM_ENV = (
    "GIT_SSH_COMMAND",
    "GIT_SSH",
    "GIT_EXTERNAL_DIFF",
    "GIT_PAGER",
    "GIT_EDITOR",
    "GIT_SEQUENCE_EDITOR",
    "GIT_ASKPASS",
    "GIT_PROXY_COMMAND",
)
_NOT_PROGRAMS = frozenset({"", "true", "false", "yes", "no", "on", "off", "1", "0", "cat", "less"})


def programs(
    args: list[str], env: Mapping[str, str], sub: str, rest: list[str]
) -> list[tuple[str, str]]:
    """(setting, program) for every program this git command is set up to run.

    ``git config [scope] KEY VALUE`` stores a program for later runs and is
    judged the same way.
    """
    found: list[tuple[str, str]] = []
    for key, value in settings(args, env).items():
        if _runs_program(key) and value.strip().lower() not in _NOT_PROGRAMS:
            found.append((key, value))
    for name in _PROGRAM_ENV:
        value = env.get(name, "")
        if value.strip().lower() not in _NOT_PROGRAMS:
            found.append((name, value))
    if sub == "config":
        words = [w for w in rest if not w.startswith("-")]
        if words[:1] in (["set"], ["add"]) and len(words) >= 3:
            words = words[1:]  # git 2.46's ``git config set KEY VALUE``
        if len(words) >= 2:
            key = _key(words[0])
            if _runs_program(key) or (key.startswith("alias.") and words[1].startswith("!")):
                found.append((key, words[1]))
    for a in rest:
        for opt in ("--upload-pack=", "--receive-pack=", "--exec="):
            if a.startswith(opt):
                found.append((opt.rstrip("="), a[len(opt) :]))
    return found


# Settings naming the program git runs to reach a remote over ssh, and the
# subcommands that contact a remote (only they run it).
_SSH_KEYS = frozenset({"core.sshcommand", "GIT_SSH_COMMAND", "GIT_SSH"})
_NETWORK = frozenset(
    {"fetch", "pull", "push", "clone", "ls-remote", "fetch-pack", "send-pack", "submodule"}
)
_REMOTE_NETWORK = frozenset({"update", "prune", "show", "set-head"})
# Beyond this many GIT_CONFIG_COUNT entries, the settings are not read one by one.
MAX_CONFIG_COUNT = 64


def contacts_remote(sub: str, rest: list[str]) -> bool:
    """Whether ``git SUB REST`` talks to a remote (so it runs the ssh program)."""
    if sub in _NETWORK:
        return True
    if sub == "archive":
        return any(a.startswith("--remote") for a in rest)
    if sub == "remote":
        words = [a for a in rest if not a.startswith("-")]
        return bool(words) and words[0] in _REMOTE_NETWORK
    return False


def is_ssh_setting(key: str) -> bool:
    """Whether setting ``key`` names git's ssh program (run only to reach a remote)."""
    return key in _SSH_KEYS


def config_env_problem(env: Mapping[str, str]) -> str:
    """Why the settings ``GIT_CONFIG_COUNT`` passes cannot all be read ("" if they can).

    Git applies ``GIT_CONFIG_KEY_n``/``GIT_CONFIG_VALUE_n`` for n below the
    count; a setting there can run a program (an alias, core.sshCommand) on
    any git command.  Only a plain count with every pair present is read; a
    malformed or huge count, or a missing key or value, is not vouched for.
    """
    count = env.get("GIT_CONFIG_COUNT")
    if count is None or count == "0":
        return ""
    if not (count.isascii() and count.isdigit()) or count[0] == "0":
        return f"GIT_CONFIG_COUNT={count!r} is not a plain count"
    if len(count) > 6 or int(count) > MAX_CONFIG_COUNT:
        return f"GIT_CONFIG_COUNT={count} passes more settings than the gate reads"
    for n in range(int(count)):
        if not env.get(f"GIT_CONFIG_KEY_{n}") or f"GIT_CONFIG_VALUE_{n}" not in env:
            return f"GIT_CONFIG_KEY_{n} or GIT_CONFIG_VALUE_{n} is missing"
    return ""


def is_credential_helper(key: str) -> bool:
    """``credential.helper`` or ``credential.<url>.helper``: a program git hands the
    username and password to (https://git-scm.com/docs/gitcredentials#_custom_helpers)."""
    return key.startswith("credential.") and key.endswith(".helper")


# Commands that read their input when given no file: what a helper hands on.
_INPUT_READERS = frozenset(
    {"cat", "tee", "dd", "read", "mapfile", "readarray", "tr", "base64", "xxd", "gzip", "sponge"}
)
_FILTERS = frozenset({"sed", "awk", "gawk", "grep", "head", "tail", "sort", "uniq", "cut"})
_PROGRAM_FIRST = frozenset({"sed", "awk", "gawk", "grep"})  # their first word is no file
# Commands that write a file named by their words (tee FILE, dd of=FILE, sponge FILE).
_FILE_WRITERS = frozenset({"tee", "dd", "sponge"})
_NOT_FILES = ("/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty")


def helper_keeps_input(ran: list[Cmd]) -> bool:
    """Whether the commands of a credential helper read the helper's own input (git's
    ``username=``/``password=`` lines) and write a file or reach the network."""
    from agentreflex.gate.rules.exfil import NET, reads_stdin

    reads = keeps = False
    for c in ran:
        own_input = c.stdin_from is None and c.stdin_text is None and c.via != "substitution"
        own_input = own_input and not any(op.startswith("<") for op, _ in c.redirects)
        operands = [a for a in c.args if not a.startswith("-") and "=" not in a]
        if own_input and (
            (c.name in _INPUT_READERS and (c.name not in ("cat", "dd") or not operands))
            or (c.name in _FILTERS and len(operands) <= (c.name in _PROGRAM_FIRST))
            or (c.name in NET and reads_stdin(c))
            or (c.name == "dd" and not any(a.startswith("if=") for a in c.args))
        ):
            reads = True
        writes = any(
            op in (">", ">>", ">|", "&>", "&>>") and t not in _NOT_FILES and not t.isdigit()
            for op, t in c.redirects
        )
        if (
            writes
            or (c.name in _FILE_WRITERS and (operands or any(a.startswith("of=") for a in c.args)))
            or (c.name in NET and c.via != "substitution")
        ):
            keeps = True
    return reads and keeps


def _runs_program(key: str) -> bool:
    if key in _PROGRAM_KEYS or key.startswith("pager.") or is_credential_helper(key):
        return True
    return key.endswith((".textconv", ".command", ".clean", ".smudge", ".process")) and (
        key.startswith(("diff.", "merge.", "filter.", "difftool.", "mergetool."))
    )


def split(
    args: list[str], env: Mapping[str, str] | None = None
) -> tuple[str, list[str], dict[str, str]]:
    """The subcommand, its arguments, and aliases set for this run (``-c alias.NAME=...``,
    ``GIT_CONFIG_COUNT``/``GIT_CONFIG_PARAMETERS``)."""
    aliases = {
        key[len("alias.") :]: value.strip()
        for key, value in settings(args, env).items()
        if key.startswith("alias.")
    }
    i = 0
    while i < len(args):
        a = args[i]
        if a in _GLOBAL_VALUED:
            i += 2
        elif a.startswith("-"):
            i += 1
        else:
            return a, args[i + 1 :], aliases
    return "", [], aliases


def _split_words(text: str) -> list[str]:
    import shlex  # only for ``git -c alias.x=...``: not worth its import on every git command

    try:
        return shlex.split(text)
    except ValueError:
        return text.split()


def _flags(args: list[str]) -> set[str]:
    """Long options as given and short option clusters split into letters."""
    out: set[str] = set()
    for a in args:
        if a == "--":
            break
        if a.startswith("--no-"):
            out.discard("--" + a[5:].split("=", 1)[0])
        elif a.startswith("--"):
            out.add(a.split("=", 1)[0])
        elif a.startswith("-") and len(a) > 1:
            out.update("-" + ch for ch in a[1:])
    return out


# Long options that decide something, per subcommand: git accepts any
# unambiguous abbreviation ("--forc", "--ha", "--discard-ch"), so a prefix of
# one of these is read as it (an ambiguous one makes git refuse to run).
_LONG: dict[str, tuple[str, ...]] = {
    "push": ("--force", "--force-with-lease", "--mirror", "--delete", "--prune"),
    "reset": ("--hard", "--merge"),
    "checkout": ("--force", "--orphan", "--pathspec-from-file"),
    "switch": ("--discard-changes", "--force", "--create", "--force-create"),
    "restore": ("--source", "--staged", "--worktree", "--pathspec-from-file"),
    "clean": ("--force", "--interactive", "--dry-run"),
    "branch": ("--delete", "--force"),
    "rm": ("--force", "--cached"),
    "worktree": ("--force",),
    "checkout-index": ("--force", "--all", "--prefix", "--stdin"),
    "read-tree": ("--reset",),
    "merge": ("--abort",),
    "rebase": ("--abort",),
    "cherry-pick": ("--abort",),
    "revert": ("--abort",),
    "am": ("--abort",),
}
# Short options that take a value, per subcommand ("-cname", "-s HEAD", "-U3").
_SHORT_VALUED: dict[str, str] = {
    "switch": "cC",
    "checkout": "bB",
    "restore": "sU",
    "push": "o",
    "clean": "e",
    "branch": "u",
    "worktree": "b",
}


# Long options that take the next word as their value, per subcommand.
_LONG_VALUED: dict[str, frozenset[str]] = {
    "checkout": frozenset(
        {"--conflict", "--inter-hunk-context", "--unified", "--pathspec-from-file", "--orphan"}
    ),
    "restore": frozenset(
        {"--source", "--conflict", "--inter-hunk-context", "--unified", "--pathspec-from-file"}
    ),
    "switch": frozenset({"--create", "--force-create", "--orphan", "--conflict"}),
    "push": frozenset({"--repo", "--push-option", "--receive-pack", "--exec"}),
    "checkout-index": frozenset({"--prefix", "--stage"}),
    "read-tree": frozenset({"--prefix", "--index-output", "--exclude-per-directory"}),
}


def _takes_value(sub: str, word: str) -> bool:
    return word in {"-" + ch for ch in _SHORT_VALUED.get(sub, "")} or word in _LONG_VALUED.get(
        sub, frozenset()
    )


def normalise(sub: str, args: list[str]) -> list[str]:
    """``args`` as git reads them: abbreviations expanded, short clusters split.

    ``-qf`` is ``-q -f``; a valued short option takes the rest of its cluster
    or the next word (``-cfeature`` is ``-c feature``, so its letters are not
    flags); after ``--`` nothing is an option.
    """
    known = _LONG.get(sub, ())
    valued = _SHORT_VALUED.get(sub, "")
    out: list[str] = []
    i = 0
    while i < len(args):
        a = args[i]
        i += 1
        if a == "--":
            out.extend(args[i - 1 :])
            break
        if a.startswith("--") and len(a) > 3:
            name, eq, value = a.partition("=")
            if name not in known:
                name = next((k for k in known if k.startswith(name)), name)
            out.append(name + eq + value)
        elif a.startswith("-") and len(a) > 1:
            for k, ch in enumerate(a[1:], 1):
                out.append("-" + ch)
                if ch in valued:
                    rest = a[k + 1 :]
                    if rest:
                        out.append(rest)
                    elif i < len(args):
                        out.append(args[i])
                        i += 1
                    break
        else:
            out.append(a)
    return out


def _positional(sub: str, args: list[str]) -> list[str]:
    """Non-option words of normalised ``args`` (values of valued options left out)."""
    out: list[str] = []
    skip = False
    for k, a in enumerate(args):
        if a == "--":
            return out + args[k + 1 :]
        if skip:
            skip = False
        elif _takes_value(sub, a):
            skip = True
        elif not a.startswith("-") or a == "-":
            out.append(a)
    return out


def git(cmd: Cmd, where: Where) -> list[Hit]:
    sub, args = _sub(cmd)
    if sub == "add":
        return _add(cmd, args, where)
    check = _SUBCOMMANDS.get(sub)
    return check(cmd, normalise(sub, args)) if check else []


def _add(cmd: Cmd, args: list[str], where: Where) -> list[Hit]:
    """``git add`` of a credential file: forced past .gitignore (``-f``), or a key or
    credentials file of any kind.  A plain ``git add .env`` is left alone: a project may
    track a ``.env`` of public defaults (Vite does), and git honours .gitignore."""
    from agentreflex.gate.shell.paths import classify, is_secret_file

    flags = _flags(args)
    forced = "-f" in flags or "--force" in flags
    paths = args[args.index("--") + 1 :] if "--" in args else [a for a in args if a[:1] != "-"]
    for path in paths:
        full = classify(path, where, cmd.cwd)[1]
        base = full.rstrip("/").rsplit("/", 1)[-1]
        if is_secret_file(full) and (forced or not base.startswith(".env")):
            return [
                Hit(
                    "GATE-SECRET-WRITE",
                    SECRET,
                    P_BLOCK,
                    cmd.text,
                    f"This stages {path} (a credential) into git: once committed it stays "
                    "in the history, and once pushed everyone who can read the repository "
                    "has it (it must then be rotated). Keep it ignored, and commit a "
                    ".example file with placeholders instead.",
                )
            ]
    return []


def _reset(cmd: Cmd, args: list[str]) -> list[Hit]:
    if any(a in ("--hard", "--merge") for a in args):
        return [
            Hit.destructive(
                "GATE-GIT-RESET-HARD",
                P_BLOCK,
                cmd,
                "git reset --hard throws away uncommitted work. Commit or stash first, or "
                "use git reset --soft / git restore --staged.",
            )
        ]
    return []


def _checkout(cmd: Cmd, args: list[str]) -> list[Hit]:
    flags = _flags(_without_values("checkout", args))
    if "-f" in flags or "--force" in flags:
        return _discard(cmd, "git checkout --force")
    if "-b" in flags or "-B" in flags or "--orphan" in flags:
        return []
    if "--pathspec-from-file" in flags:
        return _discard(cmd, "git checkout --pathspec-from-file")
    if "-t" in flags or "--track" in flags:
        return []  # git refuses --track together with paths: it only switches branches
    if "--" in args:
        paths = args[args.index("--") + 1 :]
        return _discard(cmd, "git checkout -- <paths>", paths) if paths else []
    if any(a in (".", ":/", "*", "./") for a in args):
        return _discard(cmd, "git checkout .")
    words = _positional("checkout", args)
    if len(words) == 2 and "--recurse-submodules" in args and words[0] in _SUBMODULE_MODES:
        # "--recurse-submodules checkout main": the mode, misplaced (no branch has that name)
        return []
    if len(words) >= 2:  # <tree-ish> <pathspec>...: the files are overwritten
        return _discard(cmd, "git checkout <ref> <paths>", words[1:])
    if len(words) == 1 and _names_a_file(cmd.cwd, words[0]):
        # "git checkout src/app.py": no branch of that name, so git restores the file
        from agentreflex.gate.rules import worktree

        if not worktree.is_ref(cmd.cwd, words[0]):
            return _discard(cmd, "git checkout <paths>", words)
    return []


def _names_a_file(cwd: str, word: str) -> bool:
    """Whether ``word`` is an existing file or folder below ``cwd`` (cheap: no git run)."""
    import os

    if not cwd or has_marker(cwd) or has_marker(word) or word.startswith("-"):
        return False
    return os.path.lexists(os.path.join(cwd, word))


_SUBMODULE_MODES = frozenset({"checkout", "on-demand"})


def _restore(cmd: Cmd, args: list[str]) -> list[Hit]:
    bare = _without_values("restore", args)
    flags = _flags(bare)
    said: dict[str, bool] = {}
    for a in bare[: bare.index("--")] if "--" in bare else bare:
        for name, on, off in (
            ("worktree", ("-W", "--worktree"), "--no-worktree"),
            ("staged", ("-S", "--staged"), "--no-staged"),
        ):
            if a in on or a == off:
                said[name] = a in on
    if said.get("worktree") is False or (said.get("staged") and not said.get("worktree")):
        return []  # the index only: nothing in the work tree is lost
    if "--pathspec-from-file" in flags:
        return _discard(cmd, "git restore --pathspec-from-file")
    paths = _positional("restore", args)
    patch = [a for a in bare if a in ("-p", "--patch", "--no-patch")][-1:]
    if not paths and patch and patch != ["--no-patch"]:
        return _discard(cmd, "git restore --patch", ["."])  # hunks of every changed file
    return _discard(cmd, "git restore", paths) if paths else []


def _without_values(sub: str, args: list[str]) -> list[str]:
    """Normalised ``args`` without the values of valued options."""
    out: list[str] = []
    skip = False
    for a in args:
        if skip:
            skip = False
            continue
        skip = _takes_value(sub, a)
        out.append(a)
    return out


def _discard(cmd: Cmd, what: str, paths: list[str] | None = None) -> list[Hit]:
    """A discard of the work tree (``paths`` None) or of some files.

    It loses work only if there is uncommitted work there, so the real work
    tree is asked (:mod:`worktree`): clean -> allowed; changed -> blocked;
    unknown -> the whole tree is blocked, files ask.
    """
    from agentreflex.gate.rules import worktree  # only discards pay for the git subprocess

    whole = paths is None or any(p in (".", ":/", "*", "./", ":/*") for p in paths)
    dirty = worktree.uncommitted(cmd.cwd, None if whole else paths)
    if dirty is False:
        return []
    if whole:
        return [
            Hit.destructive(
                "GATE-GIT-DISCARD-TREE",
                P_BLOCK,
                cmd,
                f"{what} discards every uncommitted change in the work tree. Commit or "
                "`git stash` first, or restore only specific files.",
            )
        ]
    if dirty:
        return [
            Hit.destructive(
                "GATE-GIT-DISCARD-FILES",
                P_BLOCK,
                cmd,
                f"{what} throws away uncommitted changes to those files. Commit or "
                "`git stash` them first, or `git diff` them to be sure they are not needed.",
            )
        ]
    return [
        Hit(
            "GATE-GIT-DISCARD-FILES",
            ASK,
            1.0,
            cmd.text,
            f"{what} would throw away any uncommitted changes to those files, and the "
            "work tree could not be checked. Commit or `git stash` them first.",
        )
    ]


def _clean(cmd: Cmd, args: list[str]) -> list[Hit]:
    flags = _flags(args)
    if {"-i", "--interactive", "-n", "--dry-run"} & flags:
        return []  # asks per file (dry runs never reach the rules: see inert.py)
    # -x/-X also delete ignored files (.env, local settings): never narrowed
    if ("-f" in flags or "--force" in flags) and not {"-x", "-X"} & flags and _clean_paths(args):
        return [
            Hit(
                "GATE-GIT-CLEAN",
                DESTRUCTIVE,
                P_WARN,
                cmd.text,
                "git clean -f deletes the untracked files under "
                + ", ".join(_clean_paths(args))
                + " for good (scoped to those paths). Run git clean -n on them first.",
                severity="medium",
            )
        ]
    if ("-f" in flags or "--force" in flags) and {"-x", "-X"} & flags:
        return [
            Hit.destructive(
                "GATE-GIT-CLEAN",
                P_BLOCK,
                cmd,
                "git clean -x/-X also deletes the ignored files (.env, local config, "
                "credentials, caches), and ignored files are never in a snapshot: "
                "`agentreflex undo` cannot bring them back. Run git clean -n with the "
                "same options first to see what would go, then remove the named paths "
                "(build output, say) yourself.",
            )
        ]
    if "-f" in flags or "--force" in flags:
        return [
            Hit.destructive(
                "GATE-GIT-CLEAN",
                P_BLOCK,
                cmd,
                "git clean -f deletes untracked files for good. Run git clean -n to see "
                "what would go, then delete specific paths.",
            )
        ]
    return []


def _clean_paths(args: list[str]) -> list[str]:
    """The pathspecs of ``git clean`` when they narrow it below the whole work tree.

    ``git clean -fd build/`` deletes untracked files of ``build/`` only; ``.``,
    ``:/``, ``*`` or a path leaving the folder mean (up to) everything.
    """
    out: list[str] = []
    skip = False
    for a in args:
        if skip:
            skip = False
        elif a in ("-e", "--exclude"):
            skip = True
        elif a == "--":
            continue
        elif not a.startswith("-"):
            if a.rstrip("/") in ("", ".", ":/", ":", "*", "..") or a.startswith(("..", ":/", ":(")):
                return []
            out.append(a)
    return out


def _stash(cmd: Cmd, args: list[str]) -> list[Hit]:
    if args[:1] in (["drop"], ["clear"]):
        return [
            Hit.destructive(
                "GATE-GIT-STASH-DROP",
                P_BLOCK,
                cmd,
                f"git stash {args[0]} deletes stashed work. Use git stash pop/apply, or "
                "leave the stash.",
            )
        ]
    return []


def _branch(cmd: Cmd, args: list[str]) -> list[Hit]:
    flags = _flags(args)
    deleting = "-d" in flags or "--delete" in flags or "-D" in flags
    forced = "-D" in flags or "-f" in flags or "--force" in flags
    if deleting and forced:
        return [
            Hit.destructive(
                "GATE-GIT-BRANCH-FORCE-DELETE",
                P_BLOCK,
                cmd,
                "git branch -D deletes a branch even if it is not merged. Use git branch -d, "
                "which refuses to lose commits.",
            )
        ]
    moving = ("-f" in flags or "--force" in flags) and not (
        flags & {"-m", "-M", "-c", "-C", "--move", "--copy", "-u", "--set-upstream-to"}
    )
    names = [a for a in args if not a.startswith("-")]
    if moving and len(names) >= 2:
        # git branch -f main HEAD~3: main's newer commits are left only in the reflog
        return [
            Hit(
                "GATE-GIT-BRANCH-FORCE-MOVE",
                ASK,
                1.0,
                cmd.text,
                f"git branch -f moves {names[0]} to {names[1]}; commits only on the old "
                f"{names[0]} are left in the reflog. Create a new branch instead "
                f"(git branch {names[0]}-new {names[1]}), or ask the user.",
            )
        ]
    return []


def _push(cmd: Cmd, args: list[str]) -> list[Hit]:
    flags = _flags(args)
    positional = [a for a in args if not a.startswith("-")]
    refspecs = positional[1:]
    for key, value in settings(cmd.args, cmd.assigns).items():
        hit = _push_setting(cmd, key, value)
        if hit:
            return [hit]
    if "--mirror" in flags:
        return [
            Hit.destructive(
                "GATE-GIT-PUSH-MIRROR",
                P_BLOCK,
                cmd,
                "git push --mirror overwrites and deletes every ref on the remote. Push "
                "specific branches instead.",
            )
        ]
    if (
        "--delete" in flags
        or "-d" in flags
        or any(r.startswith(":") and len(r) > 1 for r in refspecs)
    ):
        return [
            Hit.destructive(
                "GATE-GIT-PUSH-DELETE",
                P_BLOCK,
                cmd,
                "This deletes a branch or tag on the remote. Ask the user to do it.",
            )
        ]
    if "--prune" in flags:
        return [
            Hit.destructive(
                "GATE-GIT-PUSH-DELETE",
                P_BLOCK,
                cmd,
                "git push --prune deletes remote branches that do not exist locally.",
            )
        ]
    lease = any(f.startswith("--force-with-lease") for f in flags)
    forced = (
        "-f" in flags or "--force" in flags or any(r.startswith("+") or ":+" in r for r in refspecs)
    )
    targets = [_target_branch(r) for r in refspecs[:]]
    if forced and targets and all(t in _GENERATED_BRANCHES for t in targets):
        return [
            Hit.destructive(
                "GATE-GIT-FORCE-PUSH",
                P_WARN,
                cmd,
                "This force-pushes a branch of generated output (a published site); "
                "its old history is replaced, which is how site deploys work.",
            )
        ]
    if forced:
        return [
            Hit.destructive(
                "GATE-GIT-FORCE-PUSH",
                P_BLOCK,
                cmd,
                "This force-pushes and can overwrite others' commits on the remote. Use "
                "git push --force-with-lease on your own feature branch, or a new branch.",
            )
        ]
    if lease and any(_target_branch(r) in _PROTECTED for r in refspecs):
        return [
            Hit.destructive(
                "GATE-GIT-FORCE-PUSH-PROTECTED",
                P_WARN,
                cmd,
                "This rewrites a shared branch (main/master). Rewrite a feature branch instead.",
            )
        ]
    if positional:
        url = positional[0]
        if not _is_address(url):  # git -c remote.x.url=URL push x
            url = settings(cmd.args, cmd.assigns).get(f"remote.{positional[0]}.url", "")
        if _is_address(url):
            return [_elsewhere(cmd, url)]
    if refspecs == [":"]:
        return [
            Hit.destructive(
                "GATE-GIT-PUSH-MATCHING",
                P_WARN,
                cmd,
                "git push <remote> : pushes every matching branch. Push one branch.",
            )
        ]
    return []


def _elsewhere(cmd: Cmd, url: str) -> Hit:
    return Hit(
        "GATE-GIT-PUSH-ELSEWHERE",
        ASK,
        1.0,
        cmd.text,
        f"This pushes the repository's history to {url}, an address the command line "
        "itself names rather than a remote already configured: everything ever committed "
        "(secrets included) goes where nobody set up. Ask the user, or push to a remote "
        "they added.",
    )


def pointed_pushes(cmds: list[Cmd]) -> list[Hit]:
    """``git remote add NAME URL`` (or ``set-url``) and then ``git push NAME`` in one
    command line: the push goes to an address the line itself chose, as
    ``git push URL`` does (a remote added and only fetched from is fine)."""
    pointed: dict[str, str] = {}
    hits: list[Hit] = []
    for cmd in cmds:
        if cmd.name != "git":
            continue
        sub, args = _sub(cmd)
        words = _positional(sub, normalise(sub, args))
        if sub == "remote" and words[:1] in (["add"], ["set-url"]) and len(words) >= 3:
            if _is_address(words[2]):
                pointed[words[1]] = words[2]
            else:
                pointed.pop(words[1], None)
        elif sub == "push" and words[:1] and words[0] in pointed:
            hits.append(_elsewhere(cmd, pointed[words[0]]))
    return hits


_SCP_ADDRESS = LazyPattern(r"^(?:[\w.-]+@[\w.-]+|[\w-]+(?:\.[\w-]+)+):", hints=":")


def _is_address(repository: str) -> bool:
    """Whether ``git push REPOSITORY`` names another machine by address (a URL with a
    scheme other than ``file``, or scp-style ``user@host:path``) rather than a
    configured remote or a folder on this machine."""
    scheme, sep, _ = repository.partition("://")
    if sep:
        return scheme.lower() != "file"
    return bool(_SCP_ADDRESS.search(repository))


def _push_setting(cmd: Cmd, key: str, value: str) -> Hit | None:
    """A remote's setting that makes a plain ``git push`` force or mirror:
    ``remote.NAME.mirror=true`` (every ref overwritten, others deleted) and a
    ``remote.NAME.push`` refspec with ``+`` (a forced update)."""
    if not key.startswith("remote."):
        return None
    if key.endswith(".mirror") and value.strip().lower() in ("true", "yes", "on", "1"):
        return Hit.destructive(
            "GATE-GIT-PUSH-MIRROR",
            P_BLOCK,
            cmd,
            f"{key}=true makes git push a mirror push, which overwrites and deletes every "
            "ref on the remote. Push specific branches instead.",
        )
    if key.endswith(".push") and (value.startswith("+") or ":+" in value):
        return Hit.destructive(
            "GATE-GIT-FORCE-PUSH",
            P_BLOCK,
            cmd,
            f"{key}={value} makes git push force-push, which can overwrite others' commits "
            "on the remote. Use git push --force-with-lease on your own feature branch, "
            "or a new branch.",
        )
    return None


_CONFIG_VALUED = frozenset({"-f", "--file", "--blob", "--type", "--default", "--comment"})


def _config(cmd: Cmd, args: list[str]) -> list[Hit]:
    """``git config [scope] KEY VALUE`` (or ``git config set KEY VALUE``) storing a setting
    that turns a later plain command destructive: an alias that expands to one
    (``alias.pf 'push --force'``: the later ``git pf`` names nothing the gate knows),
    a forced ``remote.NAME.push`` refspec or ``remote.NAME.mirror``."""
    words = positional(args, _CONFIG_VALUED)
    if words[:1] == ["set"]:
        words = words[1:]
    if len(words) < 2:
        return []
    key, value = _key(words[0]), words[1]
    hit = _push_setting(cmd, key, value)
    if hit:
        return [hit]
    if key.startswith("alias.") and not value.startswith("!"):
        expansion = _split_words(value)
        check = _SUBCOMMANDS.get(expansion[0]) if expansion else None
        if check is not None and expansion[0] != "config":
            return [
                Hit(
                    h.rule,
                    h.category,
                    h.probability,
                    h.segment,
                    f"This stores the alias git {key[len('alias.') :]} = git {value}, "
                    f"which every later use runs under a name the gate cannot read. {h.message}",
                    h.severity,
                )
                for h in check(cmd, normalise(expansion[0], expansion[1:]))
            ]
    return []


# Branches that hold generated output by convention, rebuilt on every deploy and
# force-pushed by the deploy tools themselves (gh-pages, `mkdocs gh-deploy --force`).
_GENERATED_BRANCHES = frozenset({"gh-pages"})


def _target_branch(refspec: str) -> str:
    dst = refspec.rsplit(":", 1)[-1].lstrip("+")
    return dst.removeprefix("refs/heads/")


def _history(cmd: Cmd, args: list[str]) -> list[Hit]:
    return [
        Hit.destructive(
            "GATE-GIT-REWRITE-HISTORY",
            P_BLOCK,
            cmd,
            "This rewrites the repository's whole history. Ask the user first.",
        )
    ]


def _reflog(cmd: Cmd, args: list[str]) -> list[Hit]:
    if args[:1] in (["expire"], ["delete"]):
        return [
            Hit.destructive(
                "GATE-GIT-REFLOG-EXPIRE",
                P_BLOCK,
                cmd,
                "Expiring the reflog removes the only way back to lost commits.",
            )
        ]
    return []


def _gc(cmd: Cmd, args: list[str]) -> list[Hit]:
    if any(a in ("--prune=now", "--prune=all") or a == "--prune" for a in args):
        return [
            Hit.destructive(
                "GATE-GIT-GC-PRUNE",
                P_BLOCK,
                cmd,
                "git gc --prune=now deletes unreachable commits immediately. Use plain git gc.",
            )
        ]
    return []


def _update_ref(cmd: Cmd, args: list[str]) -> list[Hit]:
    if "-d" in args or "--stdin" in args:
        return [
            Hit.destructive(
                "GATE-GIT-UPDATE-REF-DELETE",
                P_BLOCK,
                cmd,
                "git update-ref -d deletes a ref directly. Use git branch -d.",
            )
        ]
    return []


def _worktree(cmd: Cmd, args: list[str]) -> list[Hit]:
    if args[:1] != ["remove"] or not ({"-f", "--force"} & _flags(args)):
        return []
    import os.path

    from agentreflex.gate.rules import worktree

    target = next((a for a in _positional("worktree", args[1:])), "")
    folder = os.path.normpath(os.path.join(cmd.cwd, target)) if target else ""
    dirty = worktree.uncommitted(folder, untracked=True) if folder else None
    if dirty is False:
        return []
    what = "has uncommitted changes" if dirty else "may hold uncommitted changes"
    return [
        Hit(
            "GATE-GIT-WORKTREE-FORCE-REMOVE",
            DESTRUCTIVE if dirty else ASK,
            P_BLOCK if dirty else 1.0,
            cmd.text,
            f"git worktree remove --force deletes that worktree, which {what} or "
            "untracked files. Commit them, or remove it without --force.",
        )
    ]


def _rm(cmd: Cmd, args: list[str]) -> list[Hit]:
    flags = _flags(args)
    if "--cached" in flags or not ({"-f", "--force"} & flags):
        return []  # without --force git refuses to remove files with changes
    paths = _positional("rm", args)
    return _discard(cmd, "git rm --force", paths) if paths else []


def _abort(cmd: Cmd, args: list[str]) -> list[Hit]:
    """``git merge|rebase|cherry-pick --abort``: back to before it started.

    Like ``reset --merge``, it throws away what was done in the work tree since
    (conflict resolutions, edits): asked when the work tree has changes or cannot
    be checked, allowed when it is clean.
    """
    from agentreflex.gate.rules import worktree  # only aborts pay for the git subprocess

    if "--abort" not in args or worktree.uncommitted(cmd.cwd, None) is False:
        return []
    sub = _sub(cmd)[0]
    return [
        Hit(
            "GATE-GIT-ABORT",
            ASK,
            1.0,
            cmd.text,
            f"git {sub} --abort resets the work tree to before the {sub}: conflict "
            "resolutions and changes made since are discarded. Commit or stash what "
            f"should be kept, or use git {sub} --quit to stop and keep the work tree.",
        )
    ]


def _tag(cmd: Cmd, args: list[str]) -> list[Hit]:
    return []


def _checkout_index(cmd: Cmd, args: list[str]) -> list[Hit]:
    """``git checkout-index --force``: the index's files written over the work tree's, as
    ``git checkout -- PATH`` does (https://git-scm.com/docs/git-checkout-index); ``--all``
    (or ``--stdin``, paths unseen) every file.  Without ``--force`` an existing file is
    kept; with a ``--prefix`` other than the work tree the files go elsewhere (an export)."""
    bare = _without_values("checkout-index", args)
    flags = _flags(bare)
    if not {"-f", "--force"} & flags:
        return []
    prefix = _value_of("--prefix", args)
    if prefix not in (None, "", ".", "./"):
        return []
    if {"-a", "--all", "--stdin"} & flags:
        return _discard(cmd, "git checkout-index --force --all")
    paths = _positional("checkout-index", args)
    return _discard(cmd, "git checkout-index --force", paths) if paths else []


def _value_of(option: str, args: list[str]) -> str | None:
    """The value of a long ``option`` (``--opt=V`` or ``--opt V``; the last one), or None."""
    found: str | None = None
    for k, a in enumerate(args):
        if a == "--":
            break
        if a.startswith(option + "="):
            found = a[len(option) + 1 :]
        elif a == option and k + 1 < len(args):
            found = args[k + 1]
    return found


def _read_tree(cmd: Cmd, args: list[str]) -> list[Hit]:
    """``git read-tree -u --reset TREE``: the tree read into the index and the work tree
    updated with local changes discarded (https://git-scm.com/docs/git-read-tree: --reset
    "discards unmerged entries", -u updates the files); ``-m -u`` refuses to lose them."""
    flags = _flags(_without_values("read-tree", args))
    if "-u" in flags and "--reset" in flags:
        return _discard(cmd, "git read-tree -u --reset")
    return []


def _switch(cmd: Cmd, args: list[str]) -> list[Hit]:
    flags = _flags(_without_values("switch", args))
    if "--discard-changes" in flags or "-f" in flags or "--force" in flags:
        return _discard(cmd, "git switch --discard-changes")
    return []


_SUBCOMMANDS = {
    "reset": _reset,
    "checkout": _checkout,
    "restore": _restore,
    "switch": _switch,
    "checkout-index": _checkout_index,
    "read-tree": _read_tree,
    "clean": _clean,
    "stash": _stash,
    "branch": _branch,
    "push": _push,
    "send-pack": _push,  # the plumbing under push: [--force] [--mirror] REMOTE REFS...
    "config": _config,
    "filter-branch": _history,
    "filter-repo": _history,
    "reflog": _reflog,
    "gc": _gc,
    "update-ref": _update_ref,
    "worktree": _worktree,
    "tag": _tag,
    "rm": _rm,
    "merge": _abort,
    "rebase": _abort,
    "cherry-pick": _abort,
    "revert": _abort,
    "am": _abort,
}
