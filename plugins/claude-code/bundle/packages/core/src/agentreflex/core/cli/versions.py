"""Which agentreflex distributions are installed, and at which version.

Each package keeps its version in one place, the ``version`` of its
``pyproject.toml``; installing it writes that into the distribution's
metadata, which is what this module reads. Cold path only
(``agentreflex --version``, ``agentreflex doctor``): ``importlib.metadata``
costs milliseconds to import and scan, which a hook never pays.
"""

from __future__ import annotations

PREFIX = "agentreflex"


def installed() -> list[tuple[str, str]]:
    """``(distribution, version)`` of every installed agentreflex distribution, by name.

    The meta-package ``agentreflex`` is listed too when installed: it tells
    which extras a user asked for, even though it carries no code.
    """
    from importlib.metadata import distributions

    found: dict[str, str] = {}
    for dist in distributions():
        name = (dist.metadata["Name"] or "").lower().replace("_", "-")
        if name == PREFIX or name.startswith(PREFIX + "-"):
            found.setdefault(name, dist.version)
    return sorted(found.items())


def render(rows: list[tuple[str, str]]) -> str:
    """One line per distribution, names aligned: what ``agentreflex --version`` prints."""
    if not rows:
        return "no agentreflex distribution is installed (running from a source tree?)"
    width = max(len(name) for name, _ in rows)
    return "\n".join(f"{name:<{width}}  {version}" for name, version in rows)
