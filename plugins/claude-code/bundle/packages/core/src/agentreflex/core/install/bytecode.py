"""Compile the installation's bytecode once, at install time.

A hook is a new interpreter per tool call.  Where ``PYTHONDONTWRITEBYTECODE``
is set (or the venv was made without ``--compile-bytecode``) every hook
compiles every module it imports, again and again: about 78 ms a hook instead
of 26 ms on this project's machine (issue #20).  Compiling at install time
costs a second once; a read-only site-packages is reported, not an error.
"""

from __future__ import annotations

import compileall
import os
import py_compile

from agentreflex.core.state import userdirs


def compile_installation() -> tuple[list[str], list[str]]:
    """Compile every module under the installed agentreflex folders: (done, failed)."""
    done: list[str] = []
    failed: list[str] = []
    for folder in userdirs.installed_paths():
        if not os.path.isdir(folder):
            continue
        ok = compileall.compile_dir(
            folder,
            quiet=2,
            workers=1,
            invalidation_mode=py_compile.PycInvalidationMode.TIMESTAMP,
        )
        (done if ok else failed).append(folder)
    return done, failed
