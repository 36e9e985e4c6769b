"""Authenticated session records: the per-user key, sealed log lines and snapshots, the anchor.

Why: the session log lives in the project, which the agent can write.  A
line the agent appends (``echo '{"kind":"post_tool",...}' >> log``) must never
count as a verification, an outcome or a stop-valve count.  So every line
carries an HMAC-SHA256, under a per-user key kept outside the project (0600
in a 0700 folder), over

    session id, sequence number, real path of the state dir, line content

so a line without a valid MAC (forged), with a sequence number already used
(replayed), or taken from another session or project (copied: the MAC was
made for another session id or path) is detected.  The snapshot is sealed
the same way.  A small *anchor* per session, also outside the project,
remembers the last sequence number and its MAC: a log deleted, truncated or
made unreadable between events leaves fewer records than the anchor says.

Layout of a sealed line: the record's JSON with ``"n"`` (the sequence
number) and, last, ``"mac"``::

    {...,"n":7,"mac":"<64 hex>"}

The MAC covers the bytes with the ``,"mac":"..."`` member cut out, so
checking needs no re-serialisation.
"""

from __future__ import annotations

import contextlib
import os
from _operator import _compare_digest

from agentreflex.core.state.userdirs import key_path, user_state_dir
from agentreflex.core.util.digest import HmacSha256, sha256_hex
from agentreflex.core.util.fsutil import private_dirs

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

KEY_BYTES = 32
_MAC_HEX = 64
_HEAD = b',"mac":"'
_TAIL = b'"}'
_SUFFIX = len(_HEAD) + _MAC_HEX + len(_TAIL)
_ANCHOR_WIDTH = 12


_KEYS: dict[str, bytes] = {}  # path -> key, once per process (the store and the guard share it)


class KeyUnavailable(OSError):
    """The per-user key cannot be read or created: records cannot be trusted."""


def load_key(env: Mapping[str, str] | None = None, create: bool = True) -> bytes:
    """The per-user key, created on first use (a racing creator never loses).

    The new key is written to a private temporary file created with
    ``O_EXCL`` and then hard-linked into place: ``link`` fails if another
    process got there first, and a key is never visible half-written.
    """
    path = key_path(env)
    try:
        return _KEYS[path]
    except KeyError:
        pass
    try:
        key = _KEYS[path] = _read_key(path)
        return key
    except FileNotFoundError:
        if not create:
            raise
    private_dirs(os.path.dirname(path))
    tmp = f"{path}.new-{os.getpid()}-{os.urandom(4).hex()}"
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        try:
            os.write(fd, os.urandom(KEY_BYTES))
            os.fsync(fd)
        finally:
            os.close(fd)
        with contextlib.suppress(FileExistsError):  # another process won: use its key
            os.link(tmp, path)
    except OSError as exc:
        raise KeyUnavailable(f"cannot create the state key {path}: {exc.strerror or exc}") from exc
    finally:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
    key = _KEYS[path] = _read_key(path)
    return key


def _read_key(path: str) -> bytes:
    try:
        with open(path, "rb") as fh:
            key = fh.read(KEY_BYTES + 1)
    except FileNotFoundError:
        raise
    except OSError as exc:
        raise KeyUnavailable(f"cannot read the state key {path}: {exc.strerror or exc}") from exc
    if len(key) != KEY_BYTES:
        raise KeyUnavailable(
            f"the state key {path} is damaged ({len(key)} bytes); "
            "move it aside to start over (sessions in progress will report lost state)"
        )
    return key


class Forged(ValueError):
    """A line or snapshot whose MAC is missing or wrong."""


