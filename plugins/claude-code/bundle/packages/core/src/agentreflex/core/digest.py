"""SHA-256 hex digests without loading OpenSSL.

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

__all__ = ["sha256_hex"]


def sha256_hex(data: str | bytes, length: int = 64) -> str:
    """The SHA-256 of ``data`` (text is UTF-8, unencodable parts replaced) as hex, cut to ``length``."""
    raw = data.encode("utf-8", "replace") if isinstance(data, str) else data
    return str(_sha256(raw).hexdigest())[:length]
