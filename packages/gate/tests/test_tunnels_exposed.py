"""A tunnel that puts this machine's SSH, remote desktop or a database on the internet asks.

``ngrok tcp 22``, ``cloudflared tunnel --url ssh://localhost:22``, ``bore local 22 --to
bore.pub``, ``npx localtunnel --port 22`` and ``ssh -R 0.0.0.0:2222:localhost:22 host`` /
``ssh -R 80:localhost:22 serveo.net`` were allowed: each gives the world an address that
reaches a login port (Sigma's ngrok rule, https://detection.fyi/sigmahq/sigma/linux/
network_connection/net_connection_lnx_ngrok_tunnel; Elastic's cloudflared rule,
https://detection.fyi/elastic/detection-rules/windows/command_and_control_tunnel_cloudflared;
sshd's GatewayPorts decides whether -R binds beyond loopback,
https://man.openbsd.org/sshd_config#GatewayPorts; serveo.net publishes every -R,
https://unix.stackexchange.com/questions/777352).  The dev preview of a web app
stays allowed.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

Checked = tuple[str, set[str]]


@pytest.mark.parametrize(
    "command",
    [
        "ngrok tcp 22",
        "ngrok tcp localhost:5432",
        "ssh -R 0.0.0.0:2222:localhost:22 host",
        "ssh -R :2222:localhost:22 user@host",
        "ssh -fNR 0.0.0.0:2222:localhost:22 host",
        'ssh -o RemoteForward="0.0.0.0:2222 localhost:22" host',
        "ssh -R 80:localhost:22 serveo.net",
        "ssh -R 0:localhost:5432 nokey@localhost.run",
        "cloudflared tunnel --url ssh://localhost:22",
        "cloudflared tunnel --url=tcp://localhost:3389",
        "bore local 22 --to bore.pub",
        "npx localtunnel --port 22",
        "lt --port 5432",
        # options before the port, wrappers, the legacy cloudflared form, autossh
        "ngrok tcp --region eu 22",
        "nohup ngrok tcp 22 > /dev/null 2>&1 &",
        "npx ngrok tcp 22",
        "bore local --to bore.pub 22",
        "cloudflared --url ssh://localhost:22",
        "autossh -M 0 -R 0.0.0.0:2222:localhost:22 host",
        # pinggy's own CLI takes ssh's -R spelling or -l [protocol:][host:]port, and its
        # relay publishes every forward (https://github.com/Pinggy-io/cli-js#usage)
        "pinggy -R0:localhost:22 tcp@free.pinggy.io",
        "pinggy -R 0:127.0.0.1:5432 tcp@a.pinggy.io",
        "pinggy --type tcp -l localhost:3389",
        "npx pinggy --localport tcp://localhost:22",
    ],
)
def test_a_login_or_database_port_put_online_asks(
    gate_check: Callable[[str], Checked], command: str
) -> None:
    verdict, codes = gate_check(command)
    assert verdict == "ASK_USER" and "GATE-TUNNEL-EXPOSE" in codes, (command, verdict, codes)


@pytest.mark.parametrize(
    "command",
    [
        "ngrok http 3000",
        "ngrok http 8080 --domain example.ngrok.app",
        "cloudflared tunnel --url http://localhost:8080",
        "cloudflared access ssh --hostname ssh.example.com",
        "bore local 3000 --to bore.pub",
        "npx localtunnel --port 3000",
        "ssh -R 80:localhost:3000 serveo.net",
        "ssh -R 2222:localhost:22 host",  # the remote host's loopback only
        "ssh -L 5432:localhost:5432 db.example.com",
        "bore local 3000 --to bore.pub --port 22",  # --port is the public side's port
        "cloudflared access tcp --hostname db.example.com --url localhost:5432",  # a client
        "pinggy -R0:localhost:3000",  # pinggy's quick start: a web app's port
        "pinggy -R0:localhost:8000 -L4300:localhost:4300",  # -L: its web debugger
        "pinggy -p 443 -l https://localhost:8443",  # -p: pinggy's server port
    ],
)
def test_a_web_preview_or_a_loopback_forward_is_allowed(
    gate_check: Callable[[str], Checked], command: str
) -> None:
    verdict, codes = gate_check(command)
    assert verdict == "ALLOW", (command, verdict, codes)


def test_the_reason_names_what_is_exposed_and_the_safe_way(
    gate_check: Callable[[str], Checked],
) -> None:
    from agentreflex.gate.check import check_command

    _, findings = check_command("ngrok tcp 22", cwd="/p", home="/h", budget_s=5.0)
    message = next(f.message for f in findings if f.code == "GATE-TUNNEL-EXPOSE")
    assert "SSH" in message and "internet" in message and "ngrok http 3000" in message
