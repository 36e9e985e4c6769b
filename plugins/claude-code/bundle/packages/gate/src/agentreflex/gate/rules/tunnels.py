"""Tunnels that put a login port of this machine on the internet.

``ngrok tcp 22``, ``cloudflared tunnel --url ssh://localhost:22``, ``bore local 22 --to
bore.pub``, ``lt --port 5432``, ``pinggy -R0:localhost:22`` and ``ssh -R 0.0.0.0:2222:localhost:22 host`` (or ``ssh
-R 80:localhost:22 serveo.net``, a service that publishes every forward) give the
world an address that reaches this machine's SSH, remote desktop, database or
container API (``ngrok start NAME`` runs the tunnels of ngrok's config file, judged
when that file is in the project), from where anyone who finds it can try logins and known exploits.
Attackers use exactly these tools for a way in that passes the firewall (Sigma's
"Communication To Ngrok Tunneling Service", https://detection.fyi/sigmahq/sigma/linux/
network_connection/net_connection_lnx_ngrok_tunnel, cites ngrok's SSH reverse tunnel;
Elastic's "Potential Protocol Tunneling via Cloudflared", https://detection.fyi/elastic/
detection-rules/windows/command_and_control_tunnel_cloudflared; Proofpoint on
TryCloudflare tunnels in malware campaigns, 2024).

The everyday dev preview of a web app (``ngrok http 3000``, ``cloudflared tunnel --url
http://localhost:8080``, ``lt --port 3000``, ``ssh -R 80:localhost:3000 serveo.net``) and
a reverse forward bound to the remote host's loopback (``ssh -R 2222:localhost:22 host``,
sshd's default GatewayPorts no, https://man.openbsd.org/sshd_config#GatewayPorts) stay
allowed.
"""

from __future__ import annotations

from agentreflex.gate.model import ASK, Cmd, Hit
from agentreflex.gate.shell.paths import Where

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable

# Ports whose service is a login or a store, not a web page (the service's IANA/default port).
_EXPOSED_PORTS: dict[str, str] = {
    "22": "SSH",
    "23": "telnet",
    "3389": "remote desktop (RDP)",
    "5900": "VNC",
    "5901": "VNC",
    "2375": "the Docker API",
    "2376": "the Docker API",
    "445": "file sharing (SMB)",
    "3306": "the MySQL database",
    "5432": "the PostgreSQL database",
    "1433": "the SQL Server database",
    "1521": "the Oracle database",
    "27017": "the MongoDB database",
    "6379": "Redis",
    "9200": "Elasticsearch",
    "11211": "memcached",
    "2379": "etcd",
    "6443": "the Kubernetes API",
    "10250": "the kubelet",
}
_EXPOSED_SCHEMES: dict[str, str] = {
    "ssh": "SSH",
    "rdp": "remote desktop (RDP)",
    "smb": "file sharing (SMB)",
}
# Services that publish every reverse forward on the internet, whatever the bind address.
_PUBLIC_RELAYS = ("serveo.net", "localhost.run", "pinggy.io", "a.pinggy.io", "srv.us")
_LOOPBACK = ("localhost", "127.0.0.1", "::1", "[::1]")  # an empty bind is every interface
# ssh's options that take a value (OpenSSH 9 ssh(1) synopsis; autossh adds -M).
_SSH_VALUED = "BbcDEeFIiJLlMmOoPpQRSWw"
# ngrok's and bore's options that take no value.
_SWITCHES = frozenset({"-h", "--help", "--inspect", "--verbose", "-v"})


