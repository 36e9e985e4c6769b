"""A small real MCP server (stdio, JSON-RPC 2.0, one message per line) for the host tests.

Hosts start it as a subprocess from their own MCP configuration, list its tools
and call them, exactly as they would a published server.  Its tools act for
real, so a call the guard fails to stop leaves its mark on disk:

* ``run_command {command}`` runs the command with ``/bin/sh -c`` in the
  server's working directory and returns its output;
* ``write_file {path, content}`` writes a file.

Only the standard library: the hosts run it with this checkout's interpreter.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

PROTOCOL_VERSION = "2025-06-18"
SERVER_NAME = "hostlab"

TOOLS: list[dict[str, Any]] = [
    {
        "name": "run_command",
        "description": "Run a shell command in the project and return its output.",
        "inputSchema": {
            "type": "object",
            "properties": {"command": {"type": "string", "description": "The command."}},
            "required": ["command"],
        },
    },
    {
        "name": "write_file",
        "description": "Write text to a file in the project.",
        "inputSchema": {
            "type": "object",
            "properties": {
                "path": {"type": "string", "description": "Where to write."},
                "content": {"type": "string", "description": "What to write."},
            },
            "required": ["path", "content"],
        },
    },
]


def call_tool(name: str, args: dict[str, Any]) -> tuple[str, bool]:
    """Run one tool; returns (text, is_error)."""
    if name == "run_command":
        done = subprocess.run(
            ["/bin/sh", "-c", str(args.get("command", ""))],
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        return (done.stdout + done.stderr) or f"(exit {done.returncode})", done.returncode != 0
    if name == "write_file":
        path = Path(str(args.get("path", "")))
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(str(args.get("content", "")))
        return f"wrote {path}", False
    return f"unknown tool {name}", True


def answer(message: dict[str, Any]) -> dict[str, Any] | None:
    """The reply to one JSON-RPC message (None for notifications)."""
    method = message.get("method")
    ident = message.get("id")
    if ident is None:
        return None
    if method == "initialize":
        requested = (message.get("params") or {}).get("protocolVersion") or PROTOCOL_VERSION
        result: dict[str, Any] = {
            "protocolVersion": requested,
            "capabilities": {"tools": {"listChanged": False}},
            "serverInfo": {"name": SERVER_NAME, "version": "1.0.0"},
        }
    elif method == "tools/list":
        result = {"tools": TOOLS}
    elif method == "tools/call":
        params = message.get("params") or {}
        text, is_error = call_tool(str(params.get("name")), params.get("arguments") or {})
        result = {"content": [{"type": "text", "text": text}], "isError": is_error}
    elif method == "ping":
        result = {}
    else:
        return {"jsonrpc": "2.0", "id": ident, "error": {"code": -32601, "message": "no method"}}
    return {"jsonrpc": "2.0", "id": ident, "result": result}


def main() -> int:
    for line in sys.stdin:
        line = line.strip()
        if not line:
            continue
        try:
            message = json.loads(line)
        except ValueError:
            continue
        reply = answer(message) if isinstance(message, dict) else None
        if reply is not None:
            sys.stdout.write(json.dumps(reply) + "\n")
            sys.stdout.flush()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
