"""The backend interface: something that answers a System One request.

Backends get the wire request (what an HTTP backend sends) and the subject
it was built from (what the offline heuristic reads directly).  They raise
:class:`BackendError` with a short, secret-free reason; the judge turns that
into a degraded, fail-open answer.
"""

from __future__ import annotations

from agentreflex.core.util.record import field, record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Protocol

    from agentreflex.core.events import Event
    from agentreflex.core.state.model import SessionState
    from agentreflex.core.systemone.wire import SystemOneRequest, SystemOneResponse
    from agentreflex.judge2.done.claims import Claim


class BackendError(Exception):
    """A backend could not produce a valid answer.  ``str()`` is safe to log."""


@record(frozen=True)
class Subject:
    """What a request is about: the battery, the state before the event, the event."""

    battery: str
    state: SessionState
    event: Event
    claims: list[Claim] = field(default_factory=list)


if TYPE_CHECKING:
    # A protocol only type checkers read (nothing checks it at run time), so the
    # hook path does not import typing for it.
    class Backend(Protocol):
        name: str
        model: str
        cacheable: bool

        def answer(self, request: SystemOneRequest, subject: Subject) -> SystemOneResponse: ...
