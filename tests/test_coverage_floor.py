"""The coverage floors CI enforces cover every package and are whole percentages."""

from __future__ import annotations

import json
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_every_package_has_a_floor() -> None:
    floors = json.loads((ROOT / "tools" / "coverage_floors.json").read_text())
    packages = {p.name for p in (ROOT / "packages").iterdir() if (p / "src").is_dir()}
    assert set(floors) == packages
    assert all(isinstance(v, int) and 0 < v <= 100 for v in floors.values())