def exposed(cmd: Cmd, where: Where) -> list[Hit]:
    """A tunnel that publishes a login or database port of this machine."""
    name, args = cmd.name, cmd.args
    what, via = "", name
    if name == "ngrok" and args[:1] in (["tcp"], ["tls"], ["http"]):
        what = _first(_service(w) for w in _positionals(args[1:]))
    elif name == "ngrok" and args[:1] == ["start"]:
        what, via = _ngrok_start(cmd, where)
    elif name == "cloudflared" and "access" not in args:  # access: the client's listener
        what = _first(_service(v) for v in _values(args, "--url"))
    elif name == "bore" and args[:1] == ["local"]:
        what = _first(_service(w) for w in _positionals(args[1:]))
    elif name in ("lt", "localtunnel"):
        what = _first(_service(v) for v in _values(args, "--port", "-p"))
    elif name in ("ssh", "autossh"):
        what, via = _ssh_remote_forward(args)
    elif name == "pinggy":
        what = _pinggy(args)
        via = "pinggy (its relay publishes every forward)"
    if not what:
        return []
    return [
        Hit(
            "GATE-TUNNEL-EXPOSE",
            ASK,
            1.0,
            cmd.text,
            f"This puts {what} of this machine on the internet through {via}: anyone who "
            "finds the address can reach it and try logins and exploits against it "
            "(public tunnel addresses are scanned). To share a web app, tunnel only its "
            "HTTP port (ngrok http 3000); remote access to this machine is for the user "
            "to set up (ssh keys behind a VPN).",
        )
    ]


def _ngrok_start(cmd: Cmd, where: Where) -> tuple[str, str]:
    """``ngrok start NAME...`` / ``ngrok start --all``: the tunnels named in the
    ``--config`` files (comma-separated or repeated, later ones win per name,
    https://ngrok.com/docs/agent/config/) that lie in the project, read bounded.
    ngrok's own config in the home is not read: a start that names no project file
    stays allowed, as one whose file cannot be read does."""
    from agentreflex.gate.code import scripts  # only for ngrok start
    from agentreflex.gate.shell.paths import resolve

    args = cmd.args[1:]
    names = set(_positionals([a for a in args if a not in ("--all", "--none")]))
    every = "--all" in args
    tunnels: dict[str, str] = {}
    for value in _values(args, "--config"):
        for path in value.split(","):
            full = resolve(path, where, cmd.cwd) if path else ""
            if not full or not (
                full == where.project or full.startswith(where.project.rstrip("/") + "/")
            ):
                continue
            text = scripts.read(full)
            if text is not None and text != scripts.UNREADABLE:
                tunnels.update(_ngrok_tunnels(text))
    for tunnel, addr in tunnels.items():
        what = _service(addr) if (every or tunnel in names) else ""
        if what:
            return what, f"ngrok's tunnel {tunnel!r} ({addr})"
    return "", ""


def _ngrok_tunnels(text: str) -> dict[str, str]:
    """Each tunnel's local address in an ngrok agent config (YAML, the subset ngrok's
    docs write): v2 ``tunnels: NAME: {proto, addr}``, v3 ``endpoints: - name: NAME
    upstream: {url}`` (https://ngrok.com/docs/agent/config/v2/, .../config/v3/)."""
    out: dict[str, str] = {}
    section, name, name_indent, upstream_indent = "", "", -1, -1
    item: dict[str, str] = {}  # the v3 endpoint being read: its name and upstream url

    def flush() -> None:
        if item.get("url"):
            out[item.get("name", "")] = item["url"]
        item.clear()

    for raw in text.splitlines():
        line = raw.split(" #", 1)[0].rstrip()
        body = line.lstrip(" ")
        if not body or body.startswith("#"):
            continue
        indent = len(line) - len(body)
        if indent == 0:
            flush()
            section = body.rstrip(":") if body.endswith(":") else ""
            name, name_indent, upstream_indent = "", -1, -1
            continue
        if body.startswith("- "):
            flush()
            body, indent = body[2:].lstrip(), indent + 2
            name_indent, upstream_indent = indent, -1
        key, sep, value = body.partition(":")
        key, value = key.strip().strip("'\""), value.strip().strip("'\"")
        if not sep:
            continue
        if section == "tunnels":
            if name_indent < 0 or indent <= name_indent:
                name, name_indent = key, indent
            elif key == "addr" and value:
                out[name] = value
        elif section == "endpoints":
            if upstream_indent >= 0 and indent <= upstream_indent:
                upstream_indent = -1
            if key == "name" and indent == name_indent:
                item["name"] = value
            elif key == "upstream":
                upstream_indent = indent
            elif key == "url" and upstream_indent >= 0 and value:
                item["url"] = value
    flush()
    return out


