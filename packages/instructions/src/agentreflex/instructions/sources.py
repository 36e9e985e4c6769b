"""Where the project's rules for agents live, and reading them safely.

Each host reads its own files: Claude Code ``CLAUDE.md`` / ``CLAUDE.local.md``,
Codex, OpenCode and pi ``AGENTS.md`` (Codex also ``AGENTS.override.md``),
Gemini CLI ``GEMINI.md``, Copilot ``.github/copilot-instructions.md`` and
``.github/instructions/*.instructions.md``, Cursor ``.cursor/rules/*.mdc``,
Windsurf ``.windsurfrules``, Cline ``.clinerules``.  The per-directory names
apply to the directory that holds them and everything below it, so a path is
governed by every such file from the project root down to its own folder,
the nearest last (the way the hosts concatenate them).

Reading is bounded and defensive because the files are written by whoever
writes the project: a file larger than :data:`MAX_BYTES` is read up to the
limit, a binary or unreadable file is skipped, and a symlink that leads out
of the project is not followed.  Each of these leaves a :class:`Diagnostic`.
"""

from __future__ import annotations

import os
import stat

from agentreflex.core.util.record import field, record

MAX_BYTES = 256 * 1024
"""Bytes read of one instruction file; the rest is reported, never enforced."""

DIR_NAMES = ("AGENTS.md", "AGENTS.override.md", "CLAUDE.md", "CLAUDE.local.md", "GEMINI.md")
"""Per-directory files: they govern their folder and its subtree."""

ROOT_FILES = (".github/copilot-instructions.md", ".windsurfrules", ".clinerules")
"""Files read at the project root only; they govern the whole project."""

GLOB_DIRS = ((".cursor/rules", ".mdc"), (".github/instructions", ".instructions.md"))
"""Folders of rule files whose frontmatter says which paths they govern."""


@record
class Diagnostic:
    """Something about a rule file the user should know (``file`` relative to the project)."""

    file: str
    message: str
    line: int = 0

    def cite(self) -> str:
        return f"{self.file}:{self.line}" if self.line else self.file


@record
class Source:
    """One instruction file: where it is, which folder it governs."""

    path: str  # absolute
    rel: str  # relative to the project root, '/'-separated
    scope: str  # absolute folder it governs
    globs: list[str] = field(default_factory=list)  # frontmatter globs ('' = everywhere)


def is_instruction_file(path: str, project: str) -> bool:
    """Whether ``path`` is one of the files this package reads (any folder)."""
    name = os.path.basename(path)
    if name in DIR_NAMES:
        return True
    rel = _rel(path, project)
    if rel in ROOT_FILES:
        return True
    return any(rel.startswith(folder + "/") and name.endswith(ext) for folder, ext in GLOB_DIRS)


def chain(project: str, path: str) -> list[Source]:
    """The sources governing ``path`` (a file or folder), root first, nearest last."""
    project = os.path.abspath(project)
    folder = os.path.abspath(path)
    if not os.path.isdir(folder):
        folder = os.path.dirname(folder)
    folders: list[str] = []
    while True:
        folders.append(folder)
        if folder == project or not _inside(folder, project):
            break
        parent = os.path.dirname(folder)
        if parent == folder:
            break
        folder = parent
    if project not in folders:
        folders.append(project)
    found = _root_sources(project)
    for d in reversed(folders):
        found.extend(_dir_sources(d, project))
    return found


def every_source(project: str, limit: int = 2000) -> list[Source]:
    """Every instruction file in the project (for ``list`` and ``render --check``).

    Walks at most ``limit`` folders, skipping hidden folders other than the
    hosts' own, ``node_modules`` and virtual environments.
    """
    project = os.path.abspath(project)
    found = _find_root_sources(project)
    for seen, (d, subdirs, _) in enumerate(os.walk(project), 1):
        if seen > limit:
            break
        subdirs[:] = sorted(s for s in subdirs if not _skipped(s))
        found.extend(_find_dir_sources(d, project))
    return found


def _skipped(name: str) -> bool:
    return name.startswith(".") or name in ("node_modules", "venv", "__pycache__", "dist", "build")


