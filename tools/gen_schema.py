"""Write the JSON Schemas of the config and policy files from core's pydantic models.

    uv run --frozen python tools/gen_schema.py          # rewrite policies/*.schema.json
    uv run --frozen python tools/gen_schema.py --check  # exit 1 when a shipped file is stale

The models (``agentreflex.core.config.schema``) are the source; the shipped files
let an editor with TOML schema support (taplo, Even Better TOML) complete and
validate ``.agentreflex/config.toml`` and the policy files without running
Python.  The output is JSON Schema draft-07 (``definitions``, not ``$defs``)
because that is what taplo's validator reads everywhere; CI runs ``--check``.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from agentreflex.core.config.schema import KINDS

POLICIES = Path(__file__).resolve().parent.parent / "policies"
DRAFT = "http://json-schema.org/draft-07/schema#"


def _draft07(node: Any) -> Any:
    """pydantic writes 2020-12 ``$defs``; draft-07 readers want ``definitions``."""
    if isinstance(node, dict):
        out = {}
        for key, value in node.items():
            if key == "$ref" and isinstance(value, str):
                out[key] = value.replace("#/$defs/", "#/definitions/")
            else:
                out["definitions" if key == "$defs" else key] = _draft07(value)
        return out
    if isinstance(node, list):
        return [_draft07(item) for item in node]
    return node


def render(kind: str) -> str:
    """The schema text of one file kind, as shipped."""
    model, _ = KINDS[kind]
    schema = _draft07(model.model_json_schema())
    text = json.dumps({"$schema": DRAFT, **schema}, indent=2, ensure_ascii=False)
    return text + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="fail when a shipped file is stale")
    parser.add_argument("--out", type=Path, default=POLICIES, help="default: policies/")
    args = parser.parse_args(argv)
    stale = []
    for kind, (_, name) in KINDS.items():
        path = args.out / name
        text = render(kind)
        current = path.read_text(encoding="utf-8") if path.exists() else None
        if current == text:
            continue
        if args.check:
            stale.append(str(path))
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
            print(f"wrote {path}")
    if stale:
        print(
            "stale JSON Schema (run `uv run --frozen python tools/gen_schema.py`): "
            + ", ".join(stale),
            file=sys.stderr,
        )
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
