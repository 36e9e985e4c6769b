"""The one way ``install`` and ``uninstall`` change a host's settings file.

Why one module: every host's settings are a file the user also edits by hand,
so every change follows the same rules: a malformed file is refused before
anything is written (we never "repair" a file we cannot read); an unchanged
result writes nothing (a second install is a no-op); ``--dry-run`` shows a
unified diff and stops; a real change first copies the old file to a
timestamped ``.bak`` beside it, then writes the new one atomically with the
old file's permissions (through a link, to the file it names); and a file that
changed under us since it was read is not overwritten.
"""

from __future__ import annotations

import difflib
import json
import os
import time
from dataclasses import dataclass
from typing import Any

from agentreflex.core.util.fsutil import atomic_write_bytes


class InstallError(Exception):
    """A clear, one-line reason why nothing was written."""


@dataclass(frozen=True)
class Change:
    """The content of one file before and after (``None``: the file is absent)."""

    path: str
    before: str | None
    after: str | None

    @property
    def changed(self) -> bool:
        return self.before != self.after

    def diff(self) -> str:
        """A unified diff of the change, ``/dev/null`` standing for an absent file."""
        old = (self.before or "").splitlines(keepends=True)
        new = (self.after or "").splitlines(keepends=True)
        lines = difflib.unified_diff(
            old,
            new,
            fromfile=self.path if self.before is not None else "/dev/null",
            tofile=self.path if self.after is not None else "/dev/null",
        )
        return "".join(line if line.endswith("\n") else line + "\n" for line in lines)


def read_text(path: str) -> str | None:
    """The file's text as it is (CRLF line ends kept), or ``None`` when it does not exist."""
    try:
        with open(path, encoding="utf-8", newline="") as fh:
            return fh.read()
    except FileNotFoundError:
        return None
    except UnicodeDecodeError as exc:
        raise InstallError(f"{path} is not UTF-8 text ({exc.reason}); nothing was written") from exc
    except OSError as exc:
        raise InstallError(f"cannot read {path}: {exc.strerror}; nothing was written") from exc


def parse_json_object(path: str, text: str | None, comments: bool = False) -> dict[str, Any]:
    """The settings object in ``text`` (``{}`` for an absent or empty file), or a clear error.

    ``comments``: read JSON with comments and trailing commas too (only to look at a file,
    as doctor does: a rewrite would lose them).  Without it such a file is refused with
    that reason, since hosts that read it (Gemini CLI, OpenCode) take it as valid.
    """
    if text is None or not text.strip():
        return {}
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        from agentreflex.core.util import jsonc

        try:
            value = jsonc.loads(text)
        except ValueError:
            value = exc
        if isinstance(value, json.JSONDecodeError):
            raise InstallError(
                f"{path} is not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg}); "
                "fix it by hand, nothing was written"
            ) from exc
        if not comments:
            raise InstallError(
                f"{path} has comments or trailing commas (line {exc.lineno}, column "
                f"{exc.colno}), which agentreflex would lose in rewriting it; nothing was "
                "written: take them out, or add the entries by hand"
            ) from exc
    if not isinstance(value, dict):
        raise InstallError(
            f"{path} holds a JSON {type(value).__name__}, not an object; nothing was written"
        )
    return value


def dump_json(obj: dict[str, Any]) -> str:
    """Settings as the hosts write them: two-space indent, UTF-8, final newline."""
    return json.dumps(obj, indent=2, ensure_ascii=False) + "\n"


def _backup_path(path: str, now: float) -> str:
    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime(now))
    candidate = f"{path}.{stamp}.bak"
    n = 1
    while os.path.lexists(candidate):
        n += 1
        candidate = f"{path}.{stamp}-{n}.bak"
    return candidate


def refuse_read_only(changes: list[Change]) -> None:
    """Refuse, before anything is written, when a file to change has no write permission.

    Why: the atomic rename needs only the folder to be writable, so a settings file the
    user made read-only (``chmod a-w``: leave it alone) would be replaced all the same.
    """
    for change in changes:
        if not change.changed or change.before is None:
            continue
        try:
            mode = os.stat(change.path).st_mode
        except OSError:
            continue  # gone since it was read: apply() says so
        if not mode & 0o200:
            raise InstallError(
                f"{change.path} is read-only (mode {mode & 0o777:o}); make it writable "
                "(chmod u+w) for agentreflex to edit it; nothing was written"
            )


def _through_dotfiles_link(path: str) -> str:
    """Where a change to ``path`` is written: the file a dotfiles link names, else ``path``.

    A settings file kept by stow or home-manager is a link to a file of the same name in
    the dotfiles checkout: the new content goes there, so the link stays and the dotfiles
    see the change.  A link to a file of another name is replaced, as any other file is:
    a project's ``.opencode/plugins/agentreflex.js`` the agent made a link to
    ``~/.bashrc`` would have had install write its plugin over the user's shell file.
    A link to a file not made yet, in a folder that is there, is followed too: the file
    is made where the dotfiles keep it, and the link stays.
    """
    if not os.path.islink(path):
        return path
    real = os.path.realpath(path)
    if os.path.basename(real) != os.path.basename(path):
        return path
    if os.path.isfile(real) or (not os.path.lexists(real) and os.path.isdir(os.path.dirname(real))):
        return real
    return path


def apply(change: Change, now: float | None = None) -> str | None:
    """Write ``change`` (backing up the old file); returns the backup's path, if one was made."""
    if not change.changed:
        return None
    current = read_text(change.path)
    if current != change.before:
        raise InstallError(
            f"{change.path} changed while it was being edited; run the command again"
        )
    backup = None
    mode = 0o600
    if change.before is not None:
        mode = os.stat(change.path).st_mode & 0o777
        backup = _backup_path(change.path, time.time() if now is None else now)
        fd = os.open(backup, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(change.before)
    target = _through_dotfiles_link(change.path)
    if change.after is None:  # a file install made: through a dotfiles link, the link stays
        os.unlink(target)
        return backup
    atomic_write_bytes(target, change.after.encode("utf-8"))
    os.chmod(target, mode)
    return backup
