"""``agentreflex trust [PATH] [--show|--revoke]``: the user approves a project's config.

A project's ``.agentreflex/config.toml`` may tighten protection without
asking; whatever it weakens waits for this command (see
:mod:`agentreflex.core.config.trust`).  Before approving, it prints what the
content weakens compared with what applies now, so the user approves
knowingly.  Cold path.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Mapping

from agentreflex.core.config import trust
from agentreflex.core.config.settings import ConfigError, load_config, project_root


def config_file(target: str) -> str:
    """The config file a PATH names: a file as given, a directory's project config."""
    path = os.path.abspath(target or os.getcwd())
    if os.path.isdir(path):
        direct = os.path.join(path, ".agentreflex", "config.toml")
        if os.path.isfile(direct):
            return direct
        return os.path.join(project_root(path), ".agentreflex", "config.toml")
    return path


def run(target: str, show: bool, revoke: bool, env: Mapping[str, str] | None = None) -> int:
    env = os.environ if env is None else env
    if show:
        return _show(target, env)
    path = config_file(target)
    if revoke:
        return _revoke(path, env)
    return _approve(path, env)


def _approve(path: str, env: Mapping[str, str]) -> int:
    if not os.path.isfile(path):
        print(f"agentreflex trust: no configuration file at {path}", file=sys.stderr)
        return 1
    shown = trust.current_sha(path)  # what the user is shown is what gets approved
    approvals, _problem = trust.list_approvals(env)
    if any(a.path == trust.config_key(path) and a.sha256 == shown for a in approvals):
        print(f"{path} is already approved as it is (sha256 {shown[:12]})")
        return 0
    project = _project_of(path)
    try:
        config = load_config(project, env) if project else None
    except ConfigError as exc:
        print(f"agentreflex trust: not approved, fix the file first: {exc}", file=sys.stderr)
        return 1
    if config is not None and config.pending_sha256 not in ("", shown):
        print(f"agentreflex trust: {path} changed while it was read; run again", file=sys.stderr)
        return 1
    withheld = [] if config is None or config.pending_config != path else config.untrusted
    if config is None:
        print(f"{path}: approving its exact current content (what it allows is its package's)")
    elif withheld:
        print(f"{path} weakens protection compared with what applies now:")
        for line in withheld:
            print(f"  - {line.removeprefix(path + ': ')}")
    else:
        print(f"{path} weakens nothing compared with what applies now.")
    try:
        approval = trust.approve(path, env, expected_sha256=shown)
    except trust.ContentChanged as exc:
        print(f"agentreflex trust: {exc}; run again", file=sys.stderr)
        return 1
    except OSError as exc:
        print(f"agentreflex trust: cannot approve {path}: {exc.strerror or exc}", file=sys.stderr)
        return 1
    print(
        f"approved {approval.path} (sha256 {approval.sha256[:12]}); "
        "any change to it needs approving again"
    )
    return 0


def _project_of(path: str) -> str:
    """The project a ``<project>/.agentreflex/config.toml`` belongs to ("" for another file)."""
    folder = os.path.dirname(path)
    if os.path.basename(path) == "config.toml" and os.path.basename(folder) == ".agentreflex":
        return os.path.dirname(folder)
    return ""


def _revoke(path: str, env: Mapping[str, str]) -> int:
    try:
        removed = trust.revoke(path, env)
    except OSError as exc:
        print(f"agentreflex trust: cannot revoke: {exc.strerror or exc}", file=sys.stderr)
        return 1
    if removed is None:
        print(f"{trust.config_key(path)} had no approval")
    else:
        print(f"revoked the approval of {trust.config_key(path)} (sha256 {removed[:12]})")
    return 0


def _show(target: str, env: Mapping[str, str]) -> int:
    approvals, problem = trust.list_approvals(env)
    if problem:
        print(f"warning: {problem}")
    if not approvals:
        print("no approved configuration files")
    for a in approvals:
        now = trust.current_sha(a.path)
        state = (
            "current content approved"
            if now == a.sha256
            else "file missing or unreadable"
            if not now
            else f"changed since (now {now[:12]}): the changes wait for approval"
        )
        when = time.strftime("%Y-%m-%d %H:%M", time.localtime(a.approved_at))
        print(f"{a.path}\n  approved {when}, sha256 {a.sha256[:12]}: {state}")
    path = config_file(target)
    keys = {a.path for a in approvals}
    if os.path.isfile(path) and trust.config_key(path) not in keys:
        print(f"{path}\n  never approved: whatever it weakens is withheld")
    return 0
