"""Each package declares itself once; core's registry flattens the declarations.

The registry imports each ``agentreflex.plugins`` declaration (a
:class:`~agentreflex.core.plugin.Plugin`) and keeps what it says as a table of
plain rows: reflexes and their places, commands, status, judge and config
sections.  A declaration that cannot be read is reported and, before a tool
call, fails closed like a broken reflex.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from agentreflex.core import registry
from agentreflex.core.config.settings import Config, ConfigError
from agentreflex.core.plugin import DEFAULT_ORDER, Section, Setting

DECLARATION = """
from agentreflex.core.plugin import Command, Plugin, ReflexEntry, Section, Setting

PLUGIN = Plugin(
    name="demo",
    reflexes=(
        ReflexEntry("early", "demo_reflexes:Early", order=5, events=("pre_tool",)),
        ReflexEntry("late", "demo_reflexes:Late", needs_history=True),
    ),
    commands=(Command("demo", "demo_cli:main"),),
    status="demo_status:status",
    judge="demo_judge:make",
    sections=(Section("demo", settings=(Setting("limit", "int", 3, low=1, high=9),)),),
    statusline="demo_status:parts",
    self_test="rm -rf /demo",
    undoable=("DEMO-DISCARD",),
)
NOT_A_PLUGIN = {"name": "demo"}
"""


@pytest.fixture()
def demo_module(tmp_path: Path) -> Iterator[str]:
    (tmp_path / "demo_declaration.py").write_text(DECLARATION, encoding="utf-8")
    sys.path.insert(0, str(tmp_path))
    yield "demo_declaration"
    sys.path.remove(str(tmp_path))
    sys.modules.pop("demo_declaration", None)


def test_a_declaration_is_flattened_into_rows(demo_module: str) -> None:
    table = registry.flatten([("demo", f"{demo_module}:PLUGIN")])
    assert table[registry.REFLEXES] == [
        ["early", "demo_reflexes:Early"],
        ["late", "demo_reflexes:Late"],
    ]
    assert table[registry.ORDER] == [["early", 5], ["late", DEFAULT_ORDER]]
    assert table[registry.EVENTS] == [["early", ["pre_tool"]]]  # late: import it to learn
    assert table["agentreflex.commands"] == [["demo", "demo_cli:main"]]
    assert table["agentreflex.status"] == [["demo", "demo_status:status"]]
    assert table["agentreflex.judges"] == [["demo", "demo_judge:make"]]
    assert table[registry.SECTIONS] == [["demo", "demo"]]
    assert table[registry.STATUSLINE] == [["demo", "demo_status:parts"]]
    assert table[registry.SELF_TESTS] == [["demo", "rm -rf /demo"]]
    assert table[registry.UNDOABLE] == [["DEMO-DISCARD", ["early", "late"]]]
    assert table[registry.NEEDS_HISTORY] == [["late", "demo"]]
    assert table[registry.ERRORS] == []


def test_a_stop_is_refused_while_history_is_lost_only_for_a_reflex_that_needs_it(
    demo_module: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Core names no reflex: the one that declares ``needs_history`` decides, if it is on."""
    from agentreflex.core.hook.runtime import _needs_history

    monkeypatch.setattr(registry, "_MEMO", registry.flatten([("demo", f"{demo_module}:PLUGIN")]))
    assert registry.history_reflexes() == ("late",)
    assert _needs_history(Config())
    assert not _needs_history(Config(disabled_reflexes=("late",)))
    assert not _needs_history(Config(reflexes_enabled=False))


