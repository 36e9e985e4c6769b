"""The ``install`` and ``uninstall`` subcommands: one flow for every host."""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any, TextIO

from agentreflex.core.install import manifest, sandbox
from agentreflex.core.install.base import HostInstaller, Options, default_binary
from agentreflex.core.install.claude_code import ClaudeCodeInstaller
from agentreflex.core.install.codex import CodexInstaller
from agentreflex.core.install.copilot import CopilotInstaller
from agentreflex.core.install.gemini import GeminiInstaller
from agentreflex.core.install.hermes import HermesInstaller
from agentreflex.core.install.jshosts import JsHostInstaller
from agentreflex.core.install.manifest import Record
from agentreflex.core.install.settingsfile import (
    Change,
    InstallError,
    apply,
    dump_json,
    parse_json_object,
    read_text,
    refuse_read_only,
)

BUILT_IN: dict[str, HostInstaller] = {
    "claude-code": ClaudeCodeInstaller(),
    "codex": CodexInstaller(),
    "hermes": HermesInstaller(),
    "opencode": JsHostInstaller("opencode"),
    "pi": JsHostInstaller("pi"),
    "omp": JsHostInstaller("omp"),
    "gemini": GeminiInstaller(),
    "copilot": CopilotInstaller(),
}
NOT_YET: dict[str, str] = {}


def installers() -> dict[str, HostInstaller]:
    """The built-in installers, then those installed packages declare (``Plugin.installers``).

    A declared name a built-in already has is ignored (a package must not take
    over a host's install), and one that cannot be loaded is left out: ``doctor``
    reports a broken declaration.  Cold path: imports the declarations.
    """
    from agentreflex.core import registry

    found = dict(BUILT_IN)
    for plugin in registry.declarations():
        for name, spec in plugin.installers:
            if name in found:
                continue
            try:
                found[name] = registry.load_object(spec)()
            except Exception:  # a broken installer adds no host
                continue
    return found


def add_arguments(install: argparse.ArgumentParser, uninstall: argparse.ArgumentParser) -> None:
    for p in (install, uninstall):
        p.add_argument("host", help=", ".join(BUILT_IN) + ", or one an installed package declares")
        where = p.add_mutually_exclusive_group()
        where.add_argument(
            "--user", dest="scope", action="store_const", const="user", help="(default) your own"
        )
        where.add_argument(
            "--project",
            dest="scope",
            action="store_const",
            const="project",
            help="the project's .claude/settings.json or .codex/hooks.json",
        )
        where.add_argument(
            "--local",
            dest="scope",
            action="store_const",
            const="local",
            help="Claude Code: the project's settings.local.json (not committed)",
        )
        p.set_defaults(scope="user")
        p.add_argument("--project-dir", default=os.getcwd(), help="the project (default: cwd)")
        p.add_argument("--dry-run", action="store_true", help="print the diff, write nothing")
    install.add_argument("--bin", help="the agentreflex script the hooks call (default: this one)")
    install.add_argument(
        "--statusline", action="store_true", help="Claude Code: show agentreflex's status line"
    )
    install.add_argument(
        "--sandbox",
        action="store_true",
        help="Claude Code: OS sandbox with agentreflex's own files read-only to the agent",
    )


def installer_for(host: str) -> HostInstaller:
    known_now = installers()
    if host in known_now:
        return known_now[host]
    if host in NOT_YET:
        raise InstallError(
            f"`agentreflex install {host}` is not available yet: see {NOT_YET[host]} "
            f"(until then, wire `agentreflex hook {host}` by hand as that host's README says)"
        )
    known = ", ".join([*known_now, *NOT_YET])
    raise InstallError(f"unknown host {host!r} (known: {known})")


def _binary(ns: argparse.Namespace) -> str:
    chosen = getattr(ns, "bin", None) or default_binary()
    if not chosen:
        raise InstallError(
            f"cannot find this installation's agentreflex script beside {sys.executable}; "
            "pass --bin /absolute/path/to/agentreflex"
        )
    if not os.path.isabs(chosen):
        raise InstallError(f"--bin must be an absolute path, not {chosen!r}")
    if not (os.path.isfile(chosen) and os.access(chosen, os.X_OK)):
        raise InstallError(f"{chosen} is not an executable file")
    return chosen


