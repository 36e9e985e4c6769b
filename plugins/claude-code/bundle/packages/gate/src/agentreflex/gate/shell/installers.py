"""Vendors' own install scripts piped to a shell: ``curl -LsSf https://astral.sh/uv/install.sh | sh``.

Running a download unread is what ``GATE-RCE-DOWNLOAD`` blocks, but the
documented install line of a toolchain (rustup, uv, poetry, nvm, Homebrew,
nodesource) fetched over HTTPS from the vendor's own host is how READMEs and
CI set-up steps install tools, and a block there stops ordinary work
(issue 30).  Those, listed as data in ``packs/installers.tsv``, warn; any
other download, plain HTTP, or a URL known only at run time still blocks.
"""

from __future__ import annotations

import os

from agentreflex.gate.model import REMOTE, Cmd, has_marker

_PREFIXES: list[str] = []


def _prefixes() -> list[str]:
    if not _PREFIXES:
        path = os.path.join(os.path.dirname(os.path.dirname(__file__)), "packs", "installers.tsv")
        with open(path, encoding="utf-8") as fh:
            _PREFIXES.extend(ln.strip() for ln in fh if ln.strip() and not ln.startswith("#"))
    return _PREFIXES


def vendor_installer(cmd: Cmd, downloaded: str = "") -> str:
    """The vendor URL when the code ``cmd`` runs is a listed install script over HTTPS:
    piped in from curl/wget, or ``downloaded`` to a file earlier in the same command
    (``curl -fsSL https://get.docker.com -o get-docker.sh && sh get-docker.sh``: the
    file's recorded content is the download marker followed by its URL)."""
    if downloaded:
        url = downloaded.lstrip(REMOTE)
        return url if REMOTE + url == downloaded and _vendor_url(url) else ""
    src = cmd.stdin_from
    for _ in range(8):
        if src is None:
            return ""
        if src.name in ("curl", "wget"):
            urls = [a for a in src.args if a.startswith(("https://", "http://"))]
            if len(urls) != 1 or has_marker(urls[0]) or not urls[0].startswith("https://"):
                return ""
            return urls[0] if _vendor_url(urls[0]) else ""
        src = src.stdin_from
    return ""


def _vendor_url(url: str) -> bool:
    if not url.startswith("https://") or has_marker(url) or any(c.isspace() for c in url):
        return False  # more than one word: a URL and whatever follows it (-c "$(curl URL); ...")
    host, _, path = url[len("https://") :].partition("/")
    return any(_listed(host.lower(), path, p) for p in _prefixes())


def _listed(host: str, path: str, prefix: str) -> bool:
    """The URL's host is the prefix's host exactly, and its path starts with the prefix's."""
    want_host, _, want_path = prefix.partition("/")
    return host == want_host and path.startswith(want_path)
