"""What a package tells core about itself: one declaration per package.

Why: core must not know its siblings by name.  Each package exports one
:class:`Plugin` under the ``agentreflex.plugins`` entry-point group
(``name = "agentreflex.<pkg>.plugin:PLUGIN"``) and nothing else registers
it: core reads that one declaration to learn what the package adds.  Core's
registry reads the declarations and everything else — which reflexes run
and in what order, which commands and status sections exist, which config
sections are known and what their keys are — loops over them.  So a
package's ``plugin.py`` says only what that package adds.

A declaration is plain data (frozen records, strings, numbers), so reading
one imports nothing but this module: the hook path stays standard-library
only.  The config section's keys are declared here once; the package reads
its values through :meth:`Setting.read` and the JSON Schema and
``config check`` are built from the same records on the cold path
(:mod:`agentreflex.core.config.schema`).
"""

from __future__ import annotations

from agentreflex.core.util.record import record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping
    from typing import Any

    from agentreflex.core.config.settings import Config
    from agentreflex.core.events import EventKind

__all__ = [
    "GROUP",
    "Command",
    "Plugin",
    "PolicyFile",
    "ReflexEntry",
    "Section",
    "Setting",
    "command_words",
    "run_subcommand",
]

GROUP = "agentreflex.plugins"
# Where a reflex that declares no place runs: after the ones that do.
DEFAULT_ORDER = 1000
# The ways a setting's value can be stricter (see core.config.STRICTNESS).
STRICTER = ("same", "lower", "higher", "free", "order")


@record(frozen=True)
class Setting:
    """One key of a config section: its type, default, bounds and meaning.

    ``kind`` is one of :func:`agentreflex.core.config.settings.section_value`'s kinds
    (``str``, ``int``, ``float``, ``prob``, ``bool``, ``choice``, ``list``);
    ``low``/``high`` bound ``int`` and ``float``, ``allowed`` lists a
    ``choice``'s values.  ``stricter`` says which direction protects more
    (``lower``, ``higher``; ``order``: the values in ``order``, weakest
    first), that any change needs approval (``same``), or that the key does
    not affect protection (``free``).

    Where the default comes from, when the key is not written: ``env``
    names an environment variable that, when set, overrides every file
    (core applies it when it loads the config); ``profiles`` gives the
    default per profile (``(("lean", "off"), ...)``; a profile not listed
    keeps ``default``).  ``follows`` names another key of the same section
    that switches this one: the value ``inherit`` takes that key's value,
    and that key's ``off`` switches this one off whatever it says.
    """

    key: str
    kind: str
    default: Any
    description: str = ""
    low: Any = None
    high: Any = None
    allowed: tuple[str, ...] = ()
    stricter: str = "same"
    order: tuple[str, ...] = ()
    env: str = ""
    profiles: tuple[tuple[str, Any], ...] = ()
    follows: str = ""

    def bounds(self) -> dict[str, Any]:
        """The keyword bounds :func:`section_value` takes for this kind."""
        if self.kind == "choice":
            return {"allowed": self.allowed}
        out: dict[str, Any] = {}
        if self.low is not None:
            out["low"] = self.low
        if self.high is not None:
            out["high"] = self.high
        return out

    def default_for(self, profile: str) -> Any:
        """The value when no file or variable sets the key, under ``profile``."""
        default = dict(self.profiles).get(profile, self.default)
        return list(default) if isinstance(default, tuple) else default

    def read(self, config: Config, section: str) -> Any:
        """This key's validated value in ``config`` (the default when absent).

        A top-level key only; :meth:`Section.value` also reads a sub-table's
        key and resolves ``follows``.
        """
        from agentreflex.core.config.settings import section_value

        default = self.default_for(config.profile)
        return section_value(config, section, self.key, default, self.kind, **self.bounds())


