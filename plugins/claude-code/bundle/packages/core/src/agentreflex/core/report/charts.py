"""The report's charts: matplotlib drawn straight to inline SVG (no pyplot, no GUI backend).

matplotlib is an optional extra (``agentreflex-core[report]``) and imported
only here, only by ``agentreflex report``: never on a hook's path.  Text stays
text in the SVG (``svg.fonttype = none``), so a reader or a test finds a
chart by its words, and the output is deterministic (a fixed hash salt, no
date in the metadata).
"""

from __future__ import annotations

import io
import re

from agentreflex.core.redaction.redact import redact

TYPE_CHECKING = False
if TYPE_CHECKING:
    from agentreflex.core.report.collect import Calibration, Intervention
    from matplotlib.figure import Figure

INSTALL_HINT = (
    "agentreflex report draws its charts with matplotlib, which is not installed. "
    "Install it with: pip install 'agentreflex-core[report]' "
    "(or uv pip install 'agentreflex-core[report]')"
)


class ChartsUnavailable(ImportError):
    """matplotlib is missing: the message says how to install it."""


def _figure(width: float, height: float) -> Figure:
    try:
        import matplotlib
        from matplotlib.figure import Figure
    except ImportError as exc:
        raise ChartsUnavailable(INSTALL_HINT) from exc
    matplotlib.rcParams["svg.fonttype"] = "none"
    matplotlib.rcParams["svg.hashsalt"] = "agentreflex-report"
    return Figure(figsize=(width, height), dpi=96, layout="constrained")


def _svg(fig: Figure, label: str) -> str:
    """The figure as an inline ``<svg role="img" aria-label=...>`` element."""
    buf = io.StringIO()
    fig.savefig(buf, format="svg", metadata={"Date": None, "Creator": None})
    text = buf.getvalue()
    text = text[text.index("<svg") :]
    text = re.sub(r"\s*<metadata>.*?</metadata>", "", text, flags=re.S)  # RDF, nothing to show
    safe = redact(label).replace("&", "&amp;").replace('"', "&quot;").replace("<", "&lt;")
    return re.sub(r"^<svg ", f'<svg role="img" aria-label="{safe}" ', text, count=1)


def latency_histogram(latencies_ms: list[float]) -> str:
    fig = _figure(6.4, 2.8)
    ax = fig.add_subplot()
    bins = min(30, max(5, len(latencies_ms) // 4))
    ax.hist(latencies_ms, bins=bins, color="#3b6ea8", edgecolor="white")
    ax.set_xlabel("hook latency (ms)")
    ax.set_ylabel("hook calls")
    from matplotlib.ticker import MaxNLocator

    ax.yaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_title("Hook latency histogram")
    return _svg(fig, "Hook latency histogram")


def interventions_chart(items: list[Intervention]) -> str:
    top = items[:12][::-1]
    fig = _figure(6.4, 0.9 + 0.32 * len(top))
    ax = fig.add_subplot()
    names = [redact(f"{i.reflex} {i.code} ({i.verdict})")[:60] for i in top]
    ax.barh(names, [i.enforced for i in top], color="#b03a2e", label="enforced")
    ax.barh(
        names,
        [i.shadow for i in top],
        left=[i.enforced for i in top],
        color="#e59866",
        label="shadow / report-only",
    )
    from matplotlib.ticker import MaxNLocator

    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlabel("findings")
    ax.set_title("Blocks and asks by reflex and code")
    fig.legend(loc="outside lower center", ncols=2, fontsize="small")
    return _svg(fig, "Blocks and asks by reflex and code")


def reliability_diagram(cal: Calibration) -> str:
    fig = _figure(6.4, 3.2)
    ax = fig.add_subplot()
    ax.plot([0, 1], [0, 1], linestyle="--", color="grey", label="perfect calibration")
    ax.plot(
        [b[0] for b in cal.bins],
        [b[1] for b in cal.bins],
        marker="o",
        color="#3b6ea8",
        label=f"judge (ECE {cal.ece:.3f}, Brier {cal.brier:.3f})",
    )
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
    ax.set_xlabel("predicted probability")
    ax.set_ylabel("observed frequency")
    ax.set_title("Judge reliability diagram")
    ax.legend(loc="upper left", fontsize="small")
    return _svg(fig, "Judge reliability diagram")
