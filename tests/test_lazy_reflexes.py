"""A hook process imports only the reflexes its event needs, and never trusts stale notes.

Which events a reflex handles is remembered from the last time it was
imported, together with the modification time of the file that defines it.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

PROBE = """
import json, sys
from agentreflex.core.events import EventKind
from agentreflex.core.runtime import load_plugins
plugins = load_plugins(kind=EventKind.STOP)
print(json.dumps({"reflexes": sorted(r.name for r in plugins.reflexes),
                  "gate_imported": "agentreflex.gate.reflex" in sys.modules}))
"""


def _probe(cache: Path) -> tuple[list[str], bool]:
    """(reflexes loaded for a Stop, whether the gate was imported), in a fresh process."""
    env = {**os.environ, "XDG_CACHE_HOME": str(cache)}
    done = subprocess.run(
        [sys.executable, "-c", PROBE],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    result = json.loads(done.stdout)
    return list(result["reflexes"]), bool(result["gate_imported"])


def test_a_stop_hook_skips_the_gate_once_its_events_are_known(tmp_path: Path) -> None:
    first, gate_first = _probe(tmp_path)  # nothing remembered yet: everything is imported
    assert gate_first is True
    second, gate_second = _probe(tmp_path)
    assert gate_second is False
    assert set(second) <= set(first)
    assert "done" in second and "gate" not in second


def test_an_edited_reflex_is_imported_again(tmp_path: Path) -> None:
    import agentreflex.gate.reflex as gate_reflex

    _probe(tmp_path)
    source = Path(gate_reflex.__file__ or "")
    before = source.stat()
    try:
        os.utime(source, ns=(before.st_atime_ns, before.st_mtime_ns + 1_000_000_000))
        assert _probe(tmp_path)[1] is True
    finally:
        os.utime(source, ns=(before.st_atime_ns, before.st_mtime_ns))


DISABLED_PROBE = """
import json, sys
from agentreflex.core.config import load_config
from agentreflex.core.events import EventKind
from agentreflex.core.runtime import load_plugins
config = load_config(sys.argv[1], {"HOME": sys.argv[1], "REFLEX_MODE": "enforced"})
plugins = load_plugins(kind=EventKind.PRE_TOOL, config=config)
print(json.dumps({"reflexes": sorted(r.name for r in plugins.reflexes),
                  "guard_imported": "agentreflex.guard.reflex" in sys.modules}))
"""


def test_a_switched_off_reflex_is_not_imported(tmp_path: Path) -> None:
    project = tmp_path / "project"
    (project / ".agentreflex").mkdir(parents=True)
    (project / ".agentreflex" / "config.toml").write_text('disabled_reflexes = ["guard"]\n')
    # switching a reflex off weakens protection: the user approves it (trust record in HOME)
    from agentreflex.core import trust

    trust.approve(str(project / ".agentreflex" / "config.toml"), {"HOME": str(project)})
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache")}

    def probe() -> dict[str, object]:
        done = subprocess.run(
            [sys.executable, "-c", DISABLED_PROBE, str(project)],
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
            check=True,
        )
        result: dict[str, object] = json.loads(done.stdout)
        return result

    first = probe()  # nothing remembered yet: imported (evaluate() would skip it)
    assert first["guard_imported"] is True
    second = probe()
    # Before a tool call a cached note never leaves a reflex out (done is imported though
    # it does not act on PreToolUse: see test_registry_cache_trust); the configuration may.
    assert second == {
        "reflexes": ["context", "done", "gate", "instructions", "runaway"],
        "guard_imported": False,
    }
