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

from agentreflex.core.events import EventKind, ToolKind
from agentreflex.core.hosts.jsshim import ShimAdapter

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import ClassVar

EVENTS: dict[str, EventKind] = {
    "session_start": EventKind.SESSION_START,
    "before_agent_start": EventKind.USER_PROMPT,
    "tool_call": EventKind.PRE_TOOL,
    "tool_result": EventKind.POST_TOOL,
    "agent_end": EventKind.STOP,
    "session_shutdown": EventKind.SESSION_END,
}


class PiAdapter(ShimAdapter):
    """pi's adapter; ``PiAdapter("omp")`` serves oh-my-pi."""

    events = EVENTS
    # pi's own tool names (its coding-agent tools) beyond the shared ones
    tools: ClassVar[dict[str, ToolKind]] = {"ls": ToolKind.SEARCH, "find": ToolKind.SEARCH}

    def __init__(self, name: str = "pi") -> None:
        self.name = name
        self.project_settings = (f".{name}",)


class OmpAdapter(PiAdapter):
    """oh-my-pi's adapter: pi's, under the name ``omp``."""

    def __init__(self) -> None:
        super().__init__("omp")
