"""agentreflex.guard: the Reasoning Guard (seed 003).

A visible, deterministic record of the decision-relevant checks an agent
identifies or promises, so an unsupported causal claim, completion claim or
permanent mutation cannot silently replace the evidence work.  No model call,
no network: local parsing and one atomic state update per hook event.
"""

from __future__ import annotations

SCHEMA_VERSION = "3.0"
# How an agent states an Evidence-Check directive (parsed in directive.py); kept
# here so the check before the engine (quiet.py) can look for them cheaply.
MARKER = "Evidence-Check:"
PAYLOAD_KEY = "reasoning_evidence_check"
# The hints of closing.py's patterns (a closing form holds "resolved:" or
# "deferred:", any case; the mitigation rule needs "root"), kept here so the
# engine imports closing.py only for a text that holds one of them.
RESOLVED_WORD = "resolved:"
DEFERRED_WORD = "deferred:"
ROOT_WORD = "root"

TYPE_CHECKING = False
if TYPE_CHECKING:
    from agentreflex.core.events import ToolCall

# The free-text fields of a tool input where an agent may write a marker. Here
# with description_texts (re-exported by tools.py) because every tool event reads
# them, before the engine (quiet.py) and in it, and tools.py is needed only then.
DESCRIPTION_KEYS = ("description", "reason", "justification", "summary")


def description_texts(call: ToolCall) -> list[str]:
    """Visible free-text fields of a tool input (where a marker may be written)."""
    out = []
    for key in DESCRIPTION_KEYS:
        value = call.input.get(key)
        if isinstance(value, str) and value:
            out.append(value)
    return out
