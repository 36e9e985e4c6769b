"""Per-package line+branch coverage against a floor that only rises.

Run after the test suite has written ``.coverage`` (``.ci/run`` does):

    uv run python tools/coverage_floor.py            # fail if a package fell below its floor
    uv run python tools/coverage_floor.py --raise    # move each floor up to today's figure

The floors live in ``tools/coverage_floors.json``.  A package below its floor
fails CI; one above it is told to raise the floor, so a gain is kept.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FLOORS = ROOT / "tools" / "coverage_floors.json"


def measured(package: str) -> int | None:
    """The package's total coverage in whole percent (rounded down), or None without data."""
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "coverage",
            "report",
            f"--include=packages/{package}/src/*",
            "--format=total",
            "--precision=2",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0 or not done.stdout.strip():
        return None
    return int(float(done.stdout.strip()))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--raise", dest="raise_", action="store_true", help="raise the floors")
    args = parser.parse_args(argv)
    floors: dict[str, int] = json.loads(FLOORS.read_text())
    packages = sorted(p.name for p in (ROOT / "packages").iterdir() if (p / "src").is_dir())
    failed = False
    for package in packages:
        figure = measured(package)
        floor = floors.get(package, 0)
        if figure is None:
            print(f"{package:16} no coverage data")
            failed = True
            continue
        verdict = "ok"
        if figure < floor:
            verdict, failed = f"BELOW the floor of {floor}%", True
        elif figure > floor:
            verdict = f"above the floor of {floor}%: raise it (--raise)"
            if args.raise_:
                floors[package] = figure
        print(f"{package:16} {figure}%  {verdict}")
    if args.raise_:
        FLOORS.write_text(json.dumps(floors, indent=2, sort_keys=True) + "\n")
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
