"""The ``agentreflex`` command.

``agentreflex hook HOST`` is on every agent's hot path, so it is handled
before anything else is imported: try the warm daemon through the thin
client, and only if none answers import the runtime and evaluate here.
Every other subcommand is a cold path and may import what it likes.
"""

from __future__ import annotations

import os
import sys


def _hook(argv: list[str]) -> int:
    """``hook HOST [EVENT]``: host payload on stdin, host-native answer on stdout."""
    if not argv or argv[0] in ("-h", "--help"):
        from agentreflex.core.hosts import host_names

        hosts = ", ".join(host_names())
        sys.stdout.write(f"usage: agentreflex hook HOST [EVENT]\nhosts: {hosts}\n")
        return 0 if argv else 2
    host = argv[0]
    hint = argv[1] if len(argv) > 1 else ""
    try:
        payload = sys.stdin.buffer.read()
    except OSError:
        payload = b""
    from agentreflex.core.hook.provenance import REFUSED, writes_live_history

    if writes_live_history(os.environ):
        sys.stderr.write(f"agentreflex hook: {REFUSED}\n")
        return 2  # nothing recorded, nothing decided
    import time  # built in: nothing to load

    from agentreflex.core.hook.client import try_daemon

    asked = time.monotonic()
    answer = try_daemon(host, hint, payload)
    if answer is not None:
        code, out, err = answer
        sys.stdout.buffer.write(out)
        sys.stderr.buffer.write(err)
        sys.stdout.flush()
        return code
    from agentreflex.core.hook.runtime import run_hook

    # the host's timeout counts the wait for a daemon that did not answer, too
    outcome = run_hook(host, payload, os.environ, hint or None, spent=time.monotonic() - asked)
    _maybe_autostart(outcome)
    # a lone surrogate (a tool input's JSON "\ud800") written back as that JSON escape:
    # a reply that cannot be written ends the hook with status 1, which the hosts take
    # for a non-blocking error and run the command as written (red-team rt33)
    sys.stdout.buffer.write(outcome.reply.stdout.encode("utf-8", "backslashreplace"))
    sys.stderr.buffer.write(outcome.reply.stderr.encode("utf-8", "backslashreplace"))
    sys.stdout.flush()
    return outcome.reply.exit_code


def _maybe_autostart(outcome: object) -> None:
    """Start the warm daemon at session start (AGENTREFLEX_DAEMON=auto, the default)."""
    from agentreflex.core.events import EventKind
    from agentreflex.core.hook.runtime import HookOutcome

    if not isinstance(outcome, HookOutcome) or outcome.event is None:
        return
    if outcome.event.kind is not EventKind.SESSION_START:
        return
    if os.environ.get("AGENTREFLEX_DAEMON", "auto").lower() != "auto":
        return  # "off": never use one; "on": use one if running, never start it
    try:
        from agentreflex.core.config.settings import load_config
        from agentreflex.core.hook.daemon import start_detached

        start_detached(load_config(outcome.event.cwd).daemon_idle_seconds)
    except Exception as exc:  # the daemon is an optimisation, never a failure
        sys.stderr.write(f"agentreflex: could not start the daemon: {exc}\n")


def _exit_now(code: int) -> None:
    """End a hook process without the interpreter's teardown.

    Why: tearing down the ~100 modules a hook imported costs about 4 ms on
    this project's machines, on every tool call, and a hook has nothing left
    to clean up: its state files are closed (and fsynced) by the time it
    answers. The answer is flushed first. Under coverage measurement the
    normal exit is kept, so the measurement is saved.
    """
    if "coverage" in sys.modules:
        return
    for stream in (sys.stdout, sys.stderr):
        # Not contextlib.suppress: a hook answered by the daemon imports nothing else,
        # and contextlib (with collections and functools) would cost it ~1 ms.
        try:  # noqa: SIM105
            stream.flush()
        except (OSError, ValueError):  # a closed pipe: nothing more to tell
            pass
    os._exit(code)


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if args and args[0] == "hook":
        if argv is not None:  # a caller in this process (a test): leave the process alone
            return _hook(args[1:])
        import gc

        gc.disable()  # a one-shot process: spare it the collections its imports trigger (~1.5 ms)
        code = _hook(args[1:])
        _exit_now(code)
        return code  # only under coverage, which needs the normal exit
    if args and args[0] == "statusline":  # run every few hundred ms: skip argparse and friends
        from agentreflex.core.cli.statusline import main as statusline

        return statusline(args[1:])
    from agentreflex.core.cli.commands import dispatch

    try:
        return dispatch(args)
    except BrokenPipeError:  # `agentreflex status | head` is not an error
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except KeyboardInterrupt:
        return 130
