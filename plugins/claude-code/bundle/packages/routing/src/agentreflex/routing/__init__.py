"""agentreflex.routing — which model a request should go to, and why.

A policy (``policies/routing.toml``) names *lanes* (a provider's API, base
URL, model and key variable) and ordered *rules* over the features of a
request (requested model, thinking, estimated input tokens, background
work such as titles and summaries, tool count, sub-agent, an explicit
``[lane:NAME]`` tag). :func:`route` is pure: features in, a
:class:`Decision` out that names the lane, the reason and every rule it
considered, so a user can always see why a request went where it did.
"""

from agentreflex.routing.engine import Decision, RuleTrace, route
from agentreflex.routing.features import Features, extract
from agentreflex.routing.policy import Lane, Policy, PolicyError, Rule, load_policy, parse_policy

STATUS = "working"

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
