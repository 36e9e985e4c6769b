"""The judge's one-line text of a tool call holds no secret of its input's lists.

It formats the input's values as core's summary does (``key=value``): an argv
list (an MCP tool's args, an exec call's command) is redacted as a value
(``redact_shown``) before its repr's quotes and commas hide a password from the
flag before it or a join's halves from each other.
"""

from __future__ import annotations

import pytest
from agentreflex.core.testing import pre_tool
from agentreflex.judge2 import statetext

TOKEN = "ghp_0123456789abcdefghijklmnopqrstuvwxyzAB"


@pytest.mark.parametrize(
    ("argv", "secret"),
    [
        (["$k", "=", f"'{TOKEN[:10]}'", ".", f"'{TOKEN[10:]}';"], TOKEN[10:]),
        (["gh", "secret", "set", "API_KEY", "-b'Gh-Body-Short9'"], "Gh-Body-Short9"),
        (["mysql", "-uroot", "-pS3cretPw9FAKE", "app"], "S3cretPw9FAKE"),
    ],
)
def test_the_judges_text_of_an_argv_list_holds_no_secret(argv: list[str], secret: str) -> None:
    event = pre_tool("mcp__db__run", {"argv": argv})
    assert event.tool is not None
    text = statetext.clip(statetext.tool_text(event.tool), 2000)
    assert secret not in text, text
    assert "mcp__db__run" in text
