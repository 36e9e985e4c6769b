"""SHA-256 hex digests and HMAC-SHA256 without loading OpenSSL.

Why: ``import hashlib`` loads ``_hashlib`` and with it libcrypto, which costs a
hook process about 3.5 ms on this project's machines, more than a third of a
bare interpreter start. CPython's own builtin SHA-256 module gives the same
digests; ``hashlib`` is the fallback where a build leaves it out.
"""

from __future__ import annotations

try:  # Python 3.12+ names it _sha2
    from _sha2 import sha256 as _sha256  # type: ignore[import-not-found,unused-ignore]
except ImportError:
    try:
        from _sha256 import sha256 as _sha256  # type: ignore[import-not-found,no-redef,unused-ignore]
    except ImportError:  # pragma: no cover - a CPython built without its builtin hashes
        from hashlib import sha256 as _sha256  # type: ignore[assignment,unused-ignore]

__all__ = ["HmacSha256", "hmac_sha256", "sha256_hex"]

_BLOCK = 64


def sha256_hex(data: str | bytes, length: int = 64) -> str:
    """The SHA-256 of ``data`` (text is UTF-8, unencodable parts replaced) as hex, cut to ``length``."""
    raw = data.encode("utf-8", "replace") if isinstance(data, str) else data
    return str(_sha256(raw).hexdigest())[:length]


class HmacSha256:
    """HMAC-SHA256 (RFC 2104) under one key, with the padded key states computed once.

    Why not ``hmac``: it imports ``hashlib`` (and with it OpenSSL) on the hot
    path.  The session store authenticates every log line with this; the
    tests prove it equals ``hmac.new(key, msg, "sha256")``.
    """

    __slots__ = ("_inner", "_outer")

    def __init__(self, key: bytes) -> None:
        if len(key) > _BLOCK:
            key = _sha256(key).digest()
        key = key.ljust(_BLOCK, b"\0")
        self._inner = _sha256(bytes(b ^ 0x36 for b in key))
        self._outer = _sha256(bytes(b ^ 0x5C for b in key))

    def digest(self, msg: bytes) -> bytes:
        inner = self._inner.copy()
        inner.update(msg)
        outer = self._outer.copy()
        outer.update(inner.digest())
        return bytes(outer.digest())

    def hexdigest(self, msg: bytes) -> str:
        return self.digest(msg).hex()


def hmac_sha256(key: bytes, msg: bytes) -> bytes:
    """The HMAC-SHA256 of ``msg`` under ``key`` (same bytes as ``hmac.new(key, msg, "sha256")``)."""
    return HmacSha256(key).digest(msg)
