"""JSON with comments and trailing commas, as OpenCode (``opencode.jsonc``) and VS Code read it.

Why here: the guard reads OpenCode's settings for two reasons (its permission
rules, the plugin files it runs), and both must read them as OpenCode does.
Stdlib only: it is on the hook's path.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

__all__ = ["loads"]


def loads(text: str) -> Any:
    """``text``'s value; ``ValueError`` (``json.JSONDecodeError``) when it is not JSONC."""
    import json  # only where a .jsonc file is read: the hook's path imports no json

    return json.loads(_without_trailing_commas(_without_comments(text)))


def _without_comments(text: str) -> str:
    out: list[str] = []
    i, n, in_string = 0, len(text), False
    while i < n:
        char = text[i]
        if in_string:
            out.append(char)
            if char == "\\" and i + 1 < n:
                out.append(text[i + 1])
                i += 1
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
            out.append(char)
        elif text.startswith("//", i):
            end = text.find("\n", i)
            i = n if end < 0 else end
            continue
        elif text.startswith("/*", i):
            end = text.find("*/", i + 2)
            i = n if end < 0 else end + 2
            continue
        else:
            out.append(char)
        i += 1
    return "".join(out)


def _without_trailing_commas(text: str) -> str:
    """A comma before ``}`` or ``]`` dropped, outside strings only (``"a,}"`` stays)."""
    out: list[str] = []
    i, n, in_string = 0, len(text), False
    while i < n:
        char = text[i]
        if in_string:
            out.append(char)
            if char == "\\" and i + 1 < n:
                out.append(text[i + 1])
                i += 1
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
            out.append(char)
        elif char == "," and _closes_next(text, i + 1):
            pass
        else:
            out.append(char)
        i += 1
    return "".join(out)


def _closes_next(text: str, i: int) -> bool:
    """Is the next character after the white space at ``i`` a ``}`` or ``]``?"""
    while i < len(text) and text[i] in " \t\r\n":
        i += 1
    return i < len(text) and text[i] in "}]"
