"""pi (``@mariozechner/pi-coding-agent``) and oh-my-pi (``omp``): one extension shim.

omp is a fork of pi with the same ``pi.on(...)`` extension API, so one shim
(``plugins/pi``) and one adapter serve both; the host name (``pi`` or
``omp``) only labels the events.  The shim forwards each callback in the
shared shim shape (:mod:`agentreflex.core.hosts.jsshim`, whose docstring is
the contract) and applies the reply:

* ``tool_call`` -> PRE_TOOL; ``{"block": true, "reason"}`` is returned to pi
  as is (pi shows the reason to the model as the tool's error result);
* ``tool_result`` -> POST_TOOL (recorded);
* ``before_agent_start`` (the user's prompt) -> USER_PROMPT; a ``context``
  reply is returned as the extension's message, and later context (after a
  tool) is added by the ``context`` callback before the next model request;
* ``session_start`` -> SESSION_START; ``session_shutdown`` -> SESSION_END;
* ``agent_end`` -> STOP.  pi cannot veto a stop: a block makes the shim send
  the reason as a follow-up user message, once per stop (``stop_hook_active``
  on the next ``agent_end``).
"""

from __future__ import annotations

from agentreflex.core.decision import Decision
from agentreflex.core.events import Event, EventKind
from agentreflex.core.hosts.base import HostReply
from agentreflex.core.hosts.jsshim import parse_shim_payload, render_shim, render_shim_error
from agentreflex.core.recap import Recap, render_plain

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

EVENTS: dict[str, EventKind] = {
    "session_start": EventKind.SESSION_START,
    "before_agent_start": EventKind.USER_PROMPT,
    "tool_call": EventKind.PRE_TOOL,
    "tool_result": EventKind.POST_TOOL,
    "agent_end": EventKind.STOP,
    "session_shutdown": EventKind.SESSION_END,
}


class PiAdapter:
    """pi's adapter; ``PiAdapter("omp")`` serves oh-my-pi."""

    def __init__(self, name: str = "pi") -> None:
        self.name = name

    def parse(self, payload: dict[str, Any]) -> Event:
        return parse_shim_payload(payload, self.name, EVENTS)

    def render(self, event: Event, decision: Decision) -> HostReply:
        recap = self.render_recap(decision.recap) if decision.recap is not None else ""
        return render_shim(event, decision, recap)

    def render_recap(self, recap: Recap) -> str:
        """The session recap as plain text: the shim puts it before the model's next turn."""
        return render_plain(recap)

    def render_error(self, kind: EventKind | None, message: str, fail_closed: bool) -> HostReply:
        return render_shim_error(kind, message, fail_closed)
