"""route(): rules in order, the tag, the ladder, budgets and fallbacks, each explained."""

from dataclasses import replace

from agentreflex.routing import Features, parse_policy, route

POLICY = parse_policy(
    """
default_lane = "main"

[lanes.main]
provider = "a"
api = "anthropic"
base_url = "http://127.0.0.1:9"
model = "main-model"
fallbacks = ["backup"]

[lanes.fast]
provider = "a"
api = "anthropic"
base_url = "http://127.0.0.1:9"
model = "fast-model"
fallbacks = ["main"]

[lanes.large]
provider = "a"
api = "anthropic"
base_url = "http://127.0.0.1:9"
model = "large-model"
budget_usd = 1.0
fallbacks = ["main"]

[lanes.backup]
provider = "o"
api = "openai-chat"
base_url = "http://127.0.0.1:9"
model = "backup-model"

[[rules]]
name = "background"
lane = "fast"
when = { background = true }

[[rules]]
name = "long"
lane = "large"
when = { min_input_tokens = 1000 }

[[rules]]
name = "haiku-with-few-tools"
lane = "fast"
when = { model = "*HAIKU*", max_tools = 2, min_tools = 1 }

[[rules]]
name = "sub"
lane = "fast"
when = { subagent = true, thinking = false }

[ladder]
lanes = ["fast", "main", "large"]
after_failures = 2
"""
)
PLAIN = Features(api="anthropic", model="claude-opus", tool_count=5, input_tokens=10)


def test_no_rule_matches_the_default_lane_and_its_fallbacks() -> None:
    decision = route(POLICY, PLAIN)
    lane, reason = decision
    assert (lane, reason) == ("main", "no rule matched: default lane")
    assert decision.fallbacks == ("backup",)
    steps = [(t.step, t.matched) for t in decision.trace]
    assert steps == [
        ("rule background", False),
        ("rule long", False),
        ("rule haiku-with-few-tools", False),
        ("rule sub", False),
        ("default", True),
    ]
    why = {t.step: t.why for t in decision.trace}
    assert why["rule long"] == "~10 input tokens < 1000"
    assert "does not match '*HAIKU*'" in why["rule haiku-with-few-tools"]


def test_the_first_matching_rule_wins_and_says_why() -> None:
    features = replace(PLAIN, background=True, background_why="asks for a title", input_tokens=5000)
    lane, reason = route(POLICY, features)
    assert lane == "fast"
    assert reason == "rule 'background': asks for a title"


def test_every_condition_must_hold() -> None:
    haiku = replace(PLAIN, model="claude-haiku-4-5", tool_count=2)
    assert route(POLICY, haiku).lane == "fast"
    assert route(POLICY, replace(haiku, tool_count=3)).lane == "main"
    assert route(POLICY, replace(haiku, tool_count=0)).lane == "main"
    sub = replace(PLAIN, subagent=True, subagent_why="marked")
    assert route(POLICY, sub).lane == "fast"
    assert route(POLICY, replace(sub, thinking=True)).lane == "main"


def test_a_tag_naming_a_lane_wins_and_an_unknown_tag_is_reported_and_ignored() -> None:
    decision = route(POLICY, replace(PLAIN, tag="large", background=True))
    assert (decision.lane, decision.reason) == ("large", "tag [lane:large]")
    unknown = route(POLICY, replace(PLAIN, tag="turbo"))
    assert unknown.lane == "main"
    assert unknown.trace[0].why == "[lane:turbo] names no lane; ignored"
    closed = POLICY.model_copy(update={"allow_tags": False})
    assert route(closed, replace(PLAIN, tag="large")).lane == "main"


def test_the_ladder_climbs_one_lane_per_after_failures() -> None:
    sub = replace(PLAIN, subagent=True, subagent_why="marked")
    assert route(POLICY, replace(sub, session_failures=1)).lane == "fast"
    two = route(POLICY, replace(sub, session_failures=2))
    assert two.lane == "main"
    assert "ladder: 2 failures in this session: 'fast' -> 'main'" in two.reason
    assert route(POLICY, replace(sub, session_failures=4)).lane == "large"
    assert route(POLICY, replace(sub, session_failures=40)).lane == "large"
    top = route(POLICY, replace(PLAIN, input_tokens=5000, session_failures=2))
    assert top.lane == "large" and top.trace[-1].why == "'large' is already the top of the ladder"


def test_a_lane_over_budget_hands_over_to_its_fallback() -> None:
    long = replace(PLAIN, input_tokens=5000)
    assert route(POLICY, long, {"large": 0.5}).lane == "large"
    over = route(POLICY, long, {"large": 1.0})
    assert over.lane == "main"
    assert "'large' is over its budget, so 'main'" in over.reason
    assert over.fallbacks == ("backup",)


def test_when_every_lane_is_over_budget_the_request_is_refused() -> None:
    policy = POLICY.model_copy(
        update={
            "lanes": {k: v.model_copy(update={"budget_usd": 1.0}) for k, v in POLICY.lanes.items()}
        }
    )
    decision = route(policy, PLAIN, {name: 2.0 for name in policy.lanes})
    assert decision.lane is None
    assert "refused" in decision.reason


EDGES = parse_policy(
    """
default_lane = "solo"

[lanes.solo]
provider = "a"
api = "anthropic"
base_url = "http://127.0.0.1:9"
model = "solo-model"
fallbacks = ["chat", "extra"]

[lanes.chat]
provider = "o"
api = "openai-chat"
base_url = "http://127.0.0.1:9"
model = "chat-model"
fallbacks = ["extra"]

[lanes.extra]
provider = "o"
api = "openai-chat"
base_url = "http://127.0.0.1:9"
model = "extra-model"
fallbacks = ["solo"]

[[rules]]
name = "chat-api-and-short"
lane = "chat"
when = { api = "openai-chat", max_input_tokens = 100 }

[[rules]]
name = "always"
lane = "solo"

[ladder]
lanes = ["chat", "extra"]
after_failures = 1
"""
)


def test_api_and_max_input_tokens_are_conditions_each_explained() -> None:
    chat = Features(api="openai-chat", model="m", input_tokens=50)
    decision = route(EDGES, chat)
    assert decision.lane == "chat"
    assert "api openai-chat is openai-chat; ~50 input tokens <= 100" in decision.reason
    long = route(EDGES, replace(chat, input_tokens=500))
    assert long.lane == "solo"
    assert long.trace[0].why == "~500 input tokens > 100"
    other = route(EDGES, replace(chat, api="anthropic"))
    assert other.trace[0].why == "api anthropic is not openai-chat"


def test_a_rule_without_conditions_always_matches() -> None:
    decision = route(EDGES, Features(api="anthropic", model="m"))
    assert (decision.lane, decision.reason) == ("solo", "rule 'always': no conditions")


def test_failures_on_a_lane_off_the_ladder_leave_it_and_say_so() -> None:
    decision = route(EDGES, Features(api="anthropic", model="m", session_failures=3))
    assert decision.lane == "solo"
    assert decision.trace[-1].step == "ladder" and not decision.trace[-1].matched
    assert decision.trace[-1].why == "3 failures but 'solo' is not on the ladder"


def test_fallbacks_are_each_lane_once_even_when_they_loop() -> None:
    decision = route(EDGES, Features(api="anthropic", model="m"))
    assert decision.fallbacks == ("chat", "extra")
