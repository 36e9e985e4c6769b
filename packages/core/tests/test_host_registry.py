"""One host registry (issue 32, item 2): a host is its adapter plus one registry entry.

A toy host defined here, registered through :func:`register_host`, is driven
through ``agentreflex hook toy EVENT`` without any change to core: its event
names, what an unreadable payload is, and its answers all come from the
adapter.  A hook call imports only its own host's adapter.
"""

from __future__ import annotations

import io
import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any, ClassVar

import pytest
from agentreflex.core import cli
from agentreflex.core.decision import Decision, Finding, Verdict
from agentreflex.core.events import Event, EventKind, build_tool_call
from agentreflex.core.hook import runtime
from agentreflex.core.hook.runtime import Plugins, reconcile_event, run_hook
from agentreflex.core.hosts import (
    HOSTS,
    TRANSCRIPT_USAGE,
    UNCHECKED_STDIN,
    get_adapter,
    host_names,
    host_traits,
    register_host,
    unregister_host,
)
from agentreflex.core.hosts.base import HostReply, PayloadError
from agentreflex.core.reflex import ReflexContext


class ToyAdapter:
    """A host whose payload is ``{"hook_event_name", "sid", "cwd", "run"}``; it answers a word."""

    name = "toy"
    events: ClassVar[dict[str, EventKind]] = {
        "go": EventKind.PRE_TOOL,
        "said": EventKind.USER_PROMPT,
        "done": EventKind.STOP,
    }
    unknown_event: EventKind | None = EventKind.PRE_TOOL
    traits: frozenset[str] = frozenset({"toy-trait"})

    def parse(self, payload: dict[str, Any]) -> Event:
        name = str(payload.get("hook_event_name"))
        kind = self.events.get(name)
        if kind is None:
            raise PayloadError(f"toy event {name!r} unknown")
        event = Event(kind=kind, host=self.name, session_id=str(payload.get("sid", "s")))
        event.cwd = str(payload.get("cwd", ""))
        event.host_event = name
        if kind is EventKind.PRE_TOOL:
            event.tool = build_tool_call("bash", {"command": str(payload.get("run", ""))})
        return event

    def render(self, event: Event, decision: Decision) -> HostReply:
        word = {Verdict.BLOCK: "NO", Verdict.ASK_USER: "ASK"}.get(decision.verdict, "OK")
        return HostReply(f"{word} {event.kind.value}: {decision.reason}".strip())

    def render_error(self, kind: EventKind | None, message: str, fail_closed: bool) -> HostReply:
        refuse = fail_closed and kind is EventKind.PRE_TOOL
        return HostReply("NO (error)" if refuse else "OK (error)", message + "\n", 0)


class SentinelFloor:
    """Blocks any shell command containing SENTINEL."""

    name = "sentinel"
    events = frozenset({EventKind.PRE_TOOL})
    floor = True

    def evaluate(self, ctx: ReflexContext) -> list[Finding]:
        call = ctx.event.tool
        if call is not None and "SENTINEL" in call.command:
            return [Finding("sentinel", "TEST-SENTINEL", Verdict.BLOCK, "no SENTINEL")]
        return []


@pytest.fixture(autouse=True)
def toy_host(monkeypatch: pytest.MonkeyPatch, hook_env: dict[str, str]) -> Iterator[None]:
    for key, value in {**hook_env, "REFLEX_MODE": "enforced"}.items():
        monkeypatch.setenv(key, value)
    register_host("toy", ToyAdapter, aliases=("toy-cli",))
    runtime.set_plugins(Plugins(reflexes=[SentinelFloor()]))
    yield
    unregister_host("toy")


def _hook(monkeypatch: pytest.MonkeyPatch, capsys: Any, *argv: str, stdin: bytes) -> str:
    """``agentreflex hook ARGV...`` in this process, as the host would run it."""
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(stdin)))
    assert cli.main(["hook", *argv]) == 0
    out: str = capsys.readouterr().out
    return out


def _payload(ev: str, **fields: Any) -> bytes:
    return json.dumps({"hook_event_name": ev, "sid": "toy-1", "cwd": "/tmp", **fields}).encode()


def test_a_registered_host_is_driven_through_the_hook_command(
    monkeypatch: pytest.MonkeyPatch, capsys: Any
) -> None:
    """The floors run on the toy host's tool call and the toy host's own answer comes back."""
    blocked = _hook(monkeypatch, capsys, "toy", "go", stdin=_payload("go", run="echo SENTINEL"))
    assert blocked.startswith("NO pre_tool") and "SENTINEL" in blocked
    allowed = _hook(monkeypatch, capsys, "toy-cli", "go", stdin=_payload("go", run="ls"))
    assert allowed == "OK pre_tool:"


def test_the_registration_names_an_event_of_the_host_itself() -> None:
    """``hook toy go`` is looked up in the toy adapter's events: it wins over the payload."""
    outcome = run_hook("toy", _payload("said", run="echo SENTINEL"), event_hint="go")
    assert outcome.reply.stdout.startswith("NO pre_tool")
    assert "registered for go" in outcome.reply.stderr
    fixed, note = reconcile_event(
        "toy", json.loads(_payload("done")), "said", EventKind.USER_PROMPT
    )
    assert fixed["hook_event_name"] == "said" and "handled as said" in note


