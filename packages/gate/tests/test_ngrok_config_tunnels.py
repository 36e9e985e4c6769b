"""``ngrok start NAME`` / ``ngrok start --all`` run the tunnels of ngrok's config file.

The tunnels are defined in the agent config (``tunnels: NAME: {proto, addr}`` in v2,
``endpoints: - name: NAME upstream: {url}`` in v3; https://ngrok.com/docs/agent/config/v2/,
https://ngrok.com/docs/agent/config/v3/) and started by name or all at once
(https://ngrok.com/docs/agent/cli/#ngrok-start).  ``ngrok tcp 22`` asked while ``ngrok
start ssh --config ngrok.yml`` with the same tunnel in a project file passed.  A config
the gate cannot read (none given, outside the project, too large) stays allowed.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

Checked = tuple[str, set[str]]

V2 = (
    'version: "2"\n'
    "tunnels:\n"
    "  ssh:\n"
    "    proto: tcp\n"
    "    addr: 22\n"
    "  web:\n"
    "    proto: http\n"
    "    addr: 3000  # the dev server\n"
)
V3 = (
    "version: 3\n"
    "agent:\n"
    "  log: stdout\n"
    "endpoints:\n"
    "  - name: db\n"
    "    url: tcp://1.tcp.ngrok.io:20000\n"
    "    upstream:\n"
    "      url: localhost:5432\n"
    "  - name: web\n"
    "    upstream:\n"
    "      url: 8080\n"
)


@pytest.fixture
def configs(gate_project: Path) -> Path:
    (gate_project / "ngrok.yml").write_text(V2)
    (gate_project / "ngrok3.yml").write_text(V3)
    return gate_project


@pytest.mark.parametrize(
    "command",
    [
        "ngrok start ssh --config ngrok.yml",
        "ngrok start --all --config ngrok.yml",
        "ngrok start --config=./ngrok.yml web ssh",
        "ngrok start --config ngrok3.yml db",
        "ngrok start --all --config ngrok3.yml,ngrok.yml",
    ],
)
def test_a_login_or_database_tunnel_of_the_config_asks(
    gate_check: Callable[[str], Checked], configs: Path, command: str
) -> None:
    assert gate_check(command) == ("ASK_USER", {"GATE-TUNNEL-EXPOSE"})


@pytest.mark.parametrize(
    "command",
    [
        "ngrok start web --config ngrok.yml",
        "ngrok start web --config ngrok3.yml",
        "ngrok start --none --config ngrok.yml",
        # no project file named: ngrok's own config in the home is not read
        "ngrok start ssh",
        "ngrok start --all",
        "ngrok start ssh --config missing.yml",
        "ngrok start ssh --config /etc/ngrok.yml",
    ],
)
def test_web_tunnels_and_unread_configs_stay_allowed(
    gate_check: Callable[[str], Checked], configs: Path, command: str
) -> None:
    assert gate_check(command) == ("ALLOW", set())
