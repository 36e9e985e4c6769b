"""Every word the runaway reflex says to the agent, in one place.

Messages are deterministic code, never model output.  Each names what was
seen and what to do instead: gather new evidence, change the hypothesis, or
ask the user, because a refusal that only says "no" invites the agent to try
the same thing with a cosmetic change.
"""

from __future__ import annotations

LOOP_TITLE = "LOOP REFLEX"  # core's panel adds the verdict icon (⚡ for a block)
BUDGET_TITLE = "BUDGET REFLEX"

_INSTEAD = (
    "Instead: gather new evidence (read the code or log the error points at, or inspect the "
    "full output), change your hypothesis and try a different fix, or ask the user."
)


def _quote(text: str, limit: int = 120) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def exact_repeat_block(count: int, signature: str) -> str:
    error = f" ({_quote(signature)})" if signature else ""
    return (
        f"Loop: this call already failed {count} times with the same error{error} "
        "(a pause, `time` or `timeout` put before it does not make it another call), "
        f"and nothing new was learnt in between, so it will fail again. {_INSTEAD}"
    )


def judged_loop_block(repeat: float, progress: float) -> str:
    return (
        "Loop: this call repeats an approach that already failed, without new evidence "
        f"(repeat p={repeat:.2f}, expected progress p={progress:.2f}). {_INSTEAD}"
    )


def repeat_heads_up(count: int, signature: str) -> str:
    error = f" ({_quote(signature)})" if signature else ""
    return (
        f"This call has now failed {count} times in a row with the same error{error}. "
        "Running it again unchanged will be refused. Look at why it fails before retrying."
    )


def same_error(commands: int, signature: str) -> str:
    return (
        f"{commands} different commands have now failed with the same error "
        f"({_quote(signature)}). Varying the command is not addressing the cause. {_INSTEAD}"
    )


def alternation(cycles: int) -> str:
    return (
        f"You are alternating between the same two calls ({cycles} rounds) without the "
        f"situation changing. {_INSTEAD}"
    )


def near_repeat(variants: int) -> str:
    return (
        f"This is variant {variants} of a command that keeps failing; changing a number, "
        f"quote or flag order is not a new approach. {_INSTEAD}"
    )


def exploration(reads: int) -> str:
    return (
        f"{reads} reads and searches in a row without changing anything. Write down what "
        "you know, pick the most likely hypothesis and act on it, or ask the user what "
        "you are missing."
    )


def verification_loop(runs: int) -> str:
    return (
        f"This test command has run {runs} times with no file changed in between; running "
        "it again will show the same result. Change something first, or move on."
    )


def echo(times: int) -> str:
    return (
        f"Your last {times} messages were identical. Repeating yourself will not help: "
        "say what is blocking you, try a different approach, or ask the user."
    )


def post_blocker(p: float) -> str:
    return (
        f"That result looks like a blocker (p={p:.2f}): something outside the code, such as "
        "a missing permission, service or credential. Ask the user rather than working "
        "around it."
    )


def post_retry_unlikely(p: float) -> str:
    return (
        f"Retrying that call as it is is unlikely to help (p={p:.2f}). Read the error, "
        "change the approach, or ask the user."
    )


def budget_warn(label: str, usage: str, limit: str) -> str:
    return (
        f"Budget: {label} is at {usage} of {limit}. Wrap up the current step, and tell the "
        "user where things stand before the limit is reached."
    )


def budget_block(label: str, usage: str, limit: str, cooldown: str) -> str:
    return (
        f"Budget reached: {label} is at {usage} (limit {limit}). Stop and summarise progress "
        f"and what remains for the user; work can resume after the user replies or in "
        f"{cooldown}, or the limit can be raised in the [budgets] config."
    )


def budget_grace(label: str, usage: str, limit: str) -> str:
    return (
        f"Budget: {label} is over its limit ({usage} of {limit}); continuing on a short "
        "grace allowance. Finish the current step and report to the user."
    )
