"""agentreflex-judge2's declaration: the done reflex, the judge, ``agentreflex judge2``, ``[judge2]``.

The ``[judge2]`` keys are declared here once: :mod:`agentreflex.judge2.settings`
reads them from these records, and the JSON Schema is built from them.
"""

from __future__ import annotations

from agentreflex.core.plugin import Command, Plugin, ReflexEntry, Section, Setting

# Changes to these files need no test run at stop (judge2.untested_ok's default).
DOC_PATTERNS = (
    "*.md",
    "*.rst",
    "*.txt",
    "*.adoc",
    "docs/*",
    "doc/*",
    "LICENSE*",
    "CHANGELOG*",
    "AUTHORS*",
)

SECTION = Section(
    "judge2",
    "agentreflex-judge2's own settings (it ignores keys it does not know).",
    (
        Setting("cache", "bool", True, "File cache for HTTP answers.", stricter="free"),
        Setting("cache_ttl_s", "float", 600.0, low=0.0, high=86400.0, stricter="free"),
        Setting("cache_max_entries", "int", 256, low=1, high=100_000, stricter="free"),
        Setting("claims_unsupported_block", "prob", 0.70, stricter="lower"),
        Setting(
            "untested_ok",
            "list",
            DOC_PATTERNS,
            "File patterns whose change needs no test run at stop ([] = every change does).",
        ),
        Setting(
            "action_window",
            "int",
            12,
            "Recent actions in the state text (capped by loop.recent_action_window).",
            low=1,
            high=100,
        ),
        Setting(
            "calibration",
            "str",
            "auto",
            "Calibration map for judge answers: auto (the shipped map for the answering "
            "model), off, or the path of a map file (tools/judge2_calibration.py).",
        ),
    ),
    open=True,
    title="Judge2",
)

PLUGIN = Plugin(
    name="judge2",
    reflexes=(
        ReflexEntry(
            "done",
            "agentreflex.judge2.done.reflex:DoneReflex",
            order=30,
            events=("stop", "subagent_stop"),
            needs_history=True,  # "is it done?" needs the record of what ran
        ),
    ),
    commands=(Command("judge2", "agentreflex.judge2.cli:main"),),
    judge="agentreflex.judge2.judge:make_judge",
    sections=(SECTION,),
)
