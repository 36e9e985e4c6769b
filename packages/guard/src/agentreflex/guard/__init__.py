"""agentreflex.guard: the Reasoning Guard (seed 003).

A visible, deterministic record of the decision-relevant checks an agent
identifies or promises, so an unsupported causal claim, completion claim or
permanent mutation cannot silently replace the evidence work.  No model call,
no network: local parsing and one atomic state update per hook event.
"""

SCHEMA_VERSION = "3.0"
# How an agent states an Evidence-Check directive (parsed in directive.py); kept
# here so the check before the engine (quiet.py) can look for them cheaply.
MARKER = "Evidence-Check:"
PAYLOAD_KEY = "reasoning_evidence_check"
