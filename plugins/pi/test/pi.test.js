// The pi/omp extension against a real `agentreflex hook pi` (no daemon).  pi's own loop
// is exercised in integration-tests/test_pi_host.py; here the handlers are called the way
// pi 0.73 calls them, with a stand-in ExtensionAPI that records pi.on and sendUserMessage.

import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { installShim, makeWorld, realRecord } from "../../opencode/testworld.js";

const world = makeWorld();

async function extension(record = realRecord("pi")) {
  /** @type {Record<string, Function>} */
  const handlers = {};
  /** @type {string[]} */
  const sent = [];
  const pi = {
    on: (/** @type {string} */ name, /** @type {Function} */ fn) => { handlers[name] = fn; },
    sendUserMessage: async (/** @type {string} */ text) => { sent.push(text); },
  };
  const mod = await installShim(world.root, "pi.js", record);
  mod.default(pi);
  const ctx = (/** @type {string} */ sid) => ({ cwd: world.project, sessionManager: { getSessionId: () => sid }, isIdle: () => true });
  return { handlers, sent, ctx };
}

test("every event pi can veto or feed is handled", async () => {
  const { handlers } = await extension();
  for (const name of ["session_start", "before_agent_start", "tool_call", "tool_result", "context", "agent_end", "session_shutdown"]) {
    assert.equal(typeof handlers[name], "function", name);
  }
});

test("a destructive command is blocked with agentreflex's reason; a benign one is not", async () => {
  const { handlers, ctx } = await extension();
  const blocked = await handlers.tool_call(
    { type: "tool_call", toolName: "bash", toolCallId: "c1", input: { command: `rm -rf ${join(world.home, "notes")}` } },
    ctx("s1"),
  );
  assert.equal(blocked.block, true);
  assert.match(blocked.reason, /GATE-RM-/);
  const fine = await handlers.tool_call({ type: "tool_call", toolName: "bash", toolCallId: "c2", input: { command: "echo hi" } }, ctx("s1"));
  assert.equal(fine?.block, undefined);
});

test("enforced mode: a shell command is rewritten to run inside bubblewrap, and holds when run", async () => {
  const { handlers, ctx } = await extension();
  const config = join(world.project, ".agentreflex", "config.toml");
  const before = readFileSync(config, "utf8");
  // a route the parse-based gate does not see: the write is in a script the agent wrote earlier
  writeFileSync(join(world.project, "where.txt"), Buffer.from(".agentreflex/config.toml").toString("base64"));
  writeFileSync(join(world.project, "w.py"), "import base64\nopen(base64.b64decode(open('where.txt').read()).decode(), 'w').write('x')\n");
  const event = {
    type: "tool_call", toolName: "bash", toolCallId: "c3",
    input: { command: `cd ${world.project} && echo inside > ok.txt && python3 w.py` },
  };
  const agentCommand = event.input.command;
  const reply = await handlers.tool_call(event, ctx("s3"));
  assert.equal(reply?.reason, undefined);
  assert.match(event.input.command, /bwrap .* -- \S*bash -c /);
  assert.equal(reply.input, event.input);
  // run it the way pi's bash tool does: the host's shell, in the session's folder
  const done = spawnSync("bash", ["-c", event.input.command], { cwd: world.project, encoding: "utf8" });
  assert.notEqual(done.status, 0);
  assert.match(done.stderr, /Read-only file system/);
  assert.equal(readFileSync(join(world.project, "ok.txt"), "utf8"), "inside\n");
  assert.equal(readFileSync(config, "utf8"), before);
  // the reflexes after the tool see the agent's own command, not bwrap's
  await handlers.tool_result({ toolName: "bash", toolCallId: "c3", input: event.input, content: [], isError: true }, ctx("s3"));
  assert.ok(agentCommand.startsWith("cd "));
});

test("'do not modify tests' blocks an edit of a test file", async () => {
  const { handlers, ctx } = await extension();
  mkdirSync(join(world.project, "tests"), { recursive: true });
  writeFileSync(join(world.project, "tests", "test_calc.py"), "def test_add():\n    assert 1\n");
  await handlers.before_agent_start({ prompt: "Fix the bug. Do not modify tests.", systemPrompt: "" }, ctx("s2"));
  const edit = (/** @type {string} */ path) =>
    handlers.tool_call({ toolName: "edit", toolCallId: "e", input: { path, oldText: "1", newText: "0" } }, ctx("s2"));
  assert.match((await edit("tests/test_calc.py")).reason, /Do not modify tests.*GATE-CONSTRAINT/s);
  assert.equal(await edit("src/calc.py"), undefined);
});

