"""``agentreflex config check``: every problem in a config or policy file, with its line.

The hook's loader stops at the first bad key and its message names the file
and the key; this check reports all of them, each with the same message the
loader gives (so what ``config check`` says is what a hook would say) and the
line the key is written on. ``doctor`` runs the same check.  Cold path only
(it imports pydantic through :mod:`agentreflex.core.config.schema`).
"""

from __future__ import annotations

import os
import re
import tomllib
from collections.abc import Mapping
from typing import Any, NamedTuple

from agentreflex.core.config import settings as fast
from agentreflex.core.config.tomlines import Path, key_lines, line_of
from pydantic import BaseModel, ValidationError


class Problem(NamedTuple):
    """One problem: ``message`` is the loader's own message (it names file and key)."""

    path: str
    line: int
    key: str
    message: str

    def render(self) -> str:
        """``FILE:LINE: KEY: what is wrong``."""
        rest = self.message.removeprefix(f"{self.path}: ")
        return f"{self.path}:{self.line}: {rest}" if self.line else f"{self.path}: {rest}"


def kind_of(path: str) -> str:
    """The file kind a path names: its model and schema in ``schema.KINDS``."""
    from agentreflex.core.config.schema import declared_files

    name = os.path.basename(path)
    if name == "thresholds.toml":
        return "thresholds"
    for item in declared_files():
        if name in item.names:
            return item.kind
    return "config"


def default_files(cwd: str, env: Mapping[str, str] | None = None) -> list[str]:
    """The files a hook in ``cwd`` reads that exist: user and project config, packages' policy."""
    from agentreflex.core.config.schema import declared_files
    from agentreflex.core.state.userdirs import user_config_path

    env = os.environ if env is None else env
    project = fast.project_root(cwd)
    candidates = [
        user_config_path(env),
        os.path.join(project, ".agentreflex", "config.toml"),
        *(os.path.join(project, *p.split("/")) for f in declared_files() for p in f.paths),
        os.path.join(project, "policies", "thresholds.toml"),
    ]
    return [p for p in candidates if os.path.isfile(p)]


def check_file(path: str, kind: str = "") -> list[Problem]:
    """Problems of one file, ordered by line; ``[]`` when it is valid."""
    try:
        with open(path, "rb") as fh:
            raw = fh.read()
    except OSError as exc:
        return [Problem(path, 0, "", f"{path}: cannot read ({exc.strerror})")]
    return check_text(raw, path, kind or kind_of(path))


def check_text(raw: bytes, path: str, kind: str = "config") -> list[Problem]:
    """Problems of a file's content (``path`` is only named in the messages)."""
    from agentreflex.core.config.schema import KINDS

    try:
        text = raw.decode("utf-8")
        data = tomllib.loads(text)
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        found = re.search(r"line (\d+)", str(exc))
        line = int(found.group(1)) if found else 0
        return [Problem(path, line, "", f"{path}: not valid TOML ({exc})")]
    model: type[BaseModel] = KINDS[kind][0]
    try:
        model.model_validate(data)
    except ValidationError as exc:
        lines = key_lines(text)
        problems = [_problem(path, data, lines, err, kind) for err in exc.errors()]
        return sorted(problems, key=lambda p: (p.line, p.key))
    return []


def _problem(
    path: str, data: dict[str, Any], lines: dict[Path, int], err: Any, kind: str
) -> Problem:
    loc: Path = tuple(err["loc"])
    if kind == "config":
        message = _config_message(path, data, loc, err)
        key = ".".join(str(k) for k in loc)
    else:
        key = _policy_key(loc)
        message = f"{path}: {key}: {err['msg']}" if key else f"{path}: {err['msg']}"
    return Problem(path, line_of(lines, loc), key, message)


def _policy_key(loc: Path) -> str:
    out = ""
    for item in loc:
        out += f"[{item}]" if isinstance(item, int) else (f".{item}" if out else item)
    return out


def _config_message(path: str, data: dict[str, Any], loc: Path, err: Any) -> str:
    """The loader's message for this error, from the loader itself."""
    dotted = ".".join(str(k) for k in loc)
    if err["type"] == "agentreflex":
        return f"{path}: {dotted}{err['ctx']['tail']}"
    if len(loc) == 2 and err["type"] == "extra_forbidden":
        known = _declared_keys(str(loc[0]))
        if known:  # a package's closed section: its reader's wording (the differential test)
            return f"{path}: {dotted}: unknown key; known: {', '.join(known)}"
    fragment: Any = _value_at(data, loc)
    for key in reversed(loc):
        fragment = {key: fragment}
    try:
        fast._apply_file(fast.Config(), fragment, path)
    except fast.ConfigError as exc:
        return str(exc)
    return f"{path}: {dotted}: {err['msg']}"  # the loader accepts it: a bug the tests catch


def _declared_keys(table: str) -> list[str]:
    """The keys of a package's declared closed section ``table`` (empty: not one)."""
    from agentreflex.core.config.schema import declared_sections

    for section in declared_sections():
        if section.key == table and section.settings and not section.open:
            return [*(item.key for item in section.settings), *(t.key for t in section.tables)]
    return []


def _value_at(data: Any, loc: Path) -> Any:
    for key in loc:
        data = data[key]
    return data


def check_paths(paths: list[str], kind: str = "") -> dict[str, list[Problem]]:
    """Each file's problems, in the order given."""
    return {p: check_file(p, kind) for p in paths}


def main(files: list[str], kind: str, cwd: str) -> int:
    """``agentreflex config check [FILE...] [--as KIND]``: 0 when every file is valid."""
    import sys

    paths = [os.path.abspath(f) for f in files] or default_files(cwd)
    if not paths:
        print("no config files: the defaults apply (nothing to check)")
        return 0
    bad = 0
    for path, problems in check_paths(paths, kind).items():
        if not problems:
            print(f"ok   {path}")
        for problem in problems:
            bad += 1
            print(problem.render(), file=sys.stderr)
    return 1 if bad else 0
