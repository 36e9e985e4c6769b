"""Terminal panels in the seed's style, written to ``reflex.log``.

Every decision other than a quiet ALLOW gets a panel: the reflex that fired,
the signals it compared (probabilities or counts), the verdict (``BLOCKED``,
``WOULD_BLOCK (shadow mode, not enforced)``...) and the reason.  Panels are
built from already-redacted text.
"""

from __future__ import annotations

import contextlib
import os
import time

from agentreflex.core.decision import Decision, Finding, Verdict
from agentreflex.core.events import Event
from agentreflex.core.redaction.redact import redact
from agentreflex.core.util.fsutil import ensure_private_dir, tighten

TYPE_CHECKING = False
if TYPE_CHECKING:
    from agentreflex.core.config.settings import Config

_ICONS = {Verdict.BLOCK: "⚡", Verdict.ASK_USER: "✋", Verdict.WARN: "⚠️ ", Verdict.ALLOW: "✓"}
_WORDS = {
    Verdict.BLOCK: "BLOCKED",
    Verdict.ASK_USER: "ASK USER",
    Verdict.WARN: "WARN",
    Verdict.ALLOW: "ALLOWED",
}


def _label(name: str) -> str:
    return name.replace("_", " ").capitalize() + ":"


def finding_panel(finding: Finding, decision: Decision) -> str:
    title = finding.title or f"{finding.reflex.upper()} REFLEX"
    lines = [f"{_ICONS[finding.verdict]} {title}  [{finding.code}]", ""]
    if finding.signals:
        width = max(len(_label(k)) for k in finding.signals) + 1
        for key, value in finding.signals.items():
            number = f"{value:.2f}" if isinstance(value, float) and value <= 1 else f"{value:g}"
            lines.append(f"{_label(key):<{width}} {number}")
        if finding.threshold is not None:
            lines.append(f"{'Threshold:':<{width}} {finding.threshold:g}")
        lines.append("")
    if not finding.enforce:
        word = f"WOULD_{finding.verdict.value} (report only)"
    elif decision.verdict is finding.verdict or decision.verdict.rank >= finding.verdict.rank:
        word = _WORDS[finding.verdict]
    else:
        word = f"WOULD_{finding.verdict.value} (shadow mode, not enforced)"
    lines.append(f"→ {word}")
    lines.append(f"Reason: {finding.message}")
    return "\n".join(redact(line) for line in lines)


def decision_panels(event: Event, decision: Decision) -> str:
    """All panels for one decision, with a header naming the event."""
    stamp = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(event.timestamp))
    what = event.host_event or event.kind.value
    if event.tool is not None:
        from agentreflex.core.state.outcome import summarize

        what += f" {summarize(event.tool)}"
    header = f"── {stamp} {event.host} session {event.session_id[:12]} · {redact(what)[:160]}"
    body = [finding_panel(f, decision) for f in decision.findings if f.verdict is not Verdict.ALLOW]
    if decision.degraded:
        body.append("(judge degraded: " + "; ".join(redact(d) for d in decision.degraded) + ")")
    if decision.errors:
        body.append("(errors: " + "; ".join(redact(e) for e in decision.errors) + ")")
    return header + "\n" + "\n\n".join(body) + "\n"


def log_path(state_dir: str) -> str:
    return os.environ.get("AGENTREFLEX_LOG") or os.path.join(state_dir, "reflex.log")


def write_panels(state_dir: str, event: Event, decision: Decision) -> None:
    """Append the panels to reflex.log; never raises (logging must not break a hook)."""
    if not decision.worth_logging:
        return
    _append(state_dir, decision_panels(event, decision) + "\n")


def trust_panel(event: Event, config: Config) -> str:
    """The one-time panel for a project config that weakens protection without approval."""
    stamp = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(event.timestamp))
    lines = [
        f"── {stamp} {event.host} session {event.session_id[:12]} · configuration",
        "✋ PROJECT CONFIG NOT APPROVED  [CORE-CONFIG-UNTRUSTED]",
        "",
        f"{config.pending_config} (sha256 {config.pending_sha256[:12]}) asks for weaker",
        "protection than you approved. Until you approve this exact content",
        "(`agentreflex trust`), the stricter settings apply:",
        *(f"  - {line}" for line in config.untrusted),
    ]
    return "\n".join(redact(line) for line in lines) + "\n"


def write_trust_panel(state_dir: str, event: Event, config: Config) -> None:
    """Log :func:`trust_panel`; never raises."""
    _append(state_dir, trust_panel(event, config) + "\n")


def write_error(state_dir: str, message: str) -> None:
    stamp = time.strftime("%Y-%m-%d %H:%M:%S")
    _append(state_dir, f"── {stamp} ERROR {redact(message)}\n\n")


def _append(state_dir: str, text: str) -> None:
    with contextlib.suppress(OSError):
        path = log_path(state_dir)
        ensure_private_dir(os.path.dirname(path) or ".")
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        # a path in a finding may not be UTF-8 (a folder named b"\xff": surrogates)
        with open(fd, "a", encoding="utf-8", errors="backslashreplace") as fh:
            fh.write(text)
        tighten(path, 0o600)
