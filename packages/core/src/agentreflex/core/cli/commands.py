"""The cold subcommands of ``agentreflex`` (everything but ``hook``).

Package subcommands (``agentreflex guard ...``, ``agentreflex judge2 ...``)
are found through each package's declaration (``agentreflex.plugins``), so core never
imports a sibling package.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Any

from agentreflex.core import registry

EXIT_BLOCK = 2
EXIT_ASK = 3


def _install_hosts() -> str:
    """The hosts ``install`` wires, read from its registry so the help cannot fall behind it."""
    from agentreflex.core.install.command import installers

    return ", ".join(installers())


def _policy_kinds() -> list[str]:
    """The policy file kinds the installed packages declare (``config check --as``)."""
    return [kind for kind, _plugin in registry.entries(registry.FILES)]


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="agentreflex",
        description="The reflex layer for AI coding agents.  Plain code decides.",
    )
    p.add_argument(
        "-V", "--version", action="store_true", help="every installed agentreflex package"
    )
    sub = p.add_subparsers(dest="command")
    sub.add_parser("hook", help="host payload on stdin -> host-native answer (hot path)")
    c = sub.add_parser("check", help="one proposed tool call through every pre-tool reflex")
    c.add_argument("--cwd", default=os.getcwd())
    c.add_argument("--tool", default="Bash", help="tool name (Bash, Write, Edit, Read ...)")
    c.add_argument("--json", action="store_true")
    c.add_argument(
        "--mode",
        choices=("shadow", "enforced"),
        default="enforced",
        help="shadow: report WOULD_* and exit 0 (default: enforced)",
    )
    c.add_argument("cmd", nargs=argparse.REMAINDER, help="-- COMMAND (or a path for file tools)")
    r = sub.add_parser("replay", help="a JSONL of host payloads through the real pipeline")
    r.add_argument("file")
    r.add_argument("--host", default="claude-code")
    r.add_argument("--mode", choices=("shadow", "enforced"))
    r.add_argument("--state-dir")
    sub.add_parser("redact", help="stdin to stdout with secrets replaced")
    sub.add_parser("demo", help="the scripted offline session: watch every reflex fire")
    s = sub.add_parser("status", help="sessions, interventions, findings, latency")
    s.add_argument("--json", action="store_true")
    s.add_argument("--cwd", default=os.getcwd())
    d = sub.add_parser("doctor", help="what is installed and wired, and what is broken")
    d.add_argument("--cwd", default=os.getcwd())
    d.add_argument("--json", action="store_true")
    cf = sub.add_parser("config", help="config check [FILE...]: validate config and policy files")
    cf.add_argument("action", choices=("check",))
    cf.add_argument("files", nargs="*", help="default: the user's and this project's files")
    cf.add_argument("--as", dest="kind", choices=("config", "thresholds", *_policy_kinds()))
    cf.add_argument("--cwd", default=os.getcwd())
    sub.add_parser("install", help=f"wire a host's hooks ({_install_hosts()})", add_help=False)
    sub.add_parser("uninstall", help="remove agentreflex's hooks from a host", add_help=False)
    sub.add_parser("undo", help="list or restore snapshots taken before discards", add_help=False)
    sub.add_parser("statusline", help="one short line for Claude Code's statusLine setting")
    sub.add_parser("report", help="one static HTML file of what happened", add_help=False)
    sub.add_parser("export", help="decisions and findings to OpenTelemetry (OTLP)", add_help=False)
    t = sub.add_parser(
        "trust", help="approve this project's config (what it weakens waits for you)"
    )
    t.add_argument("path", nargs="?", default="", help="project dir or config file (default: cwd)")
    g = t.add_mutually_exclusive_group()
    g.add_argument("--show", action="store_true", help="list approvals and whether they match")
    g.add_argument("--revoke", action="store_true", help="remove the approval")
    st = sub.add_parser("state", help="session state: acknowledge a lost or tampered history")
    st.add_argument("action", choices=("acknowledge",))
    st.add_argument("--session", required=True)
    st.add_argument("--cwd", default=os.getcwd())
    sv = sub.add_parser("serve", help="the warm daemon")
    sv.add_argument("--idle", type=float, default=None, help="exit after this many idle seconds")
    sv.add_argument("--detach", action="store_true")
    sv.add_argument("--status", action="store_true")
    sv.add_argument("--stop", action="store_true")
    for name, _ in registry.entries("agentreflex.commands"):
        sub.add_parser(name, help=f"commands of agentreflex-{name}", add_help=False)
    return p


def dispatch(args: list[str]) -> int:
    if args[:1] in (["--version"], ["-V"]):
        from agentreflex.core.cli import versions

        print(versions.render(versions.installed()))
        return 0
    if args and args[0] == "demo":
        from agentreflex.core.cli.demo import main as demo

        return demo(args[1:])
    if args and args[0] in ("install", "uninstall"):
        from agentreflex.core.install.command import main as install

        return install(args[1:], args[0])
    if args and args[0] == "statusline":
        from agentreflex.core.cli.statusline import main as statusline

        return statusline(args[1:])
    if args and args[0] == "undo":
        from agentreflex.core.worktree.undocmd import main as undo

        return undo(args[1:])
    if args and args[0] == "report":
        from agentreflex.core.report.command import main as report

        return report(args[1:])
    if args and args[0] == "export":
        from agentreflex.core.otlp.command import main as export

        return export(args[1:])
    for name, spec in registry.entries("agentreflex.commands"):
        if args and args[0] == name:
            func = registry.load_object(spec)
            return int(func(args[1:]))
    parser = _parser()
    ns = parser.parse_args(args)
    handlers = {
        "check": _check,
        "replay": _replay,
        "redact": _redact,
        "status": _status,
        "doctor": _doctor,
        "serve": _serve,
        "config": _config,
        "trust": _trust,
        "state": _state,
    }
    if ns.command not in handlers:
        parser.print_help()
        return 0 if not args else 2
    return handlers[ns.command](ns)


def _check(ns: argparse.Namespace) -> int:
    from agentreflex.core.decision import Mode, Verdict
    from agentreflex.core.hook.panels import finding_panel
    from agentreflex.core.hook.runtime import check_command, load_plugins

    words = [w for w in ns.cmd if w != "--"] if ns.cmd[:1] == ["--"] else ns.cmd
    command = " ".join(words) if len(words) != 1 else words[0]
    if not command:
        print("agentreflex check: give a command after --", file=sys.stderr)
        return 64
    mode = Mode(ns.mode)
    decision, _event = check_command(command, os.path.abspath(ns.cwd), ns.tool, mode=mode)
    plugins = load_plugins()
    if ns.json:
        out = decision.to_json()
        out["reflexes"] = [r.name for r in plugins.reflexes]
        print(json.dumps(out, ensure_ascii=False))
    else:
        if not plugins.reflexes:
            print(
                "ALLOW — no reflex package is installed (core alone allows everything; "
                "see `agentreflex doctor`)"
            )
        elif decision.proposed is Verdict.ALLOW:
            print("ALLOW — no reflex fired")
        for f in decision.findings:
            if f.verdict is not Verdict.ALLOW:
                print(finding_panel(f, decision))
                if f.detail:
                    print("Detail: " + json.dumps(f.detail, ensure_ascii=False))
                print()
    return {Verdict.BLOCK: EXIT_BLOCK, Verdict.ASK_USER: EXIT_ASK}.get(decision.verdict, 0)


def _replay(ns: argparse.Namespace) -> int:
    from agentreflex.core.hook.provenance import REFUSED, writes_live_history

    env = dict(os.environ)
    if writes_live_history(env):
        print(f"agentreflex replay: {REFUSED}", file=sys.stderr)
        return 2
    if ns.mode:
        env["REFLEX_MODE"] = ns.mode
    if ns.state_dir:
        env["AGENTREFLEX_STATE_DIR"] = os.path.abspath(ns.state_dir)
    try:
        lines = _read_lines(ns.file)
    except OSError as exc:
        print(f"agentreflex replay: cannot read {ns.file}: {exc.strerror}", file=sys.stderr)
        return 66
    for number, line in enumerate(lines, 1):
        if line.strip():
            print(
                json.dumps(replay_row(ns.host, line, env, number), ensure_ascii=False), flush=True
            )
    return 0


def replay_row(host: str, line: bytes, env: dict[str, str], number: int) -> dict[str, Any]:
    """One host payload through the real pipeline, as one JSON-able decision row."""
    from agentreflex.core.hook.runtime import run_hook
    from agentreflex.core.state.outcome import summarize

    outcome = run_hook(host, line, env)
    row: dict[str, Any] = {"line": number}
    if outcome.event is not None:
        row["event"] = outcome.event.kind.value
        if outcome.event.tool is not None:
            row["tool"] = summarize(outcome.event.tool)
    if outcome.decision is not None:
        row.update(outcome.decision.to_json())
    else:
        row["decision"] = None
        row["error"] = outcome.error
    row["stdout"] = outcome.reply.stdout
    row["exit_code"] = outcome.reply.exit_code
    return row


def _read_lines(path: str) -> list[bytes]:
    if path == "-":
        return sys.stdin.buffer.read().splitlines()
    with open(path, "rb") as fh:
        return fh.read().splitlines()


def _redact(ns: argparse.Namespace) -> int:
    from agentreflex.core.redaction.redact import redact

    data = sys.stdin.buffer.read().decode("utf-8", "replace")
    sys.stdout.write(redact(data))
    return 0


def _status(ns: argparse.Namespace) -> int:
    from agentreflex.core.cli.status import collect, render

    report = collect(os.path.abspath(ns.cwd))
    if ns.json:
        print(json.dumps(report, ensure_ascii=False, indent=2))
    else:
        print(render(report))
    return 0


def _doctor(ns: argparse.Namespace) -> int:
    from agentreflex.core.cli.doctor import diagnose, render

    report = diagnose(os.path.abspath(ns.cwd))
    if ns.json:
        print(json.dumps(report, ensure_ascii=False, indent=2))
    else:
        print(render(report))
    return 0 if report["ok"] else 1


def _config(ns: argparse.Namespace) -> int:
    from agentreflex.core.cli.configcheck import main

    return main(ns.files, ns.kind or "", os.path.abspath(ns.cwd))


def _trust(ns: argparse.Namespace) -> int:
    from agentreflex.core.cli.trust import run

    return run(ns.path, ns.show, ns.revoke)


def _state(ns: argparse.Namespace) -> int:
    """The user accepts that a session's history was lost; its stops are judged again."""
    from agentreflex.core.config.settings import load_config
    from agentreflex.core.hook.provenance import REFUSED, writes_live_history
    from agentreflex.core.state.store import SessionStore

    if writes_live_history(os.environ):
        print(f"agentreflex state: {REFUSED}", file=sys.stderr)
        return 2
    config = load_config(os.path.abspath(ns.cwd))
    store = SessionStore(config.state_dir, ns.session)
    if not sys.stdin.isatty():  # the agent's tools have no terminal: this is the user's call
        print(
            "agentreflex: `state acknowledge` accepts a lost session history, so it asks the "
            "user at a terminal; run it yourself in a terminal (not through the agent).",
            file=sys.stderr,
        )
        return 2
    answer = input(
        f"Accept that session {ns.session} lost history in {config.state_dir}? [yes/no] "
    )
    if answer.strip().lower() != "yes":
        print("not acknowledged", file=sys.stderr)
        return 1
    try:
        state = store.acknowledge()
    except OSError as exc:
        print(f"agentreflex: cannot acknowledge: {exc}", file=sys.stderr)
        return 1
    print(
        f"acknowledged: session {ns.session} in {config.state_dir} continues from its "
        f"{state.counters.events} remaining records"
    )
    return 0


def _serve(ns: argparse.Namespace) -> int:
    from agentreflex.core.hook import daemon
    from agentreflex.core.hook.client import socket_path

    if ns.status:
        pid = daemon.is_running()
        print(f"running (pid {pid}) on {socket_path()}" if pid else "not running")
        return 0 if pid else 1
    if ns.stop:
        stopped = daemon.stop()
        print("stopped" if stopped else "not running")
        return 0
    idle = ns.idle
    if idle is None:
        from agentreflex.core.config.settings import load_config

        idle = float(load_config(os.getcwd()).daemon_idle_seconds)
    if ns.detach:
        try:
            daemon.start_detached(idle)
        except OSError as exc:  # a daemon directory that is not this user's alone
            print(f"agentreflex serve: {exc}", file=sys.stderr)
            return 2
        print(f"starting the daemon on {socket_path()}")
        return 0
    return daemon.serve(idle)
