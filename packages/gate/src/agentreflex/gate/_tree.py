"""The tree-sitter bash parser, loaded once per process.

Loading the grammar costs ~30 ms, so it happens lazily on the first command
that needs a real parse and is then kept for the life of the process (the
warm daemon reuses it for every hook call).
"""

from __future__ import annotations

from typing import Any

_PARSER: Any = None


def parser() -> Any:
    """The cached ``tree_sitter.Parser`` for bash."""
    global _PARSER
    if _PARSER is None:
        import tree_sitter
        import tree_sitter_bash

        _PARSER = tree_sitter.Parser(tree_sitter.Language(tree_sitter_bash.language()))
    return _PARSER


def parse(source: str) -> Any:
    """Parse ``source`` and return the root node."""
    return parser().parse(source.encode("utf-8", "surrogatepass")).root_node


def node_text(node: Any) -> str:
    """A node's source text (undecodable bytes replaced, never an error)."""
    return str(node.text.decode("utf-8", "replace"))
