"""``doctor`` and ``status``: is each host's shell contained, and what an agent could still do.

Why a module apart from :mod:`agentreflex.core.contain.boundary`: that one is on the
hook's path; this one reads hosts' settings files, which only the
diagnostics need.

Each host's adapter declares how its commands are contained (``containment``):

* ``"module:function"``: the host's own sandbox, checked by the adapter's
  function from the host's settings (Claude Code, Codex); where that sandbox
  is off, an adapter whose hook then uses ours says so with
  ``containment_otherwise = OUR_BOUNDARY`` (Claude Code);
* :data:`OUR_BOUNDARY`: agentreflex's bubblewrap boundary (:func:`contain.status`;
  the hook replaces each shell command, :mod:`agentreflex.core.hosts.contained`),
  with ``containment_limits`` saying where it does not (Copilot CLI);
* nothing: not contained, and ``not_contained`` says why (Hermes).
"""

from __future__ import annotations

import importlib
import os
import sys
import sysconfig
from collections.abc import Mapping

from agentreflex.core.contain import boundary as contain
from agentreflex.core.hosts import get_adapter, host_names

__all__ = ["OUR_BOUNDARY", "host_containment", "interpreter_writable", "terminal_injection"]

# An adapter's ``containment`` when the hook puts its shell commands in our bubblewrap.
OUR_BOUNDARY = "bwrap"


def host_containment(
    project: str, enforced: bool, env: Mapping[str, str] | None = None
) -> list[tuple[str, bool, str]]:
    """(host, contained, detail) for every host; detail says why, or what holds.

    What an agent can still do where no boundary holds is the same for every host:
    doctor says it once (``contain.UNCONTAINED_RISKS``).

    The guard's own boundary is on in enforced mode only: in shadow mode the
    agent's commands run as written.
    """
    values = os.environ if env is None else env
    own, why = contain.status(values)
    if own and not enforced:
        own, why = (
            False,
            "not contained: shadow mode (in enforced mode shell commands run in bubblewrap)",
        )
    return [(host, *_host_row(host, project, values, own, why)) for host in host_names()]


def _host_row(
    host: str, project: str, env: Mapping[str, str], own: bool, why: str
) -> tuple[bool, str]:
    """What the host's adapter declares (``containment``): its own sandbox, ours, or none."""
    adapter = get_adapter(host)
    how = getattr(adapter, "containment", "")
    if how == OUR_BOUNDARY:
        ours = why.replace("shell commands run", f"{host}'s shell commands run")
        limits = getattr(adapter, "containment_limits", "")
        return own, f"{ours}; {limits}" if own and limits else ours
    if how:
        module, _, attr = how.partition(":")
        check = getattr(importlib.import_module(module), attr)
        contained, detail = check(project, env)
        otherwise = getattr(adapter, "containment_otherwise", "")
        # a check that says some commands run "outside every boundary": ours does not hold those
        if not contained and otherwise == OUR_BOUNDARY and "outside every boundary" not in detail:
            ours = why.replace("shell commands run", f"{host}'s shell commands run")
            return own, f"{ours}; {detail.removeprefix('not contained: ')}" if own else why
        return bool(contained), str(detail)
    return False, getattr(adapter, "not_contained", "") or f"not contained: {host} has no boundary"


_TIOCSTI = "/proc/sys/dev/tty/legacy_tiocsti"


def terminal_injection(switch: str = _TIOCSTI, filtered: bool | None = None) -> str:
    """What doctor says when this kernel lets a command type into its terminal ("" when not).

    Why: a contained command keeps the host's controlling terminal (no new
    session: a host ends a command by its process group), so where the
    kernel still allows ``TIOCSTI`` it could push keystrokes into the host's
    own input, outside any boundary.  Commands in agentreflex's boundary
    can't (:mod:`.terminal`, ``filtered``: a filter ships for this machine);
    a command no boundary holds, or a host's own sandbox, may.  Hosts whose
    rules still expect the line without the filter are named.
    """
    try:
        with open(switch, encoding="ascii") as handle:
            allowed = handle.read().strip() == "1"
    except OSError:
        return ""  # a kernel before 6.2 has no switch: nothing to say it by
    if not allowed:
        return ""
    if filtered is None:
        from agentreflex.core.contain.terminal import shipped

        filtered = shipped() is not None
    off = "`sysctl -w dev.tty.legacy_tiocsti=0` turns it off"
    if not filtered:
        return (
            "this kernel lets a command type into the terminal it was started from (TIOCSTI), "
            f"a way past containment into the host's own input: {off}"
        )
    stale = [
        host
        for host in host_names()
        if getattr(get_adapter(host), "terminal_filter", lambda: True)() is False
    ]
    waiting = (
        f"; {', '.join(stale)}: not until `agentreflex install {stale[0]}` runs again"
        if stale
        else ""
    )
    return (
        "this kernel lets a command type into the terminal it was started from (TIOCSTI); "
        "commands in agentreflex's boundary can't (a seccomp filter refuses it)"
        f"{waiting}; a command no boundary holds can: {off}"
    )


def interpreter_writable() -> list[str]:
    """The hook interpreter's folders this user could write without containment."""
    folders = {sys.prefix, sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]}
    return sorted(f for f in folders if os.path.isdir(f) and os.access(f, os.W_OK))
