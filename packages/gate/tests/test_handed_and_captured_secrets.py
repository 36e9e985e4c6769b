"""Red team rt104 of rt100's handed commands and secret-manager reads.

A command handed to a dyno, a dev shell or a debug container through a spelling
rt100's table did not know ran unjudged; a secret-manager read captured in
``$(...)`` (allowed, the everyday way to hand it on) and then printed by echo,
or written to a file and then shown with cat, reached the transcript.  Each test
pins the class with a neighbour and an everyday form that stays allowed.
"""

from __future__ import annotations

import pytest

from .conftest import corpus_check as _verdict


@pytest.mark.parametrize(
    "command",
    [
        "heroku run:inside web.1 'rm -rf /app' -a my-app",
        "heroku run:inside -a my-app web.1 rails db:drop",
        "devbox run rm -rf ~",
        "devbox run -e A=1 -- rm -rf ~",
        "devenv shell rm -rf ~",
        "kubectl debug -it my-pod --image=busybox --target=app -- rm -rf /data",
        "kubectl debug node/n1 -it --image=busybox -- chroot /host rm -rf /var",
    ],
)
def test_a_command_handed_through_a_spelling_rt100_missed_is_judged(command: str) -> None:
    assert _verdict(command)[0] == "BLOCK"


@pytest.mark.parametrize(
    "command",
    [
        "heroku run:inside web.1 bash -a my-app",
        "devbox run test",
        "devbox run -- pytest -q",
        "devenv shell",
        "devenv shell -- npm test",
        "kubectl debug -it my-pod --image=busybox --target=app",
        "kubectl debug my-pod -it --image=busybox -- sh",
    ],
)
def test_everyday_dyno_dev_shell_and_debug_commands_stay_allowed(command: str) -> None:
    assert _verdict(command)[0] == "ALLOW"