@record(frozen=True)
class Section:
    """A top-level table of ``config.toml`` that a package owns.

    With no ``settings`` the table is free: core accepts any keys and the
    package validates what it reads.  With settings it is closed (an unknown
    key is an error) unless ``open`` says the package ignores unknown keys.
    ``tables`` are its sub-tables (``[key.name]``), each a closed section
    whose settings are read by their dotted key (``"backfill.mode"``).
    ``title`` names the table in the JSON Schema; ``after`` is the top-level
    key it follows there (empty: after core's own keys, in key order).

    ``checked``: core validates the table when it loads a config file (so a
    bad value names the file, and an invalid project file is ignored by a
    hook), applies the settings' ``env`` variables, and compares the table
    setting by setting (each by its ``stricter``) when a project config is
    not approved.  Unchecked, the table is kept as written, its package
    validates what it reads, and any change to it needs approval.
    """

    key: str
    description: str = ""
    settings: tuple[Setting, ...] = ()
    open: bool = False
    title: str = ""
    tables: tuple[Section, ...] = ()
    checked: bool = False
    after: str = ""

    def setting(self, key: str) -> Setting:
        """The setting at ``key`` (dotted for a sub-table's: ``"backfill.mode"``)."""
        for dotted, item in self.each():
            if dotted == key:
                return item
        raise KeyError(f"{self.key}.{key}")

    def each(self) -> list[tuple[str, Setting]]:
        """Every setting under its dotted key, the table's own first, then each sub-table's."""
        found = [(item.key, item) for item in self.settings]
        for table in self.tables:
            found.extend((f"{table.key}.{key}", item) for key, item in table.each())
        return found

    def defaults(self) -> dict[str, Any]:
        return {s.key: s.default for s in self.settings}

    def value(self, config: Config, key: str) -> Any:
        """The effective value of the setting at dotted ``key`` in ``config``.

        Written value, else the profile's default; ``inherit`` and the
        ``off`` switch of a ``follows`` setting resolved.  ``env`` needs no
        step here: core wrote it into the table when it loaded the config.
        """
        from agentreflex.core.config.settings import declared_value

        return declared_value(config, self, key)


@record(frozen=True)
class ReflexEntry:
    """A reflex class (``module:Class``) under its name, its place in the run and its events.

    Lower ``order`` runs first; ties run by name.  The floors go first so a
    block is decided before the judgment calls look at the event.
    ``events`` are the :class:`~agentreflex.core.events.EventKind` values it
    handles: a hook for another event does not import it at all.  Empty means
    "import it to learn" (its class's ``events``).  The reflex class takes
    its ``events`` from here (:meth:`event_kinds`), so they are written once.
    ``needs_history``: the reflex's question at a stop cannot be answered
    without the session's recorded history, so while that history is lost the
    stop is refused (fail closed; :func:`agentreflex.core.state.integrity.lost_finding`).
    """

    name: str
    spec: str
    order: int = DEFAULT_ORDER
    events: tuple[str, ...] = ()
    needs_history: bool = False

    def event_kinds(self) -> frozenset[EventKind]:
        """``events`` as event kinds (a ValueError names an unknown one)."""
        from agentreflex.core.events import EventKind

        return frozenset(EventKind(e) for e in self.events)


@record(frozen=True)
class Command:
    """``agentreflex <name> ...`` runs ``spec`` (``module:function``)."""

    name: str
    spec: str


def command_words(argv: list[str] | None, name: str, usage: str) -> tuple[str, list[str]] | int:
    """A package command's subcommand and its words, or the exit status after the usage.

    ``agentreflex NAME SUB ...`` reaches a :class:`Command`'s function with or
    without ``NAME`` first (``sys.argv`` or a test's list).  No subcommand is
    a usage error (2); ``-h``, ``--help`` and ``help`` print the usage (0).
    """
    import sys

    words = list(sys.argv[1:] if argv is None else argv)
    if words and words[0] == name:
        words = words[1:]
    if not words or words[0] in ("-h", "--help", "help"):
        sys.stdout.write(usage)
        return 0 if words else 2
    return words[0], words[1:]