def test_an_undoable_code_counts_only_from_its_own_packages_reflexes(
    demo_module: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from agentreflex.core.decision import Finding, Mode, Verdict, merge
    from agentreflex.core.worktree import relax

    monkeypatch.setattr(registry, "_MEMO", registry.flatten([("demo", f"{demo_module}:PLUGIN")]))
    assert registry.undoable_codes() == {"DEMO-DISCARD": frozenset({"early", "late"})}
    own = Finding("late", "DEMO-DISCARD", Verdict.ASK_USER, "a discard inside the project")
    borrowed = Finding("other", "DEMO-DISCARD", Verdict.ASK_USER, "not the declaring package")
    assert relax.may_relax(merge([own], Mode.ENFORCED), "asks")
    assert not relax.may_relax(merge([borrowed], Mode.ENFORCED), "asks")
    assert not relax.may_relax(merge([own], Mode.ENFORCED), "off")


def test_a_broken_declaration_is_reported_and_listed_as_a_reflex_that_fails(
    demo_module: str,
) -> None:
    table = registry.flatten(
        [("gone", "no_such_module_anywhere:PLUGIN"), ("odd", f"{demo_module}:NOT_A_PLUGIN")]
    )
    errors = dict((name, why) for name, why in table[registry.ERRORS])
    assert errors["gone"].startswith("ModuleNotFoundError")
    assert (
        errors["odd"]
        == f"TypeError: {demo_module}:NOT_A_PLUGIN is a dict, not an agentreflex Plugin"
    )
    # loading the "reflex" fails, so the runtime reports it (and fails closed before a tool call)
    assert ["gone", "no_such_module_anywhere:PLUGIN"] in table[registry.REFLEXES]


def test_before_a_tool_call_our_own_declarations_outrank_the_cached_table(
    demo_module: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    forged = {
        registry.REFLEXES: [["extra", "x:Extra"]],  # the table may add a reflex ...
        registry.ORDER: [["early", 9999], ["extra", 1]],  # ... but not move one of ours
        registry.EVENTS: [["early", ["stop"]], ["late", ["stop"]], ["extra", ["stop"]]],
    }
    monkeypatch.setattr(registry, "entry_point_table", lambda: forged)
    monkeypatch.setattr(registry, "_declared_plugins", lambda: {"demo": f"{demo_module}:PLUGIN"})
    listed, order, events = registry.reflexes_for_pre_tool()
    assert dict(listed) == {
        "early": "demo_reflexes:Early",
        "late": "demo_reflexes:Late",
        "extra": "x:Extra",
    }
    assert order == {"early": 5, "late": DEFAULT_ORDER, "extra": 1}
    # our reflexes' events only from our declarations (late declares none: it is imported)
    assert events == {"early": ["pre_tool"], "extra": ["stop"]}


REFLEXES = """
from agentreflex.core.events import EventKind


class OnStop:
    name = "on_stop"
    floor = False
    events = frozenset({EventKind.STOP})

    def evaluate(self, ctx):
        return []
"""


def test_a_hook_does_not_import_a_reflex_declared_for_other_events(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from agentreflex.core.events import EventKind
    from agentreflex.core.hook import runtime

    (tmp_path / "demo_stop_reflex.py").write_text(REFLEXES, encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    table = {
        registry.REFLEXES: [["on_stop", "demo_stop_reflex:OnStop"]],
        registry.EVENTS: [["on_stop", ["stop", "subagent_stop"]]],
    }
    monkeypatch.setattr(registry, "entry_point_table", lambda: table)
    try:
        prompt = runtime.load_plugins(refresh=True, kind=EventKind.USER_PROMPT)
        assert prompt.reflexes == [] and "demo_stop_reflex" not in sys.modules
        stop = runtime.load_plugins(refresh=True, kind=EventKind.STOP)
        assert [r.name for r in stop.reflexes] == ["on_stop"]
    finally:
        sys.modules.pop("demo_stop_reflex", None)
        runtime._LOADED.pop("demo_stop_reflex:OnStop", None)  # this process forgets the demo


def test_the_plugin_group_is_read_from_a_distributions_entry_points(tmp_path: Path) -> None:
    path = tmp_path / "entry_points.txt"
    path.write_text(
        "[agentreflex.other]\nx = a:b\n\n[agentreflex.plugins]\ndemo = demo_declaration:PLUGIN\n"
    )
    assert registry._plugin_section(str(path)) == {"demo": "demo_declaration:PLUGIN"}
    assert registry._plugin_section(str(tmp_path / "missing.txt")) == {}


def test_a_declared_setting_reads_and_checks_its_value() -> None:
    limit = Setting("limit", "int", 3, "How many.", low=1, high=9)
    section = Section("demo", settings=(limit,))
    assert section.setting("limit") is limit
    assert section.defaults() == {"limit": 3}
    assert limit.read(Config(), "demo") == 3
    assert limit.read(Config(sections={"demo": {"limit": 7}}), "demo") == 7
    with pytest.raises(ConfigError, match=r"demo\.limit: 12 is not an integer from 1 to 9"):
        limit.read(Config(sections={"demo": {"limit": 12}}), "demo")
    mode = Setting("mode", "choice", "a", allowed=("a", "b"))
    assert mode.read(Config(sections={"demo": {"mode": "B"}}), "demo") == "b"
    patterns = Setting("patterns", "list", ("*.md",))
    assert patterns.read(Config(), "demo") == ["*.md"]
    with pytest.raises(KeyError):
        section.setting("nope")


def test_a_reflex_that_declares_no_events_is_skipped_by_its_notes_until_edited(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import os

    from agentreflex.core.events import EventKind
    from agentreflex.core.hook import runtime

    module = tmp_path / "demo_undeclared_reflex.py"
    module.write_text(REFLEXES, encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    table = {registry.REFLEXES: [["on_stop", "demo_undeclared_reflex:OnStop"]]}
    monkeypatch.setattr(registry, "entry_point_table", lambda: table)

    def imported_for_a_prompt() -> bool:
        sys.modules.pop("demo_undeclared_reflex", None)
        runtime.load_plugins(refresh=True, kind=EventKind.USER_PROMPT)  # a fresh process
        return "demo_undeclared_reflex" in sys.modules

    try:
        assert imported_for_a_prompt()  # nothing known yet: imported, its events noted
        assert not imported_for_a_prompt()  # the note says it handles stops only
        stat = module.stat()
        os.utime(module, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000_000))
        assert imported_for_a_prompt()  # edited since the note: imported again
    finally:
        sys.modules.pop("demo_undeclared_reflex", None)
        runtime._LOADED.pop("demo_undeclared_reflex:OnStop", None)


def test_a_table_no_installed_package_declares_is_an_error_that_says_why() -> None:
    from agentreflex.core.config import settings as fast

    with pytest.raises(ConfigError) as table:
        fast._apply_file(Config(), {"not_installed_pkg": {"a": 1}}, "f.toml")
    assert str(table.value).startswith("f.toml: not_installed_pkg: unknown key; known: mode,")
    assert str(table.value).endswith(fast.NOT_DECLARED)
    with pytest.raises(ConfigError) as scalar:
        fast._apply_file(Config(), {"nonsense": 1}, "f.toml")
    assert not str(scalar.value).endswith(fast.NOT_DECLARED)  # a typo of a core key


def test_a_stale_table_is_scanned_again_for_a_checked_section(
    demo_module: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An editable install can change a declaration without moving any folder the cache's
    key watches: a table naming a checked section its declaration no longer has is
    scanned again once, and the fresh table is kept."""
    (tmp_path / "checked_declaration.py").write_text(
        "from agentreflex.core.plugin import Plugin, Section, Setting\n"
        'PLUGIN = Plugin(name="moved", sections=(Section("fresh", checked=True, '
        'settings=(Setting("n", "int", 1),)),))\n',
        encoding="utf-8",
    )
    stale = registry.flatten([("demo", f"{demo_module}:PLUGIN")])
    stale[registry.CHECKED].append(["fresh", f"{demo_module}:PLUGIN"])  # no longer there
    monkeypatch.setattr(registry, "_MEMO", stale)
    monkeypatch.setattr(
        registry, "_cache_path", lambda kind="entry-points": str(tmp_path / "c.json")
    )
    monkeypatch.setattr(
        registry, "_scan", lambda: registry.flatten([("moved", "checked_declaration:PLUGIN")])
    )
    try:
        assert registry.checked_section("fresh").key == "fresh"
        assert registry.entries(registry.CHECKED) == [("fresh", "checked_declaration:PLUGIN")]
        assert "checked_declaration" in (tmp_path / "c.json").read_text()  # kept for next time
        with pytest.raises(KeyError, match=r"declares the checked section \[nowhere\]"):
            registry.checked_section("nowhere")
    finally:
        sys.modules.pop("checked_declaration", None)