def _options(ns: argparse.Namespace, binary: str) -> Options:
    return Options(
        scope=ns.scope,
        project=os.path.abspath(ns.project_dir),
        binary=binary,
        sandbox=bool(getattr(ns, "sandbox", False)),
        statusline=bool(getattr(ns, "statusline", False)),
    )


def _report(change: Change, dry_run: bool, out: TextIO) -> None:
    if not change.changed:
        print(f"{change.path}: already up to date; nothing changed", file=out)
        return
    out.write(change.diff())
    if dry_run:
        print(f"(dry run: {change.path} was not written)", file=out)


def run_install(ns: argparse.Namespace, out: TextIO | None = None) -> int:
    out = out or sys.stdout
    host = installer_for(ns.host)
    if ns.statusline and ns.host != "claude-code":
        raise InstallError(f"--statusline is for claude-code, not {ns.host}")
    opts = _options(ns, _binary(ns))
    path = host.settings_path(opts.scope, opts.project, os.environ)
    before = read_text(path)
    settings = parse_json_object(path, before)
    log: list[Record] = []
    try:
        after_obj = host.wire(settings, opts, log)
    except InstallError as exc:
        raise InstallError(str(exc) if path in str(exc) else f"{path}: {exc}") from exc
    change = Change(path, before, before if after_obj == settings else dump_json(after_obj))
    if before is None and change.changed:
        log.insert(0, {"keys": [], "file_created": True})  # uninstall may delete it again
    extras = host.extra_install(opts)
    if not ns.dry_run:
        refuse_read_only([change, *extras])
    for item in (change, *extras):
        _report(item, ns.dry_run, out)
    if not ns.dry_run:
        if opts.sandbox:
            sandbox.prepare(opts)
        # recorded before the write: an install cut short after it is still undone
        kept = manifest.records_for(path)
        if log:
            manifest.save(path, [*kept, *log])
        try:
            backup = apply(change)
        except BaseException:
            if log and _unwritten(change):
                manifest.save(path, kept)
            raise
        if backup:  # uninstall puts the user's own text back from it, when nothing else changed
            manifest.save(path, [*kept, *log, {"keys": [], "backup": backup}])
        if backup:
            print(f"backup of the old file: {backup}", file=out)
        if change.changed:
            print(f"wired {ns.host} hooks in {path} -> {opts.binary}", file=out)
        _apply_extras(extras, out)
        finish = getattr(host, "finish_install", None)  # Hermes: `hermes plugins enable`
        if finish is not None:
            finish(opts, out)
        if opts.binary == default_binary():  # the hooks run this installation's code
            _compile(out)
    for note in host.notes(opts, settings):
        print(note, file=out)
    from agentreflex.core.install.launcher import launch, programs, writable_by_commands

    for program in writable_by_commands(programs(launch(opts.binary)), opts.project):
        print(
            f"warning: {program} is in a folder the agent's contained commands can rewrite, "
            "and every hook would run what they wrote there outside any boundary; install "
            "agentreflex outside the project (`uv tool install`, pipx) and pass that --bin",
            file=out,
        )
    _check_config(opts.project or os.getcwd(), out)
    return 0


def _check_config(cwd: str, out: TextIO) -> None:
    """The hooks just wired will read these files: say now if one of them is broken."""
    from agentreflex.core.cli.configcheck import check_paths, default_files

    problems = [p.render() for found in check_paths(default_files(cwd)).values() for p in found]
    for line in problems:
        print(f"config problem (the hooks will report it too): {line}", file=out)


def _compile(out: TextIO) -> None:
    from agentreflex.core.install.bytecode import compile_installation

    done, failed = compile_installation()
    if done:
        print(f"compiled the bytecode of {len(done)} installed folder(s)", file=out)
    for folder in failed:
        print(
            f"note: could not compile {folder} (read-only?): hooks compile it each time", file=out
        )
    _separate_links(out)


def _separate_links(out: TextIO) -> None:
    """Give the hook's code files their own copies now, not before the first contained command.

    uv links its cache's files into the environment; enforced mode copies them apart before
    each shell command when the installation changed (``contain/ownlinks.py``). Done here,
    after the bytecode is written, the first command after an install does not wait for
    the walk (about 6 s on this project's machine), and a daemon started after the install
    sees the installation as it will stay.
    """
    from agentreflex.core.contain import ownlinks
    from agentreflex.core.state.userdirs import user_state_dir

    copied = ownlinks.separate(user_state_dir())
    if copied:
        print(f"gave {len(copied)} hard-linked file(s) of the hook's code their own copy", file=out)


