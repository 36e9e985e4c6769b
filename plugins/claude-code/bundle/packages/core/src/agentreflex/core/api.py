"""What agentreflex-core promises its sibling packages: the names they may import.

Every sibling (gate, runaway, judge2, guard, ...) is released on its own and
declares a range of core versions it works with (``agentreflex-core>=0.1,<0.2``).
That range only means something if core knows which of its names the
siblings rely on: those are listed here, and a change to any of them is a
change to core's API (a new minor version before 1.0, a new major after).
Everything else in core may change in any release.

``tests/test_core_api_use.py`` fails when a sibling's source imports a core
name not listed here (import something that is, or extend this list
deliberately), and ``packages/core/tests/test_api.py`` fails when a listed
name no longer exists. Siblings import from the defining modules as before
(``from agentreflex.core.util.record import record``): this module is a
declaration, plain data that no hook imports, so the hot path pays nothing.
"""

# Modules a sibling may import whole (``from agentreflex.core.util import fastjson``):
# every name in them without a leading underscore is API.
WHOLE_MODULES = (
    # the scripts the hosts' project settings run outside any sandbox: the boundary holds
    # them read-only and the gate asks before a file tool changes one (one list)
    "agentreflex.core.contain.hostruns",
    # each package's one declaration (entry point agentreflex.plugins) is built from these
    "agentreflex.core.plugin",
    "agentreflex.core.state.outcome",
    "agentreflex.core.state.userdirs",
    "agentreflex.core.systemone.signals",
    # events and contexts built without a host: reflex packages' tests, and judge2's
    # calibration over labelled rows
    "agentreflex.core.testing",
    # what a test run is and which words are wrappers: the one answer (issue 31)
    "agentreflex.core.testrun",
    "agentreflex.core.util.fastjson",
)

# Names a sibling may import from a module (``from agentreflex.core.events import Event``).
NAMES = {
    "agentreflex.core.config.settings": (
        "Config",
        "ConfigError",
        "DEFAULT_THRESHOLDS",
        "is_loopback_url",
        "load_config",
        "project_root",
        "section_value",
    ),
    "agentreflex.core.config.tomlines": ("key_lines", "line_of"),
    "agentreflex.core.config.trust": ("lookup",),
    "agentreflex.core.decision": ("Finding", "Verdict"),
    # build_tool_call: the one normaliser of tool inputs (the gate reads an MCP
    # tool's input as the built-in calls it amounts to)
    "agentreflex.core.events": (
        "Event",
        "EventKind",
        "ToolCall",
        "ToolKind",
        "ToolResult",
        "build_tool_call",
    ),
    # the host registry: a plug-in registers a host; a reflex asks what a host
    # does differently (its traits), never for a host by name
    "agentreflex.core.hosts": (
        "TRANSCRIPT_USAGE",
        "UNCHECKED_STDIN",
        "host_names",
        "host_traits",
        "register_host",
        "unregister_host",
    ),
    # Codex's rollout folder and which file in it may be read (the hook reads a command's
    # exit there, the Reasoning Guard the visible reasoning): one trust rule
    "agentreflex.core.hosts.codex_sessions": ("sessions_root", "trusted_rollout"),
    # the context layer's session recap, rendered by each host's adapter
    "agentreflex.core.recap": ("Recap", "RecapSection", "declared_parts", "render_plain"),
    # redact(text, extra=...): a package's declared extension of the one rule set
    # (the guard's name rule), never a parallel set of its own; and the one way to
    # redact what is cut or shown in pieces (a head, batches, a line, a tool's input),
    # which redacts before it cuts: no writer keeps half a secret
    "agentreflex.core.redaction.redact": (
        "find_secrets",
        "redact",
        "redact_chunks",
        "redact_head",
        "redact_line",
        "redact_obj",
        "redact_shown",
    ),
    "agentreflex.core.reflex": ("JudgeAnswer", "ReflexContext"),
    "agentreflex.core.state.auth": ("FileSeal", "load_key"),
    # and the one reading of a command as the work it does (runaway's near repeats)
    "agentreflex.core.state.fingerprint": ("fingerprint", "normalise_command"),
    "agentreflex.core.state.model": ("ActionRecord", "SessionState"),
    # one record of tokens and cost: the session's, a transcript's, the router's
    "agentreflex.core.state.usage": ("TokenUsage",),
    # the one heuristic System One engine: laya serves it, judge2's offline backend asks it
    "agentreflex.core.systemone.heuristic.engine": ("BuiltinEngine", "MODEL_ID"),
    "agentreflex.core.systemone.wire": (
        "Answer",
        "ChoiceAnswer",
        "ChoiceQuestion",
        "NoulAnswer",
        "Question",
        "ScoreAnswer",
        "SystemOneRequest",
        "SystemOneResponse",
        "Usage",
        "WireError",
        "build_request",
        "choice",
        "noul",
        "parse_response",
    ),
    # the hook's time for the reflexes before a tool call (runtime.FLOOR_HARD_LIMIT): their
    # loops over input of any size ask whether it is up (check), and what they wait for
    # gets no more than is left (left); starting one is the hook's, not a reflex's
    "agentreflex.core.util.deadline": ("OutOfTime", "check", "left"),
    "agentreflex.core.util.digest": ("sha256_hex",),
    "agentreflex.core.util.fsutil": (
        "atomic_write_bytes",
        "atomic_write_json",
        "ensure_private_dir",
        "locked",
    ),
    "agentreflex.core.util.lazyre": ("LazyPattern",),
    "agentreflex.core.util.record": ("asdict", "field", "fields", "record", "replace"),
    "agentreflex.core.util.sysprog": ("system_program",),
    # the one safe git (no hooks, fsmonitor, filters, pagers): the gate's work-tree rule,
    # and the work tree's top found as git finds it (one definition, red-team rt49)
    "agentreflex.core.worktree.safegit": ("filter_overrides", "git", "work_tree_top"),
    # which submodules and linked work trees hold work no snapshot saves: the gate asks
    # before a delete takes one
    "agentreflex.core.worktree.submodules": ("with_work",),
}


def allows(module: str, name: str) -> bool:
    """May a sibling write ``from {module} import {name}``?"""
    if module in WHOLE_MODULES or f"{module}.{name}" in WHOLE_MODULES:
        return True
    return name in NAMES.get(module, ())
