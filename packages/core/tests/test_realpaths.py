"""``fsutil.Realpaths`` answers what ``os.path.realpath`` answers, for any tree of links.

The containment plan resolves every mount through it: a wrong answer there is
a mount in the wrong place (a read-only path left writable through a link).
"""

from __future__ import annotations

import os
import tempfile

from agentreflex.core.util.fsutil import Realpaths
from hypothesis import example, given, settings
from hypothesis import strategies as st

NAMES = st.sampled_from(["a", "b", "c", "l", "m"])
# a tree: folders, and links whose targets are relative, absolute, dangling or loops
TREES = st.lists(
    st.tuples(
        st.lists(NAMES, min_size=1, max_size=3),
        st.one_of(
            st.none(),  # a folder
            st.tuples(st.booleans(), st.lists(st.sampled_from(["a", "b", "l", ".."]), max_size=3)),
        ),
    ),
    max_size=8,
)
QUERIES = st.lists(
    st.lists(st.sampled_from(["a", "b", "c", "l", "m", "x", ".", ".."]), max_size=5), max_size=8
)


def _build(root: str, tree: list[tuple[list[str], object]]) -> None:
    for parts, link in tree:
        path = os.path.join(root, *parts)
        if os.path.lexists(path):
            continue
        try:
            if link is None:
                os.makedirs(path, exist_ok=True)
            else:
                absolute, target = link  # type: ignore[misc]
                os.makedirs(os.path.dirname(path), exist_ok=True)
                rel = os.path.join(*target) if target else "."
                os.symlink(os.path.join(root, rel) if absolute else rel, path)
        except OSError:
            continue  # a folder in the way of a link, or a link in the way of a folder


@settings(max_examples=150, deadline=None)
@given(TREES, QUERIES)
@example([(["l"], (False, ["l", ".."]))], [["l", "l"]])  # hypothesis found: a loop, resolved
def test_the_same_answer_as_realpath(
    tree: list[tuple[list[str], object]], queries: list[list[str]]
) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = os.path.realpath(tmp)
        _build(root, tree)
        resolve = Realpaths()
        for parts in queries:
            path = "/".join([root, *parts])
            assert resolve(path) == os.path.realpath(path), path
            assert resolve(path) == os.path.realpath(path), path  # the remembered answer


def test_paths_in_other_forms_are_resolved_too(tmp_path: os.PathLike[str]) -> None:
    root = os.path.realpath(tmp_path)
    os.symlink(root, os.path.join(root, "self"))
    resolve = Realpaths()
    for path in ("/", "//", "relative/x", f"{root}/self/", f"{root}//self", f"{root}/self/./x"):
        assert resolve(path) == os.path.realpath(path), path