def _apply_extras(extras: list[Change], out: TextIO) -> None:
    for extra in extras:
        backup = apply(extra)
        if extra.before is None and extra.changed:
            manifest.save(extra.path, [{"keys": [], "file_created": True}])
        elif extra.after is None:
            manifest.save(extra.path, [])
        if backup:
            print(f"backup of the old file: {backup}", file=out)


def _unwritten(change: Change) -> bool:
    """``change`` is not in its file (a write that failed, or never began)."""
    try:
        return read_text(change.path) != change.after
    except InstallError:
        return True


def _removed_if_made(change: Change) -> Change:
    """``change``, deleting the file instead where install made it and nothing is left in it
    (a host config made only to list our plugin: OpenCode's opencode.json, pi's settings.json)."""
    if change.after is None or change.after.strip() not in ("", "{}"):
        return change
    if not any(r.get("file_created") for r in manifest.records_for(change.path)):
        return change
    return Change(change.path, change.before, None)


def _as_the_user_wrote(settings: dict[str, Any], records: list[Record]) -> str | None:
    """The text of the file as it was before install (its backup), when it holds exactly
    ``settings`` (compared as JSON, where 1 is not true): the user's own layout back."""
    wanted = dump_json(settings)
    for record in records:
        backup = record.get("backup")
        if not isinstance(backup, str):
            continue
        try:
            text = read_text(backup)
            if text is not None and dump_json(parse_json_object(backup, text)) == wanted:
                return text
        except InstallError:
            continue
    return None


def run_uninstall(ns: argparse.Namespace, out: TextIO | None = None) -> int:
    out = out or sys.stdout
    host = installer_for(ns.host)
    path = host.settings_path(ns.scope, os.path.abspath(ns.project_dir), os.environ)
    before = read_text(path)
    settings = parse_json_object(path, before)
    after_obj = host.unwire(settings, path)
    records = manifest.records_for(path)
    manifest.undo(after_obj, records)
    if after_obj == settings:
        after: str | None = before
    elif not after_obj and any(r.get("file_created") for r in records):
        after = None
    else:
        after = _as_the_user_wrote(after_obj, records) or dump_json(after_obj)
    change = Change(path, before, after)
    extras = [
        _removed_if_made(e) for e in host.extra_uninstall(ns.scope, os.path.abspath(ns.project_dir))
    ]
    if not ns.dry_run:
        refuse_read_only([change, *extras])
    for item in (change, *extras):
        _report(item, ns.dry_run, out)
    if not ns.dry_run:
        prepare = getattr(host, "prepare_uninstall", None)  # Hermes: `hermes plugins disable`
        if prepare is not None:
            prepare(ns.scope, os.path.abspath(ns.project_dir), out)
        _apply_extras(extras, out)
        backup = apply(change)
        if records:
            manifest.save(path, [])
        if backup:
            print(f"backup of the old file: {backup}", file=out)
        if change.changed:
            print(f"removed agentreflex's {ns.host} entries from {path}", file=out)
        finish = getattr(host, "finish_uninstall", None)
        if finish is not None:
            finish(ns.scope, os.path.abspath(ns.project_dir), out)
    return 0


def main(args: list[str], command: str) -> int:
    """``agentreflex install|uninstall ...``: 0 done, 1 refused (with the reason on stderr)."""
    parser = argparse.ArgumentParser(prog=f"agentreflex {command}")
    other = argparse.ArgumentParser()
    if command == "install":
        add_arguments(parser, other)
    else:
        add_arguments(other, parser)
    ns = parser.parse_args(args)
    try:
        return run_install(ns) if command == "install" else run_uninstall(ns)
    except InstallError as exc:
        print(f"agentreflex {command}: {exc}", file=sys.stderr)
        return 1
    except BrokenPipeError:
        raise  # `agentreflex install --dry-run | head`: dispatch ends it quietly
    except OSError as exc:
        where = f" ({exc.filename})" if exc.filename else ""
        print(
            f"agentreflex {command}: {exc.strerror}{where}; see the backup, if any", file=sys.stderr
        )
        return 1