test("context after two identical failures joins the next model request, once", async () => {
  const { handlers, ctx } = await extension();
  for (let i = 0; i < 2; i++) {
    await handlers.tool_result(
      { toolName: "bash", toolCallId: `r${i}`, input: { command: "pytest -q" }, content: [{ type: "text", text: "E   AssertionError: 1 failed" }], details: { exitCode: 1 }, isError: true },
      ctx("s3"),
    );
  }
  const messages = [{ role: "user", content: "go" }];
  const out = await handlers.context({ messages });
  assert.equal(out.messages.length, 2);
  assert.equal(out.messages[1].role, "custom");
  assert.match(out.messages[1].content, /failed 2 times in a row/);
  assert.equal(await handlers.context({ messages }), undefined);
});

test("agent_end after unverified work sends one follow-up; the next agent_end is let through", async () => {
  const { handlers, sent, ctx } = await extension();
  const file = join(world.project, "src", "feature.py");
  await handlers.tool_result(
    { toolName: "write", toolCallId: "w", input: { path: file, content: "x = 1\n" }, content: [{ type: "text", text: "Successfully wrote" }], isError: false },
    ctx("s4"),
  );
  const end = { messages: [{ role: "assistant", content: [{ type: "text", text: "Done: the feature is implemented." }] }] };
  await handlers.agent_end(end, ctx("s4"));
  await handlers.session_shutdown({}, ctx("s4"));
  assert.equal(sent.length, 1);
  assert.match(sent[0], /Not done yet.*no test run is recorded/s);
  await handlers.agent_end(end, ctx("s4"));
  await handlers.session_shutdown({}, ctx("s4"));
  assert.equal(sent.length, 1);
});

test("without agentreflex every tool call is blocked with a clear reason; the rest goes on", async () => {
  const { handlers, sent, ctx } = await extension({ binary: join(world.root, "missing", "agentreflex"), host: "pi" });
  for (const toolName of ["bash", "read", "write", "my_custom_tool"]) {
    const out = await handlers.tool_call({ toolName, toolCallId: "c", input: { path: "/x" } }, ctx("s5"));
    assert.equal(out.block, true);
    assert.match(out.reason, /agentreflex could not check this call \(.*did not run.*\); failing closed/);
  }
  assert.equal(await handlers.before_agent_start({ prompt: "hi" }, ctx("s5")), undefined);
  await handlers.agent_end({ messages: [] }, ctx("s5"));
  await handlers.session_shutdown({}, ctx("s5"));
  assert.equal(sent.length, 0);
});

test("an omp install (host: omp in agentreflex.json) is protected the same way", async () => {
  const { handlers, ctx } = await extension(realRecord("omp"));
  const blocked = await handlers.tool_call({ toolName: "bash", toolCallId: "c", input: { command: "git push --force" } }, ctx("s6"));
  assert.equal(blocked.block, true);
});

/** A pi conversation: two turns, the same command run in each, its long output every time. */
function longConversation() {
  const output = Array.from({ length: 4000 }, (_, i) => `line ${i} of the test log`).join("\n");
  const run = (/** @type {string} */ id) => [
    { role: "assistant", content: [{ type: "toolCall", id, name: "bash", arguments: { command: "pytest -q" } }] },
    { role: "toolResult", toolCallId: id, toolName: "bash", content: [{ type: "text", text: output }], isError: false, timestamp: 1 },
  ];
  return [
    { role: "user", content: "run the tests" },
    ...run("t1"),
    { role: "assistant", content: [{ type: "text", text: "ran them" }] },
    { role: "user", content: "run them again" },
    ...run("t2"),
  ];
}

test("a long conversation is pruned through the context layer: an earlier turn's superseded output becomes a stub", async () => {
  const { handlers } = await extension();
  const messages = longConversation();
  const out = await handlers.context({ messages });
  assert.ok(out, "nothing was pruned");
  const text = (/** @type {any} */ m) => m.content?.[0]?.text ?? "";
  const [first, last] = out.messages.filter((/** @type {any} */ m) => m.role === "toolResult");
  assert.ok(text(first).length < 400, text(first));
  assert.match(text(first), /pytest -q/);
  assert.equal(text(last), text(messages[6]), "the last turn is never touched");
  assert.ok(JSON.stringify(out.messages).length < JSON.stringify(messages).length / 1.5);
});

