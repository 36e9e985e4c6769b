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
    from typing import Any, ClassVar

    from agentreflex.core.events import Event

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

    def parse(self, payload: dict[str, Any]) -> Event:
        """The shim's payload, with each path as pi's file tools read it (:func:`as_pi_reads`)."""
        args = payload.get("args")
        if isinstance(args, dict):
            fixed = {
                k: as_pi_reads(v) if k in _PATH_FIELDS and isinstance(v, str) else v
                for k, v in args.items()
            }
            if fixed != args:
                payload = {**payload, "args": fixed}
        return super().parse(payload)


# the fields pi's tools (and any the hook reads a path from) name a file in
_PATH_FIELDS = frozenset({"path", "file_path", "filePath", "notebook_path", "file"})
_UNICODE_SPACES = dict.fromkeys([0x00A0, *range(0x2000, 0x200B), 0x202F, 0x205F, 0x3000], " ")


def as_pi_reads(path: str) -> str:
    """``path`` as pi's ``expandPath`` reads it before resolving (``path-utils`` of
    pi-coding-agent 0.73): a leading ``@`` dropped (models write ``@file`` as in a
    prompt) and the Unicode spaces made plain ones; ``~/`` is then expanded, as the
    hook does.  Judged as spelled, ``@.git/hooks/pre-commit`` was a new folder named
    ``@.git`` in the project, where pi writes the git hook (red-team rt35)."""
    return path.removeprefix("@").translate(_UNICODE_SPACES)


class OmpAdapter(PiAdapter):
    """oh-my-pi's adapter: pi's, under the name ``omp``."""

    def __init__(self) -> None:
        super().__init__("omp")
