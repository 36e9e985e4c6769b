"""Host adapters: each host payload in, each host-native answer out.

One registry finds them.  A host's name (and any alias) maps to where its
adapter is made, as a ``"module:callable"`` string, so a hook call imports
only its own host's adapter module.  Everything host-specific lives in the
adapter: its event names (``events``), its tool names (read in ``parse``),
what an unreadable payload is taken for (``unknown_event``), what it does
differently from other hosts (``traits``) and its answers (``render``).
Core and the reflexes ask the adapter, never test a host's name.

Adding a host is its adapter module, its installer, and one line in
``_BUILT_IN``.  A host from another distribution is declared where its
package declares everything else: its plugin declaration's ``hosts`` and
``installers`` (:class:`agentreflex.core.plugin.Plugin`, entry-point group
``agentreflex.plugins``), looked up only when a name is not registered, so the
built-in hosts never pay for the scan; code in the same process may call
:func:`register_host` instead.  ``tests/test_example_plugin_wheel.py`` adds a
host that way, from a wheel, with no line of core changed.

Stdlib only, and no adapter imported here: this module is on every hook call.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable

    from agentreflex.core.protocols import HostAdapter

    Factory = str | Callable[[], HostAdapter]

# Traits an adapter may declare (``traits``): what its host does that a reflex
# must allow for.  A reflex asks :func:`host_traits`, never for a host by name.
UNCHECKED_STDIN = "unchecked-stdin"
"""Input typed into a process a tool left running reaches no hook (Codex's ``write_stdin``)."""
TRANSCRIPT_USAGE = "transcript-usage"
"""``transcript_path`` is a Claude Code transcript whose entries carry token usage."""

_BUILT_IN: dict[str, str] = {
    "claude-code": "agentreflex.core.hosts.claude_code:ClaudeCodeAdapter",
    "codex": "agentreflex.core.hosts.codex:CodexAdapter",
    "hermes": "agentreflex.core.hosts.hermes:HermesAdapter",
    "opencode": "agentreflex.core.hosts.opencode:OpenCodeAdapter",
    "pi": "agentreflex.core.hosts.pi:PiAdapter",
    "omp": "agentreflex.core.hosts.pi:OmpAdapter",
    "gemini": "agentreflex.core.hosts.gemini:GeminiAdapter",
    "copilot": "agentreflex.core.hosts.copilot:CopilotAdapter",
}
_registry: dict[str, Factory] = dict(_BUILT_IN)
_aliases: dict[str, str] = {"claude": "claude-code"}

HOSTS = tuple(_BUILT_IN)
"""The hosts agentreflex ships adapters for (:func:`host_names` adds registered ones)."""


def register_host(name: str, factory: Factory, aliases: Iterable[str] = ()) -> None:
    """Make ``agentreflex hook NAME`` use the adapter ``factory()`` returns.

    ``factory`` is a zero-argument callable or a lazy ``"module:callable"``
    string.  A name already taken (a built-in host or an alias) is a
    ValueError: a plug-in must not silently take over a host's answers.
    """
    names = [name, *aliases]
    taken = [n for n in names if n in _registry or n in _aliases]
    if taken or not name:
        raise ValueError(f"host name already registered or empty: {', '.join(taken) or '(empty)'}")
    _registry[name] = factory
    for alias in aliases:
        _aliases[alias] = name


def unregister_host(name: str) -> None:
    """Forget a host added by :func:`register_host` (and its aliases); built-ins stay."""
    if name in _BUILT_IN:
        raise ValueError(f"{name!r} is a built-in host")
    _registry.pop(name, None)
    for alias in [a for a, target in _aliases.items() if target == name]:
        del _aliases[alias]


def host_names() -> tuple[str, ...]:
    """Every host ``agentreflex hook`` answers for, built-ins first (aliases left out)."""
    return tuple(_registry)


ENTRY_POINT_GROUP = "agentreflex.plugins"  # the one group each package declares itself in
_undeclared: set[str] = set()


def get_adapter(host: str) -> HostAdapter:
    """The adapter for a host name; ValueError names the supported hosts."""
    factory = _registry.get(_aliases.get(host, host)) or _declared(host)
    if factory is None:
        raise ValueError(f"unknown host {host!r}; supported: {', '.join(host_names())}")
    if isinstance(factory, str):
        module, _, attr = factory.partition(":")
        # __import__, not importlib: a hook process has not imported importlib
        factory = getattr(__import__(module, fromlist=[attr]), attr)
    return factory()


def _declared(host: str) -> str | None:
    """``module:callable`` of a host an installed distribution declares, or None.

    Cold path: reached only for a name no built-in or registration answers,
    and once per name and process (a name found missing stays missing).
    """
    if not host or host in _undeclared:
        return None
    from importlib.metadata import entry_points

    for ep in entry_points(group=ENTRY_POINT_GROUP):
        try:
            declared = dict(getattr(ep.load(), "hosts", ()))
        except Exception:  # a broken declaration adds no host; the registry reports it
            continue
        spec = declared.get(host)
        if isinstance(spec, str):
            _registry[host] = spec
            return spec
    _undeclared.add(host)
    return None


def host_traits(host: str) -> frozenset[str]:
    """What the host does differently (see the trait names above); empty when unknown."""
    try:
        traits: frozenset[str] = get_adapter(host).traits
    except ValueError:
        return frozenset()
    return traits