def test_an_unreadable_payload_is_what_the_adapter_says() -> None:
    """The toy adapter takes an unreadable payload for a tool call: its error refuses."""
    outcome = run_hook("toy", b"not json")
    assert outcome.reply.stdout == "NO (error)"
    # Claude Code leaves it unknown: its error does not pretend to refuse a tool call
    assert get_adapter("claude-code").unknown_event is None
    assert run_hook("claude-code", b"not json").reply.exit_code == 0


def test_the_registry_lists_and_guards_names() -> None:
    assert host_names() == (*HOSTS, "toy")
    assert isinstance(get_adapter("toy-cli"), ToyAdapter)
    for taken in ("toy", "codex", "claude"):
        with pytest.raises(ValueError, match="already registered"):
            register_host(taken, ToyAdapter)
    with pytest.raises(ValueError, match="built-in"):
        unregister_host("codex")
    unregister_host("toy")
    with pytest.raises(ValueError, match="unknown host 'toy-cli'"):
        get_adapter("toy-cli")
    register_host("toy", f"{__name__}:ToyAdapter")  # lazy "module:callable" form
    assert isinstance(get_adapter("toy"), ToyAdapter)


def test_traits_are_the_adapters() -> None:
    assert host_traits("toy") == {"toy-trait"}
    assert host_traits("codex") == {UNCHECKED_STDIN}
    assert host_traits("claude-code") == {TRANSCRIPT_USAGE}
    assert host_traits("cursor") == frozenset()
    for host in HOSTS:
        adapter = get_adapter(host)
        assert adapter.events, host
        assert all(isinstance(kind, EventKind) for kind in adapter.events.values()), host


def test_a_hook_imports_only_its_own_hosts_adapter() -> None:
    """Gemini's hook imports Gemini's adapter and no other host's."""
    code = (
        "import sys, json\n"
        "from agentreflex.core.hook.runtime import run_hook\n"
        "p = {'hook_event_name': 'BeforeTool', 'session_id': 's', 'cwd': '/tmp',"
        " 'tool_name': 'run_shell_command', 'tool_input': {'command': 'ls'}}\n"
        "run_hook('gemini', json.dumps(p).encode(), event_hint='BeforeTool')\n"
        "print(json.dumps(sorted(m for m in sys.modules if m.startswith('agentreflex.core.hosts.'))))\n"
    )
    env = {"AGENTREFLEX_DAEMON": "off", "HOME": "/nonexistent", "PATH": "/usr/bin:/bin"}
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=60
    )
    loaded = json.loads(done.stdout.strip().splitlines()[-1])
    assert "agentreflex.core.hosts.gemini" in loaded
    others = ("claude_code", "codex", "hermes", "opencode", "pi", "copilot", "jsshim")
    assert not [m for m in loaded if m.rsplit(".", 1)[-1] in others]


TOY_MODULE = """
from agentreflex.core.decision import Verdict
from agentreflex.core.events import Event, EventKind, build_tool_call
from agentreflex.core.hosts.base import HostReply
from agentreflex.core.plugin import Plugin


class Adapter:
    name = "toyhost"
    events = {"go": EventKind.PRE_TOOL}
    unknown_event = EventKind.PRE_TOOL
    traits = frozenset()

    def parse(self, payload):
        event = Event(kind=EventKind.PRE_TOOL, host=self.name, session_id="t", cwd=payload["cwd"])
        event.tool = build_tool_call("bash", {"command": payload["run"]})
        return event

    def render(self, event, decision):
        return HostReply("NO" if decision.verdict is Verdict.BLOCK else "OK")

    def render_error(self, kind, message, fail_closed):
        return HostReply("NO (error)", message + "\\n", 0)


PLUGIN = Plugin(name="toyhost", hosts=(("toyhost", "toyhost:Adapter"),))
"""


def test_a_host_from_an_installed_distribution_needs_no_change_to_core(
    tmp_path: Path, cli_env: dict[str, str], project: Path
) -> None:
    """An unpacked wheel (a module and its dist-info with one entry point) on the path
    is a host ``agentreflex hook`` answers for, in a fresh process: its events name
    the registration, its answers come back, and a payload it cannot read is refused
    as the proposed tool call its registration says it is."""
    site = tmp_path / "site"
    (site / "toyhost-0.1.dist-info").mkdir(parents=True)
    (site / "toyhost.py").write_text(TOY_MODULE)
    (site / "toyhost-0.1.dist-info" / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: toyhost\nVersion: 0.1\n"
    )
    (site / "toyhost-0.1.dist-info" / "entry_points.txt").write_text(
        "[agentreflex.plugins]\ntoyhost = toyhost:PLUGIN\n"
    )
    env = {**cli_env, "PYTHONPATH": str(site), "REFLEX_MODE": "enforced"}

    def hook(payload: dict[str, str]) -> str:
        done = subprocess.run(
            [sys.executable, "-m", "agentreflex.core.cli", "hook", "toyhost", "go"],
            input=json.dumps({"cwd": str(project), **payload}),
            capture_output=True,
            text=True,
            env=env,
            timeout=60,
        )
        assert done.returncode == 0, done.stderr
        return done.stdout

    assert hook({"run": "ls"}) == "OK"
    assert hook({}) == "NO (error)"  # no "run": the toy's parse fails, the call is refused
