"""OpenCode (``opencode-ai``): events from the plugin shim in ``plugins/opencode``.

OpenCode runs plugins in its own process; the shim forwards each callback
in the shared shim shape (:mod:`agentreflex.core.hosts.jsshim`, whose
docstring is the contract) and applies the reply:

* ``tool.execute.before`` (every tool: bash, edit, write, patch, read,
  webfetch, task, MCP tools) -> PRE_TOOL; ``{"block": true}`` makes the shim
  throw, which OpenCode turns into the tool's error text for the model;
* ``tool.execute.after`` -> POST_TOOL (recorded: tests run, edits made);
* ``chat.message`` (a user message) -> USER_PROMPT; a ``context`` reply is
  added to the system prompt by ``experimental.chat.system.transform``;
* ``session.created`` -> SESSION_START; ``session.deleted`` -> SESSION_END;
* ``session.idle`` -> STOP.  Idle is not a vetoable stop: a block makes the
  shim prompt the session again with the reason, once per stop
  (``stop_hook_active`` on the next idle).

The payload may carry ``model_id`` and ``model_variant`` (raw variant /
reasoning effort) from the shim's bounded ``message.updated`` cache; both are
kept in ``Event.raw`` as strings of at most 128 characters, or dropped.
"""

from __future__ import annotations

from agentreflex.core.events import Event, EventKind, ToolKind
from agentreflex.core.hosts.jsshim import ShimAdapter

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import ClassVar

EVENTS: dict[str, EventKind] = {
    "session.created": EventKind.SESSION_START,
    "chat.message": EventKind.USER_PROMPT,
    "tool.execute.before": EventKind.PRE_TOOL,
    "tool.execute.after": EventKind.POST_TOOL,
    "session.idle": EventKind.STOP,
    "session.deleted": EventKind.SESSION_END,
}


class OpenCodeAdapter(ShimAdapter):
    name = "opencode"
    project_settings = (".opencode",)
    events = EVENTS
    # OpenCode's own tool names (packages/opencode/src/tool/) beyond the shared ones
    tools: ClassVar[dict[str, ToolKind]] = {"list": ToolKind.SEARCH, "patch": ToolKind.PATCH}
    containment_limits = (
        "only for commands your OpenCode permission rules allow as written; "
        "the ones they deny or ask about are OpenCode's to decide, as written"
    )

    def host_rules(self, event: Event) -> str:
        """OpenCode checks its ``permission`` rules against the replaced command: only a
        command they certainly allow as written is replaced; one they deny or ask about is
        OpenCode's to decide; one a rule is about in a spelling OpenCode's matching passes
        over is refused here (:func:`.opencode_rules.decide`)."""
        import os

        from agentreflex.core.hook.sessionproject import started
        from agentreflex.core.hosts.opencode_rules import decide

        command = event.tool.input.get("command") if event.tool is not None else None
        if not isinstance(command, str):
            return "host"
        answer = decide(command, event.cwd, os.environ, started(event, os.environ))
        return _REFUSED if answer == "refuse" else answer


_REFUSED = (
    "Refused: one of your OpenCode permission rules is about a program this command runs, "
    "in a spelling OpenCode's own matching passes over (a wrapper, a chain, a subshell), and "
    "agentreflex, which runs every other command inside its boundary, holds that rule here. "
    "Run the program as your rule names it, or ask the user."
)
