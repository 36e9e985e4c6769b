"""Write the boundary's terminal filters (``contain/filters/<machine>.bpf``) with libseccomp, or check them.

Each is libseccomp's output for :data:`agentreflex.core.contain.terminal.REFUSED`,
one per machine in :data:`~agentreflex.core.contain.terminal.ABIS`; libseccomp
makes the filter of any architecture on any machine.  Needs ``libseccomp.so.2``
(Debian: ``libseccomp2``, which systemd already pulls in).

    uv run python tools/make_terminal_filters.py            # write them
    uv run python tools/make_terminal_filters.py --check    # exit 1 when one differs
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from agentreflex.core.contain import terminal

FOLDER = Path(terminal.__file__).parent / "filters"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only say which differ")
    args = parser.parse_args(argv)
    stale = []
    for machine in terminal.ABIS:
        data = terminal.make(machine)
        path = FOLDER / f"{machine}.bpf"
        if path.is_file() and path.read_bytes() == data:
            continue
        stale.append(str(path))
        if not args.check:
            FOLDER.mkdir(exist_ok=True)
            path.write_bytes(data)
    for path in stale:
        print(("stale: " if args.check else "wrote: ") + path)
    return 1 if stale and args.check else 0


if __name__ == "__main__":
    sys.exit(main())
