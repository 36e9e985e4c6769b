"""``agentreflex routing``: check a policy, explain where a recorded request goes.

``explain FILE`` reads a request body as the host sent it (JSON, or a JSON
object with a ``body`` key as the router and the test harness record them)
and prints its features, every step the policy considered with why it
matched or not, and the lane chosen with its fallbacks.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from agentreflex.routing.engine import Decision, route
from agentreflex.routing.features import Features, extract
from agentreflex.routing.policy import PolicyError, load_policy

DEFAULT_POLICY = Path("policies") / "routing.toml"
APIS = ("anthropic", "openai-chat", "openai-responses")


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="agentreflex routing", description=__doc__)
    sub = p.add_subparsers(dest="command", required=True)
    check = sub.add_parser("check", help="validate a routing policy file")
    check.add_argument("policy", nargs="?", type=Path, default=DEFAULT_POLICY)
    explain = sub.add_parser("explain", help="explain where a recorded request would go")
    explain.add_argument("request", type=Path, help="a request body (JSON)")
    explain.add_argument("--policy", type=Path, default=DEFAULT_POLICY)
    explain.add_argument("--api", choices=APIS, default=None, help="the endpoint it was sent to")
    explain.add_argument("--failures", type=int, default=0, help="failures so far in the session")
    explain.add_argument("--json", action="store_true", help="machine-readable output")
    return p


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(list(sys.argv[1:] if argv is None else argv))
    try:
        policy = load_policy(args.policy)
    except PolicyError as exc:
        print(f"agentreflex routing: {exc}", file=sys.stderr)
        return 2
    if args.command == "check":
        print(f"{args.policy}: {len(policy.lanes)} lanes, {len(policy.rules)} rules: ok")
        return 0
    try:
        body, api = _read_request(args.request)
    except ValueError as exc:
        print(f"agentreflex routing: {args.request}: {exc}", file=sys.stderr)
        return 2
    features = extract(body, args.api or api)
    if args.failures:
        from dataclasses import replace

        features = replace(features, session_failures=args.failures)
    decision = route(policy, features)
    if args.json:
        print(json.dumps(_as_json(features, decision), indent=2))
    else:
        print(render(features, decision))
    return 0


def _read_request(path: Path) -> tuple[dict[str, Any], str]:
    try:
        raw = json.loads(path.read_bytes())
    except (OSError, ValueError) as exc:
        raise ValueError(f"not a readable JSON request: {exc}") from exc
    if not isinstance(raw, dict):
        raise ValueError("a request body is a JSON object")
    path_hint = str(raw.get("path") or "")
    body = raw["body"] if isinstance(raw.get("body"), dict) else raw
    api = "anthropic"
    if raw.get("api") in APIS and body is not raw:
        return body, str(raw["api"])
    if path_hint.endswith("/chat/completions") or (
        "messages" in body and "system" not in body and _openai_roles(body)
    ):
        api = "openai-chat"
    elif path_hint.endswith("/responses") or "input" in body:
        api = "openai-responses"
    return body, api


def _openai_roles(body: dict[str, Any]) -> bool:
    messages = body.get("messages")
    return isinstance(messages, list) and any(
        isinstance(m, dict) and m.get("role") in ("system", "developer", "tool") for m in messages
    )


def render(features: Features, decision: Decision) -> str:
    """The explanation as text: features, every step, the outcome."""
    f = features
    lines = [
        f"request: api={f.api} model={f.model!r} stream={f.stream} thinking={f.thinking}",
        f"  ~{f.input_tokens} input tokens, {f.tool_count} tools, tag={f.tag}, "
        f"session failures={f.session_failures}",
        f"  background: {f.background_why or 'no'}",
        f"  sub-agent: {f.subagent_why or 'no'}",
        "considered:",
    ]
    for step in decision.trace:
        lines.append(f"  {'MATCH' if step.matched else 'no   '}  {step.step}: {step.why}")
    lane = decision.lane or "(refused)"
    lines.append(f"lane: {lane} ({decision.reason})")
    if decision.fallbacks:
        lines.append(f"fallbacks: {', '.join(decision.fallbacks)}")
    return "\n".join(lines)


def _as_json(features: Features, decision: Decision) -> dict[str, Any]:
    return {
        "features": features.as_dict(),
        "lane": decision.lane,
        "reason": decision.reason,
        "fallbacks": list(decision.fallbacks),
        "trace": [{"step": t.step, "matched": t.matched, "why": t.why} for t in decision.trace],
    }
