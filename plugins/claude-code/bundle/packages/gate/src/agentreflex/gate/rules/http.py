"""HTTP requests that delete data on a service (curl, wget, httpie): a rule of its own.

Its own small module because ``curl`` is an everyday command: judging it must
not load the other remote rules (see tests/test_reflex_imports.py).
"""

from __future__ import annotations

from agentreflex.gate.model import DESTRUCTIVE, P_BLOCK, Cmd, Hit
from agentreflex.gate.shell.paths import Where

# Endpoints that delete or close data when POSTed/PUT to (search engines,
# Jenkins, Prometheus, Meilisearch, cluster-wide settings).
_DELETING_ENDPOINTS = (
    "_delete_by_query",
    "/_close",
    "/doDelete",
    "/delete-batch",
    "/delete_series",
    "/_cluster/settings",
    "/documents/delete",
)


def http_delete(cmd: Cmd, where: Where) -> list[Hit]:
    """An HTTP DELETE (or Elasticsearch/OpenSearch ``_delete_by_query``) sent with curl,
    wget or httpie: it deletes data on a service.  Every index or a wildcard blocks;
    one resource asks."""
    args = cmd.args
    if cmd.name in ("http", "https", "xh"):
        method = next((a.upper() for a in args if not a.startswith("-")), "")
        urls = [a for a in args if not a.startswith("-")][1:2]
    else:
        method = http_method(args)
        if cmd.name == "wget":
            method = next(
                (a.partition("=")[2].upper() for a in args if a.startswith("--method=")), method
            )
        urls = [a for a in args if not a.startswith("-") and ("://" in a or a[:1].isalnum())]
    if not method and any(
        a in ("-d", "-F", "--json", "--form") or a.startswith(("--data", "-d")) for a in args
    ):
        method = "POST"  # curl sends a body with POST unless told otherwise
    by_query = method in ("POST", "PUT") and any(
        any(end in u.split("?", 1)[0] for end in _DELETING_ENDPOINTS) for u in urls
    )
    by_query = by_query or (method == "POST" and _graphql_delete(args))
    if method != "DELETE" and not by_query:
        return []
    path = urls[-1].split("?", 1)[0].rstrip("/") if urls else ""
    every = path.endswith(("/_all", "/*")) or "*" in path.rsplit("/", 1)[-1]
    return [
        Hit(
            "GATE-HTTP-DELETE",
            DESTRUCTIVE if every else "ask",
            P_BLOCK if every else 1.0,
            cmd.text,
            "This HTTP request deletes data on a service"
            + (" (every index or a wildcard)" if every else "")
            + ". Ask the user, or query it first with a GET.",
        )
    ]


# GraphQL mutations that delete (New Relic's deleteEntity, GitHub's deleteRepository...)
_DELETING_MUTATIONS = ("delete", "remove", "destroy", "purge", "drop")


def _graphql_delete(args: list[str]) -> bool:
    """A GraphQL request body whose mutation's first field deletes (``mutation { deleteX(...)``)."""
    for a in args:
        at = a.find("mutation")
        if at < 0:
            continue
        field = a[at:].partition("{")[2].lstrip().lower()
        name = field.split("(", 1)[0].split("{", 1)[0].split()[0] if field.split() else ""
        # deleteRepository, and the noun-first spelling: Railway's volumeDelete, the
        # call that deleted PocketOS's production volume (jackmaguire.org, 2026-06-01)
        if any(verb in name for verb in _DELETING_MUTATIONS):
            return True
    return False


# curl's short options that take a value (the rest of a cluster, or the next word)
CURL_VALUED = frozenset("dFTHuXoeAbcKrwxyYzEmCDUQtP")


def http_method(args: list[str]) -> str:
    """The method of ``gh api``/``curl``-style ``-X M``, ``-XM``, ``--method M|=M``, also
    last in or inside a short cluster (``-sX DELETE``, ``-sXDELETE``, ``-fsSX DELETE``)."""
    for i, a in enumerate(args):
        if a in ("-X", "--method", "--request") and i + 1 < len(args):
            return args[i + 1].upper()
        if a.startswith(("--method=", "--request=")):
            return a.partition("=")[2].upper()
        if a.startswith("-X") and len(a) > 2:
            return a[2:].upper()
        if a[:1] == "-" and a[1:2] != "-" and "X" in a[2:]:
            head, _, value = a[1:].partition("X")
            if head.isalpha() and not set(head) & CURL_VALUED:
                return (value or (args[i + 1] if i + 1 < len(args) else "")).upper()
    return ""
