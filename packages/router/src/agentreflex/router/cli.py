"""``agentreflex router serve``: run the routing proxy.

Binds loopback unless told otherwise: the router holds provider keys (from
the environment) and anyone who can reach it can spend them.
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

from agentreflex.core.config.trust import lookup
from agentreflex.core.state.userdirs import user_config_dir
from agentreflex.routing import PolicyError, load_policy

LOOPBACK = ("127.0.0.1", "::1", "localhost")


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="agentreflex router", description=__doc__)
    sub = p.add_subparsers(dest="command", required=True)
    serve = sub.add_parser("serve", help="run the proxy")
    serve.add_argument(
        "--policy",
        type=Path,
        default=None,
        help="default: routing.toml in your agentreflex config folder",
    )
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--port", type=int, default=8787)
    serve.add_argument("--allow-remote", action="store_true", help="permit a non-loopback --host")
    serve.add_argument(
        "--record", type=Path, default=None, help="keep redacted request bodies here (for explain)"
    )
    return p


def unapproved(policy_file: Path, env: Mapping[str, str] | None = None) -> str:
    """Why the router must not act on ``policy_file`` ("" when it may).

    The policy decides where requests go and which key goes with them: an
    agent that can edit a project's ``policies/routing.toml`` could send the
    user's keys to a server of its choosing.  A policy in the user's own
    config folder is theirs; any other one serves only the exact content the
    user approved with ``agentreflex trust FILE``.
    """
    real = os.path.realpath(policy_file)
    own = os.path.realpath(user_config_dir(env))
    if real.startswith(own.rstrip("/") + "/"):
        return ""
    try:
        raw = Path(real).read_bytes()
    except OSError as exc:
        return f"{policy_file}: cannot read the routing policy: {exc.strerror or exc}"
    found = lookup(real, raw, env)
    if found.approved:
        return ""
    why = f" ({found.problem})" if found.problem else ""
    changed = "changed since the user approved it" if found.previous else "not approved"
    return (
        f"{policy_file} decides where requests and their keys go, and its content is "
        f"{changed}{why}. The user approves it with `agentreflex trust {policy_file}` "
        f"(or keeps the policy in {own})."
    )


def default_policy(env: Mapping[str, str] | None = None) -> Path:
    """The user's own routing policy: ``routing.toml`` in their agentreflex config folder.

    Not the project's ``policies/routing.toml``: that one the router serves only once
    the user approved it, so the default is the file that needs no approval.
    """
    return Path(user_config_dir(env)) / "routing.toml"


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(list(sys.argv[1:] if argv is None else argv))
    if args.policy is None:
        args.policy = default_policy()
        if not args.policy.is_file():
            print(
                f"agentreflex router: no routing policy: put one in {args.policy} "
                "(see policies/routing.toml for an example) or pass --policy FILE",
                file=sys.stderr,
            )
            return 2
    try:
        policy = load_policy(args.policy)
    except PolicyError as exc:
        print(f"agentreflex router: {exc}", file=sys.stderr)
        return 2
    problem = unapproved(args.policy)
    if problem:
        print(f"agentreflex router: refusing to start: {problem}", file=sys.stderr)
        return 2
    if args.host not in LOOPBACK and not args.allow_remote:
        print(
            f"agentreflex router: refusing to bind {args.host}: pass --allow-remote to expose the router",
            file=sys.stderr,
        )
        return 2
    from agentreflex.router.app import make_app
    from aiohttp import web

    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(levelname)s %(message)s")
    print(
        f"agentreflex router: {len(policy.lanes)} lanes from {args.policy}, http://{args.host}:{args.port}",
        flush=True,
    )
    try:
        extra = [args.host] if args.allow_remote else []
        app = make_app(policy, record_dir=args.record, extra_hosts=extra)
    except OSError as exc:
        print(f"agentreflex router: cannot record into {args.record}: {exc}", file=sys.stderr)
        return 2
    web.run_app(
        app,
        host=args.host,
        port=args.port,
        print=None,
        access_log=None,
    )
    return 0
