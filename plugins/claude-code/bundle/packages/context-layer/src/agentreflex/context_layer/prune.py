"""Pruning a pi / omp conversation: superseded tool outputs become one-line stubs.

pi and oh-my-pi hand an extension the message list before every model call
(the ``context`` event, ``{messages}`` in, ``{messages}`` out, a deep copy
the host sends instead).  Much of a long session is tool output the agent
has since replaced: a file read again after it was read, a test command run
again after it ran.  :func:`prune_messages` turns each superseded result
into a stub naming what replaced it.  It is a pure function: the input is
not modified, the same input gives the same output, and it never touches:

* the last turn (everything from the last user message on), which the model
  is acting on now;
* a result whose call it cannot identify, errors it cannot see replaced, or
  a result shorter than its stub would be.

With ``budget_tokens``, only as many results are stubbed as it takes (oldest
first) to bring the estimated size of the whole list within the budget;
without one, every superseded result is.

Message shapes (``@mariozechner/pi-ai``): ``{role: "assistant", content:
[{type: "toolCall", id, name, arguments}, ...]}`` and ``{role: "toolResult",
toolCallId, toolName, content: [{type: "text", text} | {type: "image"}],
isError, timestamp}``.  Anything else passes through unchanged.
"""

from __future__ import annotations

import copy

from agentreflex.context_layer.tokens import estimate_tokens
from agentreflex.core.redaction.redact import redact, redact_head
from agentreflex.core.util import fastjson
from agentreflex.core.util.record import field, record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

READ_TOOLS = frozenset({"read", "read_file", "view", "cat"})
RUN_TOOLS = frozenset({"bash", "shell", "exec", "exec_command"})


@record
class PruneReport:
    """What was pruned: stubbed tool call ids, and the estimated tokens before and after."""

    stubbed: list[str] = field(default_factory=list)
    tokens_before: int = 0
    tokens_after: int = 0


def prune_messages(
    messages: list[Any], budget_tokens: int | None = None
) -> tuple[list[Any], PruneReport]:
    """A pruned copy of a pi ``context`` message list, and what was done."""
    out = copy.deepcopy(messages) if isinstance(messages, list) else []
    report = PruneReport(tokens_before=_tokens(out))
    report.tokens_after = report.tokens_before
    if budget_tokens is not None and report.tokens_before <= budget_tokens:
        return out, report
    calls = _calls(out)
    last_turn = _last_turn_start(out)
    keys = [_key(calls.get(_result_id(m))) if _is_result(m) else None for m in out]
    latest: dict[tuple[str, str], int] = {}
    for i, key in enumerate(keys):
        if key is not None:
            latest[key] = i
    total = report.tokens_before
    for i, key in enumerate(keys[:last_turn]):
        if key is None or latest[key] == i:
            continue
        if budget_tokens is not None and total <= budget_tokens:
            break
        stub = _stub(key, out[latest[key]])
        old = _tokens([out[i]])
        replaced = dict(out[i])
        replaced["content"] = [{"type": "text", "text": stub}]
        new = _tokens([replaced])
        if new >= old:
            continue
        out[i] = replaced
        total -= old - new
        report.stubbed.append(_result_id(replaced))
    report.tokens_after = _tokens(out)
    return out, report


def _is_result(message: Any) -> bool:
    return isinstance(message, dict) and message.get("role") == "toolResult"


def _result_id(message: dict[str, Any]) -> str:
    value = message.get("toolCallId")
    return value if isinstance(value, str) else ""


def _calls(messages: list[Any]) -> dict[str, dict[str, Any]]:
    """Every tool call of every assistant message, by id."""
    found: dict[str, dict[str, Any]] = {}
    for message in messages:
        if not isinstance(message, dict) or message.get("role") != "assistant":
            continue
        content = message.get("content")
        for block in content if isinstance(content, list) else []:
            is_call = isinstance(block, dict) and block.get("type") == "toolCall"
            if is_call and isinstance(block.get("id"), str):
                found[block["id"]] = block
    return found


def _key(call: dict[str, Any] | None) -> tuple[str, str] | None:
    """What a call's result is about: ``("read", path)`` or ``("run", command)``."""
    if call is None:
        return None
    name = str(call.get("name", "")).lower()
    args = call.get("arguments")
    if not isinstance(args, dict):
        return None
    if name in READ_TOOLS and isinstance(args.get("path"), str):
        if args.get("offset") is not None or args.get("limit") is not None:
            return None  # a slice is not replaced by another slice
        return ("read", args["path"])
    if name in RUN_TOOLS and isinstance(args.get("command"), str):
        return ("run", " ".join(args["command"].split()))
    return None


def _stub(key: tuple[str, str], newer: dict[str, Any]) -> str:
    # redacted before it is cut: a cut token keeps a head no rule recognises afterwards
    what = (
        f"read of {redact(key[1])}" if key[0] == "read" else f"run of `{redact_head(key[1], 200)}`"
    )
    return (
        f"[agentreflex: superseded by a later {what} (tool call {_result_id(newer)}); "
        "this older output was pruned from the context]"
    )


def _last_turn_start(messages: list[Any]) -> int:
    for i in range(len(messages) - 1, -1, -1):
        message = messages[i]
        if isinstance(message, dict) and message.get("role") == "user":
            return i
    return 0  # no user message: nothing is safely "before the last turn"


def _tokens(messages: list[Any]) -> int:
    return estimate_tokens(fastjson.dumps(messages, ensure_ascii=False))


def handle_context_event(event: Any, budget_tokens: int | None = None) -> dict[str, Any]:
    """pi's ``context`` event in, its ``ContextEventResult`` (``{messages}``) out.

    A malformed event gives ``{}`` (pi then keeps its own list): pruning is a
    convenience and never stands between the agent and its model.
    """
    messages = event.get("messages") if isinstance(event, dict) else None
    if not isinstance(messages, list):
        return {}
    pruned, report = prune_messages(messages, budget_tokens)
    return {"messages": pruned} if report.stubbed else {}
