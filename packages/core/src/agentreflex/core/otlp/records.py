"""A recorded hook call as OpenTelemetry log records: plain data, stdlib only.

One record per decision (event name ``agentreflex.decision``) and one per
finding that is not ALLOW (``agentreflex.finding``).  Attribute names follow
OpenTelemetry's semantic conventions where one exists (``session.id``,
``gen_ai.conversation.id``, ``gen_ai.agent.name``, ``gen_ai.tool.name``,
``gen_ai.tool.call.id``, ``gen_ai.operation.name``; the resource's
``service.*``, ``host.name``, ``os.type``) and use ``agentreflex.*`` for the
rest.  Every string value is redacted here, whatever the caller did before.

Sources: the GenAI conventions' tool execution (``gen_ai.operation.name`` is
``execute_tool``; ``gen_ai.tool.name``, ``gen_ai.tool.call.id``:
https://github.com/open-telemetry/semantic-conventions-genai/blob/main/docs/gen-ai/execute-tool.md)
and agent attributes (``gen_ai.agent.name``, ``gen_ai.conversation.id``:
https://github.com/open-telemetry/semantic-conventions/blob/v1.41.0/docs/gen-ai/gen-ai-agent-spans.md).
``session.id`` is also what Claude Code puts on its own OTel events
(``claude_code.tool_decision`` and the rest: https://code.claude.com/docs/en/monitoring-usage),
so a team's collector can join our decisions with the host's own telemetry.
"""

from __future__ import annotations

import os
import platform
import socket

from agentreflex.core.redaction.redact import redact
from agentreflex.core.util.record import record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

SERVICE_NAME = "agentreflex"
DECISION_EVENT = "agentreflex.decision"
FINDING_EVENT = "agentreflex.finding"
# OpenTelemetry SeverityNumber: INFO 9, WARN 13, WARN2 14, ERROR 17.
SEVERITY = {"ALLOW": (9, "INFO"), "WARN": (13, "WARN"), "ASK_USER": (14, "WARN2")}
SEVERITY_BLOCK = (17, "ERROR")
MAX_VALUE = 1000  # characters per attribute value
AttributeValue = str | int | float | bool | list[str]


@record
class LogItem:
    """One log record to send: when, how severe, what, and its attributes."""

    time_ns: int
    severity_number: int
    severity_text: str
    event_name: str
    body: str
    attributes: dict[str, AttributeValue]


def _s(value: Any) -> str:
    return redact(str(value))[:MAX_VALUE]


def resource_attributes(version: str = "") -> dict[str, str]:
    """The resource: who sends (semantic conventions ``service.*``, ``host.*``, ``os.type``)."""
    attrs = {
        "service.name": SERVICE_NAME,
        "service.namespace": SERVICE_NAME,
        "host.name": _s(socket.gethostname()),
        "host.arch": _s(platform.machine()),
        "os.type": _s(platform.system().lower()),
        "process.pid": str(os.getpid()),
    }
    if version:
        attrs["service.version"] = version
    return attrs


def _severity(verdict: str) -> tuple[int, str]:
    return SEVERITY.get(verdict, SEVERITY_BLOCK)


def _common(rec: dict[str, Any], session_id: str, host: str) -> dict[str, AttributeValue]:
    attrs: dict[str, AttributeValue] = {
        "session.id": _s(session_id),
        "gen_ai.conversation.id": _s(session_id),
        "gen_ai.agent.name": _s(host or rec.get("host", "")),
        "agentreflex.event": _s(rec.get("kind", "")),
    }
    if rec.get("cwd"):
        attrs["agentreflex.project"] = _s(rec["cwd"])
    tool = rec.get("tool")
    if isinstance(tool, dict):
        attrs["gen_ai.operation.name"] = "execute_tool"
        attrs["gen_ai.tool.name"] = _s(tool.get("name", ""))
        if tool.get("id"):
            attrs["gen_ai.tool.call.id"] = _s(tool["id"])
        attrs["agentreflex.tool.kind"] = _s(tool.get("kind", ""))
        attrs["agentreflex.tool.summary"] = _s(tool.get("summary", ""))
    if isinstance(rec.get("n"), int):
        attrs["agentreflex.record"] = int(rec["n"])
    return attrs


def log_items(rec: dict[str, Any], session_id: str, host: str = "") -> list[LogItem]:
    """The decision record of one stored hook call and one record per non-ALLOW finding."""
    decision = rec.get("decision")
    if not isinstance(decision, dict):
        return []
    time_ns = int(float(rec.get("ts", 0.0)) * 1e9)
    common = _common(rec, session_id, host)
    proposed = str(decision.get("proposed", "ALLOW"))
    findings = [f for f in decision.get("findings", []) if isinstance(f, dict)]
    stopping = [f for f in findings if f.get("verdict") == proposed and proposed != "ALLOW"]
    attrs = dict(common)
    attrs.update(
        {
            "agentreflex.verdict": _s(decision.get("verdict", "")),
            "agentreflex.proposed": _s(proposed),
            "agentreflex.label": _s(decision.get("label", "")),
            "agentreflex.findings": len(findings),
        }
    )
    if stopping:
        attrs["agentreflex.reflex"] = _s(stopping[0].get("reflex", ""))
        attrs["agentreflex.code"] = _s(stopping[0].get("code", ""))
        attrs["agentreflex.reason"] = _s(" ".join(str(f.get("message", "")) for f in stopping))
    if isinstance(rec.get("ms"), int | float):
        attrs["agentreflex.latency_ms"] = float(rec["ms"])
    number, text = _severity(proposed)
    label = str(decision.get("label", ""))
    body = _s(f"{label} {common['agentreflex.event']}" + _tail(attrs))
    items = [LogItem(time_ns, number, text, DECISION_EVENT, body, attrs)]
    for f in findings:
        if f.get("verdict") == "ALLOW":
            continue
        fa = dict(common)
        fa.update(
            {
                "agentreflex.reflex": _s(f.get("reflex", "")),
                "agentreflex.code": _s(f.get("code", "")),
                "agentreflex.verdict": _s(f.get("verdict", "")),
                "agentreflex.label": _s(label),
                "agentreflex.enforce": f.get("enforce") is not False,
                "agentreflex.reason": _s(f.get("message", "")),
            }
        )
        number, text = _severity(str(f.get("verdict", "")))
        items.append(LogItem(time_ns, number, text, FINDING_EVENT, _s(f.get("message", "")), fa))
    return items


def _tail(attrs: dict[str, AttributeValue]) -> str:
    code = attrs.get("agentreflex.code")
    return f" {code}" if code else ""