test("a short conversation is left alone (no Python started), and pruning that fails keeps pi's list", async () => {
  const { handlers } = await extension();
  assert.equal(await handlers.context({ messages: [{ role: "user", content: "hi" }] }), undefined);
  const broken = await extension({ ...realRecord("pi"), binary: "/nonexistent/agentreflex" });
  assert.equal(await broken.handlers.context({ messages: longConversation() }), undefined);
});

test("pi runs one message's calls together after asking about each: a call beside an earlier one not run yet is refused", async () => {
  const { handlers, ctx } = await extension();
  const sid = "s_parallel";
  mkdirSync(join(world.project, "tests"), { recursive: true });
  writeFileSync(join(world.project, "tests", "fixtures.py"), "VALUE = 4\n");
  await handlers.before_agent_start({ prompt: "Fix the bug. Do not modify tests.", systemPrompt: "" }, ctx(sid));
  // pure reads beside each other are fine
  for (const id of ["r1", "r2"]) {
    const read = await handlers.tool_call({ toolName: "read", toolCallId: id, input: { path: "src/calc.py" } }, ctx(sid));
    assert.equal(read?.block, undefined);
  }
  // one assistant message, two calls: pi-agent-core's parallel mode asks about both, then runs both,
  // so the script the second runs is read before the first has written it
  const script = "sed -i s/4/0/ tests/fixtures.py\n";
  const write = { type: "tool_call", toolName: "write", toolCallId: "p1", input: { path: "fix.sh", content: script } };
  assert.equal((await handlers.tool_call(write, ctx(sid)))?.block, undefined);
  const run = { type: "tool_call", toolName: "bash", toolCallId: "p2", input: { command: "bash fix.sh" } };
  const beside = await handlers.tool_call(run, ctx(sid));
  assert.equal(beside?.block, true, "judged against a project the first call has not changed yet");
  assert.match(beside.reason, /not run yet/);
  // the first runs: the next message's call is judged against what it wrote
  writeFileSync(join(world.project, "fix.sh"), script);
  for (const id of ["r1", "r2", "p1"]) {
    await handlers.tool_result({ toolName: id === "p1" ? "write" : "read", toolCallId: id, input: {}, content: [], isError: false }, ctx(sid));
  }
  const next = await handlers.tool_call({ ...run, toolCallId: "p3", input: { command: "bash fix.sh" } }, ctx(sid));
  assert.equal(next?.block, true);
  assert.match(next.reason, /Do not modify tests/);
  // a call pi skipped has no result: the turn's end lets the next message's calls through
  await handlers.tool_call({ toolName: "bash", toolCallId: "p4", input: { command: "echo hi" } }, ctx(sid));
  await handlers.turn_end({ type: "turn_end" }, ctx(sid));
  assert.equal((await handlers.tool_call({ toolName: "bash", toolCallId: "p5", input: { command: "echo hi" } }, ctx(sid)))?.block, undefined);
});

test("calls of one message that only write files' content run together; one beside a pending bash waits", async () => {
  const { handlers, ctx } = await extension();
  const sid = "s_content";
  await handlers.before_agent_start({ prompt: "Tidy the docs.", systemPrompt: "" }, ctx(sid));
  const call = (/** @type {string} */ toolName, /** @type {string} */ toolCallId, /** @type {any} */ input) =>
    handlers.tool_call({ type: "tool_call", toolName, toolCallId, input }, ctx(sid));
  // two edits and a read beside them: no link made, nothing run, each judged the same either way
  assert.equal((await call("write", "c1", { path: "a.md", content: "a\n" }))?.block, undefined);
  assert.equal((await call("edit", "c2", { path: "b.md", oldText: "x", newText: "y" }))?.block, undefined);
  assert.equal((await call("read", "c3", { path: "c.md" }))?.block, undefined);
  // a bash beside them may run what they write: it waits
  assert.match((await call("bash", "c4", { command: "sh a.md" }))?.reason ?? "", /not run yet/);
  await handlers.turn_end({ type: "turn_end" }, ctx(sid));
  // and beside a bash not run yet (it may make a link), even a read or an edit waits
  assert.equal((await call("bash", "c5", { command: "ln -s ~ h" }))?.block, undefined);
  assert.match((await call("read", "c6", { path: "h/.bashrc" }))?.reason ?? "", /not run yet/);
  assert.match((await call("edit", "c7", { path: "h/x", oldText: "x", newText: "y" }))?.reason ?? "", /not run yet/);
});