class Sealer:
    """Seals and checks one session's lines and snapshot under the user's key."""

    __slots__ = ("_mac", "_prefix", "anchor_path")

    def __init__(
        self, key: bytes, session_id: str, state_dir: str, env: Mapping[str, str] | None = None
    ) -> None:
        scope = os.path.realpath(state_dir)
        self._mac = HmacSha256(key)
        self._prefix = b"\0".join(
            (b"agentreflex-state-v1", session_id.encode("utf-8", "replace"), scope.encode())
        )
        name = sha256_hex(scope + "\0" + session_id, 32)
        self.anchor_path = os.path.join(user_state_dir(env), "anchors", name)

    def _tag(self, kind: bytes, n: int, body: bytes) -> str:
        return self._mac.hexdigest(b"\0".join((self._prefix, kind, str(n).encode(), body)))

    # ------------------------------------------------------------ log lines

    def seal_line(self, line: str, n: int) -> tuple[str, str]:
        """``line`` (one JSON object, ``"n"`` already in it) with its MAC appended; and the MAC."""
        body = line.encode("utf-8", "replace")
        mac = self._tag(b"line", n, body)
        return line[:-1] + ',"mac":"' + mac + '"}', mac

    def check_line(self, raw: bytes, n: int) -> str:
        """The line's MAC if it is genuine for sequence number ``n``; raises :class:`Forged`."""
        return self._check(raw, b"line", n)

    # ------------------------------------------------------------- snapshot

    def seal_snapshot(self, text: str) -> str:
        return text[:-1] + ',"mac":"' + self._tag(b"snapshot", 0, text.encode()) + '"}'

    def check_snapshot(self, raw: bytes) -> None:
        self._check(raw, b"snapshot", 0)

    def _check(self, raw: bytes, kind: bytes, n: int) -> str:
        if len(raw) <= _SUFFIX or raw[-_SUFFIX:][: len(_HEAD)] != _HEAD or raw[-2:] != _TAIL:
            raise Forged("no MAC")
        mac = raw[-_MAC_HEX - 2 : -2].decode("ascii", "replace")
        if not _compare_digest(mac, self._tag(kind, n, raw[:-_SUFFIX] + b"}")):
            raise Forged("bad MAC")
        return mac

    # --------------------------------------------------------------- anchor

    def read_anchor(self) -> tuple[int, str]:
        """(last sequence number, its MAC) as last written, or (0, "") for a new session.

        The anchor is sealed too: a forged one counts as "no anchor" only if
        it fails to parse; a well-formed one with a bad seal raises.
        """
        try:
            with open(self.anchor_path, "rb") as fh:
                raw = fh.read(256)
        except FileNotFoundError:
            return 0, ""
        try:
            n_text, mac, seal = raw.decode("ascii").split()
            n = int(n_text)
        except ValueError as exc:
            raise Forged("anchor unreadable") from exc
        if not _compare_digest(seal, self._tag(b"anchor", n, mac.encode())):
            raise Forged("anchor seal is wrong")
        return n, mac

    def write_anchor(self, n: int, mac: str) -> None:
        """Overwrite the anchor in place (fixed width: one small write, no rename)."""
        seal = self._tag(b"anchor", n, mac.encode())
        _write_anchor(self.anchor_path, f"{n:0{_ANCHOR_WIDTH}d} {mac} {seal}\n".encode())

    def clear_anchor(self) -> None:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(self.anchor_path)


class FileSeal:
    """A whole file's MAC, kept in an anchor outside the project (for small rewritten files).

    Why: a file rewritten in place (the guard's ledger) has no lines to
    number; its seal is the MAC of its bytes, stored where the agent's
    project writes do not reach.  A file that no longer matches its seal was
    edited outside agentreflex; a sealed file that is gone was deleted.  A
    file with no seal yet (written before sealing existed) is accepted and
    sealed at its next write.
    """

    __slots__ = ("_mac", "_prefix", "anchor_path")

    def __init__(self, key: bytes, label: str, path: str, env: Mapping[str, str] | None = None):
        scope = os.path.join(os.path.realpath(os.path.dirname(path)), os.path.basename(path))
        self._mac = HmacSha256(key)
        self._prefix = b"\0".join((b"agentreflex-file-v1", label.encode(), scope.encode(), b""))
        name = "file-" + sha256_hex(label + "\0" + scope, 32)
        self.anchor_path = os.path.join(user_state_dir(env), "anchors", name)

    def problem(self, data: bytes | None) -> str:
        """Why ``data`` (None: the file is missing) is not what agentreflex last wrote; "" if it is."""
        try:
            with open(self.anchor_path, "rb") as fh:
                sealed = fh.read(_MAC_HEX).decode("ascii", "replace")
        except FileNotFoundError:
            return ""
        except OSError as exc:
            return f"its seal cannot be read ({exc.strerror or exc})"
        if data is None:
            return "it was deleted since agentreflex last wrote it"
        if not _compare_digest(sealed, self._mac.hexdigest(self._prefix + data)):
            return "it was changed outside agentreflex (its seal does not match)"
        return ""

    def write(self, data: bytes) -> None:
        _write_anchor(self.anchor_path, self._mac.hexdigest(self._prefix + data).encode())


def _write_anchor(path: str, data: bytes) -> None:
    """Overwrite a fixed-width anchor in place: one small write, no rename, no fsync.

    Every anchor of a kind has the same width, so a write in place never
    leaves a longer old tail behind.
    """
    flags = os.O_WRONLY | os.O_CREAT
    try:
        fd = os.open(path, flags, 0o600)
    except FileNotFoundError:
        private_dirs(os.path.dirname(path))
        fd = os.open(path, flags, 0o600)
    try:
        os.pwrite(fd, data, 0)
    finally:
        os.close(fd)
