"""Peel off the commands that only run another command.

``sudo -u x timeout 5 nice -n 10 env -i FOO=1 rm -rf /`` runs ``rm``.  Each
wrapper's own options are skipped with their values, so ``timeout -s KILL
5 rm`` does not mistake ``KILL`` for the command.  ``command -v``/``-V``
only *looks up* a name and is data, not execution.
"""

from __future__ import annotations

import posixpath

from agentreflex.core.util.record import field, record
from agentreflex.gate.shell import pkgrunners
from agentreflex.gate.shell.argv import option_values

# wrapper -> options that take a value (as separate words)
_VALUED: dict[str, frozenset[str]] = {
    "sudo": frozenset(
        {
            "-u",
            "-g",
            "-h",
            "-p",
            "-C",
            "-D",
            "-r",
            "-t",
            "-U",
            "-T",
            "--user",
            "--group",
            "--chdir",
            "--prompt",
            "--host",
            "--close-from",
        }
    ),
    "doas": frozenset({"-u", "-C"}),
    "nice": frozenset({"-n", "--adjustment"}),
    "ionice": frozenset({"-c", "-n", "-p", "-t", "--class", "--classdata"}),
    "timeout": frozenset({"-s", "-k", "--signal", "--kill-after"}),
    "gtimeout": frozenset({"-s", "-k", "--signal", "--kill-after"}),
    "stdbuf": frozenset({"-i", "-o", "-e"}),
    "exec": frozenset({"-a"}),
    "nohup": frozenset(),
    "builtin": frozenset(),
    "command": frozenset(),
    "time": frozenset({"-o", "-f", "--output", "--format"}),
    "setsid": frozenset(),
    "unbuffer": frozenset(),
    "caffeinate": frozenset({"-t", "-w"}),
    "taskset": frozenset(),
    "chrt": frozenset(),
    "runuser": frozenset({"-u", "-g", "-G", "--user", "--group"}),
    "torsocks": frozenset(),
    "proxychains": frozenset({"-f"}),
    "proxychains4": frozenset({"-f"}),
    "xvfb-run": frozenset({"-n", "-s", "-f", "-e", "-p"}),
    "catchsegv": frozenset(),
    "rlwrap": frozenset(),
    "systemd-run": frozenset(
        {
            "-u",
            "--unit",
            "-p",
            "--property",
            "-E",
            "--setenv",
            "--uid",
            "--gid",
            "--nice",
            "-M",
            "--machine",
            "-H",
            "--host",
            "--description",
            "--slice",
            "--working-directory",
            "-d",
            "--on-active",
            "--on-calendar",
            "--timer-property",
        }
    ),
    "unshare": frozenset(
        {
            "-S",
            "--setuid",
            "-G",
            "--setgid",
            "--propagation",
            "-R",
            "--root",
            "-w",
            "--wd",
            "--map-user",
            "--map-group",
        }
    ),
    "nsenter": frozenset({"-t", "--target", "-S", "--setuid", "-G", "--setgid"}),
    "strace": frozenset(
        {"-e", "-o", "-p", "-s", "-u", "-E", "-a", "-b", "-I", "-O", "-P", "-X", "-S", "-U"}
    ),
    "ltrace": frozenset({"-e", "-o", "-p", "-s", "-u", "-n", "-a", "-A", "-D", "-F", "-l", "-w"}),
    "fakeroot": frozenset({"-l", "--lib", "--faked", "-s", "-i", "-b"}),
    "pkexec": frozenset({"--user", "-u"}),
    "firejail": frozenset(),
    # run the command on the host, outside a Flatpak or a toolbox/distrobox container
    "flatpak-spawn": frozenset(),
    "host-spawn": frozenset({"-cwd", "-env"}),
    "distrobox-host-exec": frozenset(),
}
# take positional words before the command: (wrapper, how many)
_POSITIONAL = {"timeout": 1, "gtimeout": 1, "taskset": 1, "chrt": 1, "flock": 1, "chroot": 1}


@record
class Peeled:
    """The command left after wrappers, plus what the wrappers said."""

    argv: list[str]
    assigns: dict[str, str] = field(default_factory=dict)
    chdir: str = ""
    data: bool = False
    wrappers: list[str] = field(default_factory=list)
    # files the wrappers write themselves: script's typescript and logs, strace -o
    writes: list[str] = field(default_factory=list)