def run_subcommand(
    argv: list[str] | None,
    name: str,
    usage: str,
    handlers: Mapping[str, Callable[[list[str]], int]],
) -> int:
    """Run ``agentreflex NAME SUB ...``: ``handlers[SUB]`` with the words after ``SUB``.

    The words are read as :func:`command_words` reads them; an unknown
    subcommand is named on stderr with the usage, a usage error (2).
    """
    import sys

    words = command_words(argv, name, usage)
    if isinstance(words, int):
        return words
    command, rest = words
    handler = handlers.get(command)
    if handler is None:
        sys.stderr.write(f"agentreflex {name}: unknown command {command!r}\n{usage}")
        return 2
    return handler(rest)


@record(frozen=True)
class PolicyFile:
    """A kind of file the package reads besides ``config.toml`` (rules, allow-lists).

    ``model`` is the ``module:Class`` of its pydantic model (cold path only):
    ``config check`` validates the file with it and ``tools/gen_schema.py``
    writes its JSON Schema to ``policies/<schema>``.  A file named one of
    ``names`` is of this kind; ``paths`` (relative to the project) are the
    ones ``config check`` and ``doctor`` look at by default.
    """

    kind: str
    model: str
    schema: str
    names: tuple[str, ...] = ()
    paths: tuple[str, ...] = ()


@record(frozen=True)
class Plugin:
    """Everything one package adds to agentreflex.

    ``status`` is ``module:function`` returning the package's status section
    (``{"lines": [...], ...}``) for a state directory; ``statusline`` is
    ``module:function`` returning its parts of the host's status line for a
    state directory and a session id; ``judge`` is ``module:function``
    making the judge from a config; ``self_test`` is a shell command the
    package's reflexes must block or ask about (``agentreflex doctor`` runs it).
    ``hosts`` names the host adapters the package adds, as ``(name,
    "module:callable")`` pairs: ``agentreflex hook NAME`` finds them here when
    no built-in host has that name (:mod:`agentreflex.core.hosts`).
    ``installers`` names, the same way, what makes each such host's
    :class:`~agentreflex.core.install.base.HostInstaller`, so ``agentreflex
    install NAME``, ``uninstall`` and ``doctor`` know the host too.
    ``undoable`` lists the package's finding codes for discards that stay
    inside the work tree, so a snapshot taken before them holds all they
    destroy: with ``[worktree] allow_undoable`` core may let such a command
    run with the undo hint (:mod:`agentreflex.core.worktree.relax`).
    ``report`` is ``module:function`` giving the package's section of
    ``agentreflex report`` (:mod:`agentreflex.core.report.collect`: it gets
    the state directory, the sessions asked for or None, and every recorded
    finding; it returns plain data that core escapes and draws).
    ``recap`` is ``module:function`` giving the package's parts of the
    session recap for a state directory and a session id, as ``[(title,
    lines, keep)]``: ``keep`` parts are the last cut for the recap's budget
    (what a compaction must not erase), the others among the first
    (:func:`agentreflex.core.recap.declared_parts`).
    ``local_judge`` is the ``agentreflex`` subcommand (its words, e.g.
    ``"laya serve"``) that serves a judge on ``--host H --port P``: the warm
    daemon starts it when the user asks (:mod:`agentreflex.core.hook.localjudge`).
    """

    name: str
    reflexes: tuple[ReflexEntry, ...] = ()
    commands: tuple[Command, ...] = ()
    status: str = ""
    judge: str = ""
    sections: tuple[Section, ...] = ()
    statusline: str = ""
    self_test: str = ""
    files: tuple[PolicyFile, ...] = ()
    hosts: tuple[tuple[str, str], ...] = ()
    installers: tuple[tuple[str, str], ...] = ()
    undoable: tuple[str, ...] = ()
    local_judge: str = ""
    report: str = ""
    recap: str = ""

    def reflex(self, name: str) -> ReflexEntry:
        """The declared reflex called ``name``."""
        for entry in self.reflexes:
            if entry.name == name:
                return entry
        raise KeyError(f"{self.name} declares no reflex {name!r}")
