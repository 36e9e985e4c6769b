"""The tree-sitter bash parser, loaded once per process.

Loading the grammar costs a few milliseconds, so it happens lazily on the
first command that needs a real parse and is then kept for the life of the
process (the warm daemon reuses it for every hook call).
"""

from __future__ import annotations

import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

_PARSER: Any = None


def _bindings() -> tuple[Any, Any]:
    """The modules providing ``Parser``/``Language`` and the bash ``language()``.

    Why not ``import tree_sitter, tree_sitter_bash``: their package
    ``__init__``s import ``typing`` and ``importlib.resources`` (with
    ``pathlib``, ``tempfile``...), 7-10 ms of every hook process, for names the
    gate never uses.  Everything it needs is in the two compiled ``_binding``
    extension modules, so those are found on ``sys.path`` without running the
    packages (``PathFinder`` only looks; ``importlib.util.find_spec`` would
    import the parent) and loaded directly.  They are registered in
    ``sys.modules`` under their real names, so a later ordinary import of
    the packages reuses them instead of loading the extensions twice.  If
    anything about that fails (another layout, a zipped install, a release
    that moved things), the ordinary import is used.
    """
    try:
        return _extension("tree_sitter"), _extension("tree_sitter_bash")
    except Exception:
        import tree_sitter
        import tree_sitter_bash

        return tree_sitter, tree_sitter_bash


def _extension(package: str) -> Any:
    """``package._binding``, loaded without executing ``package/__init__.py``."""
    name = package + "._binding"
    if name in sys.modules:  # already loaded, directly or by an ordinary import
        return sys.modules[name]
    # The import system's own classes, which ``importlib.machinery`` and
    # ``importlib.util`` re-export: those two modules (and ``importlib._abc``
    # behind them) are never imported by an ordinary hook call otherwise.
    from _frozen_importlib import module_from_spec
    from _frozen_importlib_external import ExtensionFileLoader, PathFinder

    parent = PathFinder.find_spec(package)
    locations = parent.submodule_search_locations if parent is not None else None
    spec = PathFinder.find_spec(name, locations) if locations else None
    if spec is None or not isinstance(spec.loader, ExtensionFileLoader):
        raise ImportError(f"no compiled {name} found")
    module = module_from_spec(spec)
    spec.loader.exec_module(module)
    sys.modules[name] = module
    return module


def parser() -> Any:
    """The cached ``tree_sitter.Parser`` for bash."""
    global _PARSER
    if _PARSER is None:
        tree_sitter, tree_sitter_bash = _bindings()
        _PARSER = tree_sitter.Parser(tree_sitter.Language(tree_sitter_bash.language()))
    return _PARSER


_GRAMMARS: dict[str, Any] = {}


def grammar_parser(package: str, function: str = "language") -> Any:
    """A cached ``tree_sitter.Parser`` for another grammar (``tree_sitter_ruby``...).

    Loaded the same way as bash's, only when code of that language is read.
    Some grammars still hand the language over as a bare pointer (an ``int``),
    which tree-sitter accepts with a ``DeprecationWarning``; that warning says
    nothing the gate can act on, so it is silenced for this one call.
    """
    key = f"{package}.{function}"
    if key not in _GRAMMARS:
        import warnings

        try:
            tree_sitter, grammar = _extension("tree_sitter"), _extension(package)
        except Exception:
            import importlib

            import tree_sitter

            grammar = importlib.import_module(package)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            language = tree_sitter.Language(getattr(grammar, function)())
        _GRAMMARS[key] = tree_sitter.Parser(language)
    return _GRAMMARS[key]


def parse(source: str) -> Any:
    """Parse ``source`` and return the root node."""
    return parser().parse(source.encode("utf-8", "surrogatepass")).root_node


def node_text(node: Any) -> str:
    """A node's source text (undecodable bytes replaced, never an error)."""
    return str(node.text.decode("utf-8", "replace"))
