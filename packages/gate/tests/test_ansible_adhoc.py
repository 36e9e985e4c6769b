"""Ansible ad-hoc commands: the ``-a`` text runs on every host of the pattern.

``ansible all -i prod -m shell -a 'rm -rf /var/lib/postgresql'`` is ``ssh host
CMD`` to a fleet, so the text is judged as a remote shell command is (the
default module, ``command``, runs it too).  A module that only gathers facts, or
a harmless command, stays allowed
(https://docs.ansible.com/ansible/latest/command_guide/intro_adhoc.html).
"""

from __future__ import annotations

import pytest

from .conftest import corpus_verdict as _verdict


@pytest.mark.parametrize(
    "command",
    [
        "ansible all -i prod -m shell -a 'rm -rf /var/lib/postgresql'",
        "ansible webservers -m ansible.builtin.shell -a 'psql -c \"DROP DATABASE app\"'",
        "ansible db -a 'redis-cli flushall'",
        "ansible all --module-name=raw --args='rm -rf /etc'",
    ],
)
def test_the_remote_command_is_judged(command: str) -> None:
    assert _verdict(command) in ("ASK_USER", "BLOCK")


@pytest.mark.parametrize(
    "command",
    [
        "ansible all -i prod -m ping",
        "ansible all -m setup",
        "ansible all -m shell -a 'uptime'",
        "ansible db -a 'df -h'",
    ],
)
def test_harmless_ones_stay_allowed(command: str) -> None:
    assert _verdict(command) == "ALLOW"
