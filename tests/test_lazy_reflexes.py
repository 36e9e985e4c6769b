"""A hook process imports only the reflexes its event needs, and never trusts stale notes.

Which events a reflex handles is declared by its package (``plugin.py``); for
a reflex that declares none it is remembered from the last time it was
imported, together with the modification time of the file that defines it
(``packages/core/tests/test_plugin_registry.py`` shows that path).
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
from agentreflex.core.hook.runtime import load_plugins
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


def test_a_stop_hook_never_imports_the_gate_its_package_declares_it_needs_none(
    tmp_path: Path,
) -> None:
    for _ in range(2):  # with nothing remembered yet, and after
        reflexes, gate_imported = _probe(tmp_path)
        assert gate_imported is False
        assert "done" in reflexes and "gate" not in reflexes


DISABLED_PROBE = """
import json, sys
from agentreflex.core.config.settings import load_config
from agentreflex.core.events import EventKind
from agentreflex.core.hook.runtime import load_plugins
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
    from agentreflex.core.config import trust

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
    # Before a tool call a cached note never leaves a reflex out (see
    # test_registry_cache_trust); the configuration may, and so do the packages'
    # declarations: done and context are declared for other events.
    assert second == {"reflexes": ["gate", "instructions", "runaway"], "guard_imported": False}
