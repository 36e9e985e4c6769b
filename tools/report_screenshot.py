"""A small PNG of a report for the README: headless Chromium, then cropped and quantised.

Usage: python tools/report_screenshot.py REPORT.html OUT.png [--height 1900] [--width 900]

The page is opened by ``tools/headless_chromium.py`` (which fails if the page
logged an error or made a request); Pillow (a matplotlib dependency) crops
the top of the page and reduces it to a 64-colour palette so the file stays
small enough to commit.
"""

from __future__ import annotations

import argparse
import io
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import headless_chromium


def main(argv: list[str]) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("report")
    p.add_argument("out")
    p.add_argument("--height", type=int, default=1900, help="crop the page to this many pixels")
    p.add_argument("--width", type=int, default=900, help="viewport width")
    ns = p.parse_args(argv)
    from PIL import Image

    seen = headless_chromium.open_page(ns.report, width=ns.width)
    if seen.errors or seen.requests:
        print(f"the page is not clean: {seen.errors} {seen.requests}", file=sys.stderr)
        return 1
    image = Image.open(io.BytesIO(seen.png)).convert("RGB")
    image = image.crop((0, 0, image.width, min(image.height, ns.height)))
    image = image.quantize(colors=64, method=Image.Quantize.MEDIANCUT)
    image.save(ns.out, optimize=True)
    print(f"wrote {ns.out} ({Path(ns.out).stat().st_size} bytes, {image.width}x{image.height})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