def _service(value: str) -> str:
    """What a tunnel target (``22``, ``localhost:5432``, ``ssh://localhost:22``) serves,
    when it is a login or database port; ``""`` for a web app."""
    scheme, sep, rest = value.partition("://")
    if sep and scheme.lower() in _EXPOSED_SCHEMES:
        return _EXPOSED_SCHEMES[scheme.lower()]
    host_port = rest if sep else value
    port = host_port.split("/", 1)[0].rsplit(":", 1)[-1]
    return _EXPOSED_PORTS.get(port, "")


def _first(found: Iterable[str]) -> str:
    return next((f for f in found if f), "")


def _positionals(args: list[str]) -> list[str]:
    """The words that are no option nor an option's value (``--region eu``, ``--to
    bore.pub``: the tunnels' options other than switches all take one)."""
    out, k = [], 0
    while k < len(args):
        a = args[k]
        if a[:1] == "-":
            if "=" not in a and a not in _SWITCHES:
                k += 1
        else:
            out.append(a)
        k += 1
    return out


def _values(args: list[str], *options: str) -> list[str]:
    out = []
    for k, a in enumerate(args):
        for opt in options:
            if a == opt and k + 1 < len(args):
                out.append(args[k + 1])
            elif a.startswith(opt + "="):
                out.append(a[len(opt) + 1 :])
    return out


def _pinggy(args: list[str]) -> str:
    """Pinggy's own CLI (``npm install -g pinggy``) takes ssh's forwarding spelling,
    ``pinggy -R0:localhost:22 tcp@free.pinggy.io``, or ``-l/--localport
    [protocol:][host:]port`` (https://github.com/Pinggy-io/cli-js#usage); every
    forward goes to pinggy's relay, which publishes it, as ``ssh ... a.pinggy.io`` does."""
    targets: list[str] = []
    for k, a in enumerate(args):
        for opt in ("-R", "--R"):
            if a == opt and k + 1 < len(args):
                targets.append(args[k + 1].split(":")[-1] if args[k + 1].count(":") >= 2 else "")
            elif a.startswith(opt) and a[len(opt) :][:1] not in ("", "-"):
                spec = a[len(opt) :].lstrip("=")
                targets.append(spec.split(":")[-1] if spec.count(":") >= 2 else "")
    targets += _values(args, "-l", "--localport")
    return _first(_service(t) for t in targets if t)


def _ssh_remote_forward(args: list[str]) -> tuple[str, str]:
    """``ssh -R [bind:]port:host:hostport DEST`` forwarding a login port where the
    internet reaches it: bound to every interface (``0.0.0.0``, ``*``, an empty or
    public address) or through a relay that publishes it (serveo.net)."""
    forwards: list[str] = []
    dest = ""
    k = 0
    while k < len(args):
        a = args[k]
        if a == "--":
            dest = args[k + 1] if k + 1 < len(args) else ""
            break
        if a[:1] == "-" and len(a) > 1:
            for j, flag in enumerate(a[1:], 1):
                if flag in _SSH_VALUED:
                    value = a[j + 1 :] or (args[k + 1] if k + 1 < len(args) else "")
                    if not a[j + 1 :]:
                        k += 1
                    if flag == "R":
                        forwards.append(value)
                    elif flag == "o" and value.lower().startswith("remoteforward"):
                        # RemoteForward [bind:]port host:hostport (ssh_config(5)): one spec
                        forwards.append(":".join(value[len("remoteforward") :].strip(" =").split()))
                    break
            k += 1
            continue
        dest = a
        break
    host = dest.rsplit("@", 1)[-1].lower()
    relay = host in _PUBLIC_RELAYS or host.endswith(tuple("." + r for r in _PUBLIC_RELAYS))
    for spec in forwards:
        parts = spec.split(":")
        if len(parts) < 3:
            continue  # -R port (a SOCKS proxy) or port:socket: no local service named
        bind = parts[0] if len(parts) >= 4 else ""
        what = _service(parts[-1])
        public = relay or (len(parts) >= 4 and bind not in _LOOPBACK)
        if what and public:
            return what, "ssh -R" + (f" to {host}" if relay else f" on {bind or 'every interface'}")
    return "", ""
