"""agentreflex.routing — which model a request should go to, and why.

A policy (``policies/routing.toml``) names *lanes* (a provider's API, base
URL, model and key variable) and ordered *rules* over the features of a
request (requested model, thinking, estimated input tokens, background
work such as titles and summaries, tool count, sub-agent, an explicit
``[lane:NAME]`` tag). :func:`route` is pure: features in, a
:class:`Decision` out that names the lane, the reason and every rule it
considered, so a user can always see why a request went where it did.
"""

from __future__ import annotations

import importlib

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from agentreflex.routing.engine import Decision, RuleTrace, route
    from agentreflex.routing.features import Features, extract
    from agentreflex.routing.policy import (
        Lane,
        Policy,
        PolicyError,
        Rule,
        load_policy,
        parse_policy,
    )

STATUS = "working"

# The names load on first use: core imports this package's declaration
# (``agentreflex.routing.plugin``) before a tool call, and the policy models
# (pydantic) must not come with it.
_HOME = {
    "Decision": "engine",
    "RuleTrace": "engine",
    "route": "engine",
    "Features": "features",
    "extract": "features",
    "Lane": "policy",
    "Policy": "policy",
    "PolicyError": "policy",
    "Rule": "policy",
    "load_policy": "policy",
    "parse_policy": "policy",
}


def __getattr__(name: str) -> Any:
    if name not in _HOME:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{_HOME[name]}"), name)
    globals()[name] = value
    return value


__all__ = [
    "Decision",
    "Features",
    "Lane",
    "Policy",
    "PolicyError",
    "Rule",
    "RuleTrace",
    "extract",
    "load_policy",
    "parse_policy",
    "route",
]
