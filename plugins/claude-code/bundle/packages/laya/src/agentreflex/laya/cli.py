"""``agentreflex laya serve``: run the local System One server.

``serve [--host H] [--port P] [--engine builtin|model] [--model PATH]
[--max-concurrent N] [--overload-status 429|503] [--max-body-bytes N]
[--body-timeout S] [--token-file PATH] [--loop auto|uvloop|asyncio]``

The event loop is uvloop where it is installed (a dependency everywhere but
Windows): it takes about a fifth off the server's CPU time per request.
``--loop asyncio`` keeps the standard loop (for comparison, or a platform
without uvloop).

The bearer token comes from ``AGENTREFLEX_LAYA_TOKEN`` or a file, never from
the command line (where ``ps`` would show it).  Errors are one line on stderr
and exit code 2; never a traceback.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import signal
import sys
from collections.abc import Coroutine, Sequence
from typing import Any

TOKEN_ENV = "AGENTREFLEX_LAYA_TOKEN"


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        raise UsageError(message)


class UsageError(Exception):
    """Bad arguments or a refused setting; the message is the whole story."""


def _parser() -> argparse.ArgumentParser:
    from agentreflex.laya.server import DEFAULT_HOST, DEFAULT_PORT

    parser = _Parser(prog="agentreflex laya", description="A local System One backend.")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    serve = sub.add_parser("serve", help="serve /v1/systemone on this machine")
    serve.add_argument("--host", default=DEFAULT_HOST)
    serve.add_argument("--port", type=int, default=DEFAULT_PORT)
    serve.add_argument("--engine", choices=("builtin", "model"), default="builtin")
    serve.add_argument("--model", help="a local Laya checkpoint directory (--engine model)")
    serve.add_argument("--max-concurrent", type=int, default=64)
    serve.add_argument("--overload-status", type=int, choices=(429, 503), default=429)
    serve.add_argument("--max-body-bytes", type=int, default=1 << 20)
    serve.add_argument("--body-timeout", type=float, default=10.0)
    serve.add_argument("--token-file", help=f"read the bearer token here (else ${TOKEN_ENV})")
    serve.add_argument(
        "--loop",
        choices=("auto", "uvloop", "asyncio"),
        default="auto",
        help="the event loop: uvloop when installed (auto), or the standard one",
    )
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    try:
        args = _parser().parse_args(list(sys.argv[1:] if argv is None else argv))
        return _serve(args)
    except UsageError as exc:
        print(f"agentreflex laya: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 0
    except Exception as exc:  # one clear line, never a traceback
        print(f"agentreflex laya: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 2


def read_token(token_file: str | None) -> str:
    if not token_file:
        return os.environ.get(TOKEN_ENV, "").strip()
    try:
        with open(token_file, encoding="utf-8") as fh:
            return fh.read().strip()
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"cannot read the token file {token_file}: {exc}") from None


def _config(args: argparse.Namespace) -> object:
    from agentreflex.laya.server import ServerConfig

    if not 0 <= args.port <= 65535:
        raise UsageError("--port must be 0..65535")
    if args.max_concurrent < 1 or args.max_body_bytes < 1024 or args.body_timeout <= 0:
        raise UsageError("--max-concurrent >= 1, --max-body-bytes >= 1024, --body-timeout > 0")
    return ServerConfig(
        host=args.host,
        port=args.port,
        token=read_token(args.token_file),
        max_body_bytes=args.max_body_bytes,
        body_timeout_s=args.body_timeout,
        max_concurrent=args.max_concurrent,
        overload_status=args.overload_status,
    )


def _serve(args: argparse.Namespace) -> int:
    from agentreflex.laya.engine import EngineError, make_engine
    from agentreflex.laya.server import BindRefused, Server, ServerConfig, check_bind

    config = _config(args)
    assert isinstance(config, ServerConfig)
    try:
        check_bind(config.host, config.token)
        engine = make_engine(args.engine, args.model)
    except (BindRefused, EngineError) as exc:
        raise UsageError(str(exc)) from None
    run_loop(args.loop, _run(Server(engine, config)))
    return 0


def run_loop(kind: str, main: Coroutine[Any, Any, None]) -> None:
    """Run ``main`` on uvloop (``auto`` when it is installed, or asked for) or asyncio's loop."""
    if kind != "asyncio":
        try:
            import uvloop
        except ImportError:
            if kind == "uvloop":
                main.close()
                raise UsageError("--loop uvloop: uvloop is not installed") from None
        else:
            uvloop.run(main)
            return
    asyncio.run(main)


def _loop_name() -> str:
    loop = asyncio.get_running_loop()
    return "uvloop" if type(loop).__module__.startswith("uvloop") else "asyncio loop"


async def _run(server: object) -> None:
    from agentreflex.laya.server import Server, start

    assert isinstance(server, Server)
    runner = await start(server)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    port = runner.addresses[0][1] if runner.addresses else server.config.port
    print(
        f"agentreflex laya: {server.engine.name} engine ({server.engine.model_id}), "
        f"{_loop_name()}, on http://{server.config.host}:{port}/v1/systemone",
        flush=True,
    )
    try:
        await stop.wait()
    finally:
        await runner.cleanup()