# The rule files found per folder during one tool call (``forget`` starts a new
# one): a command's checks ask about the same folders several times.
_SEEN: dict[tuple[str, str], list[Source]] = {}


def forget() -> None:
    """Look at the folders again (a new tool call: files may have come or gone)."""
    _SEEN.clear()


def _root_sources(project: str) -> list[Source]:
    key = ("", project)
    if key not in _SEEN:
        _SEEN[key] = _find_root_sources(project)
    return list(_SEEN[key])


def _dir_sources(folder: str, project: str) -> list[Source]:
    key = (folder, project)
    if key not in _SEEN:
        _SEEN[key] = _find_dir_sources(folder, project)
    return list(_SEEN[key])


def _find_root_sources(project: str) -> list[Source]:
    out: list[Source] = []
    for rel in ROOT_FILES:
        path = os.path.join(project, rel)
        if os.path.lexists(path):
            out.append(Source(path, rel, project))
    for folder, ext in GLOB_DIRS:
        base = os.path.join(project, folder)
        try:
            names = sorted(os.listdir(base))
        except OSError:
            continue
        for name in names[:200]:
            if name.endswith(ext):
                out.append(Source(os.path.join(base, name), f"{folder}/{name}", project))
    return out


def _find_dir_sources(folder: str, project: str) -> list[Source]:
    out: list[Source] = []
    for name in DIR_NAMES:
        path = os.path.join(folder, name)
        if os.path.lexists(path):
            out.append(Source(path, _rel(path, project), folder))
    return out


def read_bounded(src: Source, project: str) -> tuple[str | None, list[Diagnostic]]:
    """The text of ``src`` (at most :data:`MAX_BYTES`), or None, with what went wrong.

    A symlink is followed only when it resolves inside the project; only
    regular files are read (a FIFO or a device could hang or never end).
    """
    diags: list[Diagnostic] = []
    real = os.path.realpath(src.path)
    if not _inside(real, os.path.realpath(project)):
        return None, [Diagnostic(src.rel, "is a symlink that leads outside the project; not read")]
    try:
        fd = os.open(real, os.O_RDONLY | os.O_NONBLOCK)
    except OSError as exc:
        return None, [
            Diagnostic(src.rel, f"cannot be read ({exc.strerror}); its rules are not enforced")
        ]
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            return None, [Diagnostic(src.rel, "is not a regular file; not read")]
        data = os.read(fd, MAX_BYTES + 1)
    except OSError as exc:
        return None, [
            Diagnostic(src.rel, f"cannot be read ({exc.strerror}); its rules are not enforced")
        ]
    finally:
        os.close(fd)
    if len(data) > MAX_BYTES:
        data = data[:MAX_BYTES]
        diags.append(
            Diagnostic(
                src.rel,
                f"is larger than {MAX_BYTES // 1024} KiB; only the first "
                f"{MAX_BYTES // 1024} KiB are read, rules after that are not enforced",
            )
        )
    if b"\0" in data[:8192]:
        return None, [Diagnostic(src.rel, "looks binary (NUL bytes); not read")]
    text = data.decode("utf-8", "replace")
    if "\ufffd" in text:
        diags.append(Diagnostic(src.rel, "is not valid UTF-8; undecodable bytes were replaced"))
    return text, diags


def file_key(path: str) -> list[int] | None:
    """[device, inode, size, mtime_ns, ctime_ns] of the file ``path`` leads to, or None.

    The change time moves on every write and cannot be set back with
    ``utime``: a file rewritten to the same size and mtime still gets a new key.
    """
    try:
        st = os.stat(path)
    except OSError:
        return None
    return [st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns]


def _inside(path: str, parent: str) -> bool:
    parent = parent.rstrip("/") or "/"
    return path == parent or path.startswith(parent + "/") or parent == "/"


def _rel(path: str, project: str) -> str:
    full = os.path.abspath(path)
    root = os.path.abspath(project)
    if _inside(full, root) and full != root:
        return full[len(root.rstrip("/")) + 1 :]
    return full
