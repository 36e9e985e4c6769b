"""Docker's global options before the subcommand (``-H HOST``, ``--context NAME``).

``docker -H ssh://prod.example.com system prune -af --volumes`` prunes the volumes
of the production host: the option's value is no subcommand, so the words after
it are judged as the plain spelling is
(https://docs.docker.com/reference/cli/docker/#options).
"""

from __future__ import annotations

import pytest

from .conftest import corpus_verdict as _verdict


@pytest.mark.parametrize(
    "command",
    [
        "docker -H ssh://prod.example.com system prune -af --volumes",
        "docker --host tcp://10.0.0.5:2375 volume prune -af",
        "docker --context prod compose down -v",
        "docker -c prod volume rm pgdata",
        "docker --log-level error system prune -a --volumes -f",
    ],
)
def test_global_options_do_not_hide_the_subcommand(command: str) -> None:
    assert _verdict(command) in ("ASK_USER", "BLOCK")


@pytest.mark.parametrize(
    "command",
    [
        "docker -H ssh://prod.example.com ps",
        "docker --context prod volume ls",
    ],
)
def test_reads_on_another_host_stay_allowed(command: str) -> None:
    assert _verdict(command) == "ALLOW"
