"""The interfaces a plug-in implements: typing Protocols, kept apart from the hot path.

``typing`` costs a hook process about 4 ms on this project's machines, and a
hook needs these classes only for type checking. The modules that name them
(:mod:`agentreflex.core.reflex`, :mod:`agentreflex.core.hosts.base`) import this
module lazily, on first use of the name, so ``from agentreflex.core.reflex
import Reflex`` keeps working at run time, ``isinstance`` checks included.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

if TYPE_CHECKING:
    from collections.abc import Mapping

    from agentreflex.core.decision import Decision, Finding
    from agentreflex.core.events import Event, EventKind, ToolKind
    from agentreflex.core.hosts.base import HostReply
    from agentreflex.core.reflex import JudgeAnswer, ReflexContext

__all__ = ["HostAdapter", "Judge", "Reflex"]


@runtime_checkable
class Reflex(Protocol):
    """A reflex: plain code that turns an event and the session state into findings.

    ``floor = True`` marks a deterministic safety floor: if it raises or runs
    out of time on a pre-tool event, the runtime blocks (fail closed).  Any
    other reflex that fails is skipped and the failure is logged (fail open).
    """

    name: str
    events: frozenset[EventKind]
    floor: bool

    def evaluate(self, ctx: ReflexContext) -> list[Finding]: ...


class Judge(Protocol):
    """Supplies probabilities; never decides.  ``calibrated``: may they move a threshold?"""

    name: str
    calibrated: bool

    def ask(self, battery: str, ctx: ReflexContext) -> JudgeAnswer: ...


class HostAdapter(Protocol):
    """One host, whole: its event names, what an unreadable payload is, its quirks, its answers.

    ``events`` maps the host's event names to kinds (``agentreflex hook HOST
    EVENT`` is looked up there too).  ``unknown_event`` is the kind a payload
    is handled as when it cannot be read far enough to name its event (a
    host that runs the tool when a hook fails says PRE_TOOL, so the answer
    is a refusal); None leaves it unknown.  ``traits`` names what the host
    does that a reflex must allow for (see :mod:`agentreflex.core.hosts`).
    ``tools`` maps the host's own tool names (lower-cased) to their kinds,
    beyond the shared vocabulary (:data:`agentreflex.core.events.SHARED_TOOLS`).
    An adapter may also say how its host's commands are contained
    (``containment``, ``not_contained``: :mod:`agentreflex.core.contain.check`;
    ``contained_shell_form``: :mod:`agentreflex.core.hosts.contained`).
    The payload names its event in ``hook_event_name`` (every host's does,
    the JS shims' too): that is the key the registration overrides.
    """

    name: str

    @property
    def events(self) -> Mapping[str, EventKind]: ...

    @property
    def unknown_event(self) -> EventKind | None: ...

    @property
    def traits(self) -> frozenset[str]: ...

    @property
    def tools(self) -> Mapping[str, ToolKind]: ...

    def parse(self, payload: dict[str, Any]) -> Event: ...

    def render(self, event: Event, decision: Decision) -> HostReply: ...

    def render_error(
        self, kind: EventKind | None, message: str, fail_closed: bool
    ) -> HostReply: ...