def peel(argv: list[str], stop_at: frozenset[str] = frozenset()) -> Peeled:
    """Strip wrappers until a real command (or nothing) is left.

    ``stop_at`` names wrappers to keep as the command, for a rule that judges the
    wrapper itself (``env`` alone prints the environment: ``command env``, ``nice env``)."""
    out = Peeled(list(argv))
    for _ in range(32):
        words = out.argv
        if not words:
            return out
        name = words[0].rsplit("/", 1)[-1]
        if name in stop_at:
            return out
        if name == "env":
            out.argv = _peel_env(words[1:], out)
        elif name == "command" and any(w in ("-v", "-V") for w in words[1:2]):
            out.data = True
            return out
        elif (run := pkgrunners.unwrap(name, words[1:])) is not None:
            # npm exec, pnpm -C web exec, bundle exec, poetry -C . run, uvx, npx -c 'CMD'...
            if run.chdir:
                out.chdir = posixpath.join(out.chdir, run.chdir) if out.chdir else run.chdir
            out.argv = run.argv
        elif name in ("busybox", "toybox") and len(words) > 1 and words[1][:1] != "-":
            out.argv = words[1:]  # the applet is the command (busybox wget, busybox sh -c)
        elif name in ("su",) and "-c" in words:
            i = words.index("-c")
            out.argv = ["sh", "-c", *words[i + 1 : i + 2]]
        elif name == "script" and _script_command(words[1:]) is not None:
            out.argv = ["sh", "-c", _script_command(words[1:]) or ""]
            out.writes += _script_files(words[1:])
        elif name in ("watch",):
            rest = _skip_options(words[1:], _WATCH_VALUED)
            options = words[1 : len(words) - len(rest)]
            if any(o in ("-x", "--exec") or _short_has(o, "x") for o in options):
                out.argv = rest  # -x: the words are the command, no shell
            else:  # the words joined by spaces, run by sh -c (quotes inside are lost)
                out.argv = ["sh", "-c", " ".join(rest)] if rest else []
        elif name in _VALUED or name in _POSITIONAL:
            if name == "sudo":
                out.chdir = _sudo_chdir(words[1:]) or out.chdir
            if name in ("strace", "ltrace"):
                out.writes += option_values(words[1:], ("-o", "--output"))
            rest = _skip_options(words[1:], _VALUED.get(name, frozenset()))
            skip = _POSITIONAL.get(name, 0)
            if name == "flock":
                rest = _skip_options(rest[1:], frozenset({"-w", "-E", "--timeout"}))
                skip = 0
            if name == "chroot" and rest:
                rest, skip = rest[1:], 0
            out.argv = rest[skip:]
        else:
            return out
        out.wrappers.append(name)
    return out


# watch's options that take a value (-d/--differences takes one only as -d=x).
_WATCH_VALUED = frozenset({"-n", "--interval", "-q", "--equexit", "-s", "--shotsdir"})


def _short_has(word: str, letter: str) -> bool:
    return word.startswith("-") and not word.startswith("--") and letter in word[1:]


def _script_command(words: list[str]) -> str | None:
    """``script [-q] -c CMD [file]``: the command it runs in a new terminal."""
    for i, w in enumerate(words):
        if w in ("-c", "--command") or (
            w.startswith("-") and not w.startswith("--") and w.endswith("c")
        ):
            return words[i + 1] if i + 1 < len(words) else ""
        if w.startswith("--command="):
            return w.split("=", 1)[1]
    return None


# script's options that take a value; those of them that name a log it writes
_SCRIPT_VALUED = frozenset(
    {"-c", "--command", "-E", "--echo", "-m", "--logging-format", "-o", "--output-limit"}
    | {"-I", "--log-in", "-O", "--log-out", "-B", "--log-io", "-T", "--log-timing"}
)
_SCRIPT_LOGS = ("-I", "--log-in", "-O", "--log-out", "-B", "--log-io", "-T", "--log-timing")


def _script_files(words: list[str]) -> list[str]:
    """The files ``script`` writes: its typescript (the operand) and the logs it is given.
    A cluster takes a value when its last letter does (``-qc CMD``)."""
    named: list[str] = []
    i = 0
    while i < len(words):
        w = words[i]
        if w == "--":
            named += words[i + 1 :]
            break
        if not w.startswith("-") or w == "-":
            named.append(w)
        elif w in _SCRIPT_VALUED or (w[1] != "-" and "-" + w[-1] in _SCRIPT_VALUED):
            i += 1
        i += 1
    return option_values(words, _SCRIPT_LOGS) + named[:1]


def _sudo_chdir(words: list[str]) -> str:
    """The folder ``sudo -D DIR`` / ``--chdir=DIR`` runs the command in ("" if none)."""
    for i, w in enumerate(words):
        if not w.startswith("-") or w == "--":
            return ""
        if w in ("-D", "--chdir") and i + 1 < len(words):
            return words[i + 1]
        if w.startswith("--chdir="):
            return w.split("=", 1)[1]
        if w.startswith("-D") and len(w) > 2:
            return w[2:]
    return ""


def _skip_options(
    words: list[str], valued: frozenset[str], stop_at_dashdash: bool = True
) -> list[str]:
    i = 0
    while i < len(words):
        w = words[i]
        if w == "--" and stop_at_dashdash:
            return words[i + 1 :]
        if not w.startswith("-") or w == "-":
            return words[i:]
        if w in valued and "=" not in w:
            i += 2
            continue
        i += 1
    return []


def _peel_env(words: list[str], out: Peeled) -> list[str]:
    i = 0
    while i < len(words):
        w = words[i]
        key, eq, value = w.partition("=")
        if eq and key in ("--chdir", "--unset", "--split-string", "--argv0", "--default-signal"):
            w, words = key, [*words[:i], key, value, *words[i + 1 :]]
        if w in _ENV_VALUED:
            if i + 1 >= len(words):
                return []
            if w in ("-C", "--chdir"):
                out.chdir = words[i + 1]
            if w in ("-S", "--split-string"):
                return _peel_env([*words[i + 1].split(), *words[i + 2 :]], out)
            i += 2
            continue
        if w[:2] in ("-S", "-C", "-u", "-P") and len(w) > 2 and not w.startswith("--"):
            # a short option with its value attached: -SPATH=/usr/bin, -C/tmp
            return _peel_env([w[:2], w[2:], *words[i + 1 :]], out)
        if w == "--":
            i += 1
            continue
        if w.startswith("-") or w == "-":
            i += 1
            continue
        if "=" in w and not w.startswith("=") and w.split("=", 1)[0].replace("_", "a").isalnum():
            key, _, value = w.partition("=")
            out.assigns[key] = value
            i += 1
            continue
        return words[i:]
    return []


# env's options that take a value (GNU and BSD: -P altpath, -a/--argv0 name)
_ENV_VALUED = frozenset(
    {"-u", "--unset", "-C", "--chdir", "-S", "--split-string", "-P", "-a", "--argv0"}
)
