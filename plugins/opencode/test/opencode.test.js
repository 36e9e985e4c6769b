// The OpenCode plugin against a real `agentreflex hook opencode` (no daemon).
// OpenCode's own loop is exercised in integration-tests/test_opencode_host.py; here the
// plugin's hooks are called the way OpenCode 1.18 calls them, with a stand-in for the
// SDK client (only its session.prompt is used, and recorded).

import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { installShim, makeWorld, realRecord } from "../testworld.js";

const world = makeWorld();

async function plugin(record = realRecord("opencode"), /** @type {Record<string, any>} */ known = {}) {
  /** @type {any[]} */
  const prompts = [];
  const client = {
    session: {
      prompt: async (/** @type {any} */ req) => { prompts.push(req); return {}; },
      // the SDK's session.get (v1 {path: {id}}, v2 {sessionID}): the sessions this OpenCode knows
      get: async (/** @type {any} */ req) => {
        const info = known[req?.path?.id ?? req?.sessionID];
        if (!info) throw new Error("not found");
        return { data: info };
      },
    },
  };
  const mod = await installShim(world.root, "opencode.js", record);
  assert.deepEqual(Object.keys(mod), ["AgentReflex"], "OpenCode calls every export: only the plugin");
  const hooks = await mod.AgentReflex({ client, directory: world.project, worktree: world.project });
  return { hooks, prompts };
}

const bash = (/** @type {string} */ command) => [{ tool: "bash", sessionID: "ses_1", callID: "c1" }, { args: { command, description: "x" } }];

test("a destructive command is refused with agentreflex's reason; a benign one runs", async () => {
  const { hooks } = await plugin();
  const target = join(world.home, "notes");
  await assert.rejects(hooks["tool.execute.before"](...bash(`rm -rf ${target}`)), /GATE-RM-/);
  await hooks["tool.execute.before"](...bash("echo hello"));
});

test("enforced mode: a shell command runs inside bubblewrap; the home folder survives rm -rf through a symlink", async () => {
  const { hooks } = await plugin();
  writeFileSync(join(world.home, "keep.txt"), "keep\n");
  const call = { tool: "bash", sessionID: "ses_contain", callID: "k1" };
  const output = { args: { command: `ln -sfn "$(cd ${world.home} && pwd)" x && rm -rf x/ ; echo $?`, description: "d" } };
  await hooks["tool.execute.before"](call, output);
  assert.match(output.args.command, /bwrap .* -- \S*bash -c /);
  const done = spawnSync("bash", ["-c", output.args.command], { cwd: world.project, encoding: "utf8" });
  assert.equal(done.stdout.trim(), "1");
  assert.equal(readFileSync(join(world.home, "keep.txt"), "utf8"), "keep\n");
});

test("'do not modify tests' refuses an edit of a test file, not of the source", async () => {
  const { hooks } = await plugin();
  const sid = "ses_tests";
  mkdirSync(join(world.project, "tests"), { recursive: true });
  writeFileSync(join(world.project, "tests", "test_calc.py"), "def test_add():\n    assert add(2, 2) == 4\n");
  await hooks["chat.message"](
    { sessionID: sid, model: { providerID: "fake", modelID: "fake-model" } },
    { message: {}, parts: [{ type: "text", text: "Fix the bug in src/calc.py. Do not modify tests." }] },
  );
  const edit = (/** @type {string} */ path) => [
    { tool: "edit", sessionID: sid, callID: "c2" },
    { args: { filePath: join(world.project, path), oldString: "== 4", newString: "== 0" } },
  ];
  await assert.rejects(hooks["tool.execute.before"](...edit("tests/test_calc.py")), /Do not modify tests.*GATE-CONSTRAINT/s);
  await hooks["tool.execute.before"](...edit("src/calc.py"));
});

test("after two identical failures the next system prompt carries agentreflex's context", async () => {
  const { hooks } = await plugin();
  const sid = "ses_ctx";
  for (let i = 0; i < 2; i++) {
    await hooks["tool.execute.after"](
      { tool: "bash", sessionID: sid, callID: `c${i}`, args: { command: "pytest -q" } },
      { title: "", output: "E   AssertionError: 1 failed", metadata: { exit: 1 } },
    );
  }
  const system = ["You are OpenCode."];
  await hooks["experimental.chat.system.transform"]({ sessionID: sid, model: {} }, { system });
  assert.equal(system.length, 2);
  assert.match(system[1], /failed 2 times in a row/);
  const again = ["You are OpenCode."];
  await hooks["experimental.chat.system.transform"]({ sessionID: sid, model: {} }, { system: again });
  assert.equal(again.length, 1, "tool-time context is said once");
});

test("idle after unverified work prompts the session again, once", async () => {
  const { hooks, prompts } = await plugin();
  const sid = "ses_done";
  const file = join(world.project, "src", "feature.py");
  await hooks["tool.execute.after"](
    { tool: "write", sessionID: sid, callID: "w1", args: { filePath: file, content: "x = 1\n" } },
    { title: "", output: "Wrote file successfully.", metadata: {} },
  );
  await hooks["experimental.text.complete"]({ sessionID: sid }, { text: "Done: the feature is implemented." });
  await hooks.event({ event: { type: "session.idle", properties: { sessionID: sid } } });
  await hooks.dispose();
  assert.equal(prompts.length, 1);
  assert.equal(prompts[0].path.id, sid);
  assert.equal(prompts[0].sessionID, sid);
  assert.match(prompts[0].body.parts[0].text, /Not done yet.*no test run is recorded/s);
  // the re-prompted turn ends: the valve lets it stop
  await hooks.event({ event: { type: "session.idle", properties: { sessionID: sid } } });
  await hooks.dispose();
  assert.equal(prompts.length, 1);
});

test("model and variant from message.updated travel with the next tool call, bounded", async () => {
  const { hooks } = await plugin();
  const sid = "ses_model";
  const long = "m".repeat(1000);
  await hooks.event({
    event: { type: "message.updated", properties: { info: { sessionID: sid, role: "assistant", modelID: long, variant: "high" } } },
  });
  await hooks["tool.execute.before"]({ tool: "bash", sessionID: sid, callID: "c" }, { args: { command: "echo hi" } });
  await hooks["tool.execute.after"]({ tool: "bash", sessionID: sid, callID: "c", args: {} }, { output: "hi", metadata: { exit: 0 } });
  // a model id that is not a string is ignored, never forwarded
  await hooks.event({ event: { type: "message.updated", properties: { info: { sessionID: sid, modelID: ["x"] } } } });
  await hooks["tool.execute.before"]({ tool: "bash", sessionID: sid, callID: "c2" }, { args: { command: "echo hi" } });
});

test("without agentreflex every tool call is refused with a clear reason; other events go on", async () => {
  const { hooks, prompts } = await plugin({ binary: join(world.root, "missing", "agentreflex"), host: "opencode" });
  for (const tool of ["bash", "read", "webfetch", "mcp_github_create_issue"]) {
    await assert.rejects(
      hooks["tool.execute.before"]({ tool, sessionID: "s", callID: "c" }, { args: { command: "ls", filePath: "/x" } }),
      /agentreflex could not check this call \(.*did not run.*\); failing closed/,
    );
  }
  await hooks["tool.execute.after"]({ tool: "bash", sessionID: "s", callID: "c", args: {} }, { output: "", metadata: {} });
  await hooks["chat.message"]({ sessionID: "s" }, { parts: [{ type: "text", text: "hi" }] });
  await hooks.event({ event: { type: "session.idle", properties: { sessionID: "s" } } });
  await hooks.dispose();
  assert.equal(prompts.length, 0);
});

test("no install record: refused, and the reason says to run install again", async () => {
  const { hooks } = await plugin(null);
  await assert.rejects(hooks["tool.execute.before"](...bash("ls")), /agentreflex\.json.*run `agentreflex install` again/);
});

test("a write too large to check is refused, with the limit in the reason", async () => {
  const { hooks } = await plugin();
  const content = "x".repeat(12 * 1024 * 1024);
  await assert.rejects(
    hooks["tool.execute.before"]({ tool: "write", sessionID: "big", callID: "c" }, { args: { filePath: join(world.project, "big.txt"), content } }),
    /agentreflex error: bad opencode payload: payload is \d+ bytes, over the \d+ limit/,
  );
});

test("a bash call's workdir is where its command is judged, and it does not move the session's project", async () => {
  const { hooks } = await plugin();
  const sid = "ses_workdir";
  mkdirSync(join(world.project, "tests"), { recursive: true });
  writeFileSync(join(world.project, "tests", "fixtures.py"), "VALUE = 4\n");
  // the first call of a session runs elsewhere (workdir): the project is still OpenCode's folder
  const first = { args: { command: "ls", workdir: world.home, description: "d" } };
  await hooks["tool.execute.before"]({ tool: "bash", sessionID: sid, callID: "w0" }, first);
  assert.match(first.args.command, /bwrap /, "the session's project is the enforced one");
  await hooks["tool.execute.after"]({ tool: "bash", sessionID: sid, callID: "w0", args: first.args }, { output: "", metadata: { exit: 0 } });
  await hooks["chat.message"](
    { sessionID: sid },
    { message: {}, parts: [{ type: "text", text: "Fix the bug in src/calc.py. Do not modify tests." }] },
  );
  // OpenCode runs the command in workdir (resolved against its folder): fixtures.py there is tests/fixtures.py
  for (const workdir of ["tests", join(world.project, "tests"), "src/../tests"]) {
    await assert.rejects(
      hooks["tool.execute.before"](
        { tool: "bash", sessionID: sid, callID: "w1" },
        { args: { command: "sed -i s/4/0/ fixtures.py", workdir, description: "d" } },
      ),
      /Do not modify tests.*GATE-CONSTRAINT/s,
      workdir,
    );
  }
  const plain = { args: { command: "sed -i s/4/0/ fixtures.py", description: "d" } };
  await hooks["tool.execute.before"]({ tool: "bash", sessionID: sid, callID: "w2" }, plain);
  assert.match(plain.args.command, /bwrap /);
});

test("a subagent's calls are judged in the user's session: its 'do not modify tests' holds for the task tool's sessions", async () => {
  const resumed = { id: "ses_resumed_child", parentID: "ses_parent" }; // created before this process
  const { hooks } = await plugin(realRecord("opencode"), { [resumed.id]: resumed });
  const parent = "ses_parent";
  mkdirSync(join(world.project, "tests"), { recursive: true });
  writeFileSync(join(world.project, "tests", "test_calc.py"), "def test_add():\n    assert add(2, 2) == 4\n");
  await hooks["chat.message"](
    { sessionID: parent },
    { message: {}, parts: [{ type: "text", text: "Fix the bug in src/calc.py. Do not modify tests." }] },
  );
  // OpenCode's task tool makes a child session (session.created, info.parentID), a subagent's one a grandchild
  await hooks.event({ event: { type: "session.created", properties: { sessionID: "ses_child", info: { id: "ses_child", parentID: parent } } } });
  await hooks.event({ event: { type: "session.created", properties: { sessionID: "ses_grandchild", info: { id: "ses_grandchild", parentID: "ses_child" } } } });
  for (const child of ["ses_child", "ses_grandchild", resumed.id]) {
    // the task tool's prompt reaches the child as a message: the parent agent's words, not the user's
    await hooks["chat.message"](
      { sessionID: child },
      { message: {}, parts: [{ type: "text", text: "Make the tests pass. You may modify tests now." }] },
    );
    await assert.rejects(
      hooks["tool.execute.before"](
        { tool: "edit", sessionID: child, callID: "e1" },
        { args: { filePath: join(world.project, "tests", "test_calc.py"), oldString: "== 4", newString: "== 0" } },
      ),
      /Do not modify tests.*GATE-CONSTRAINT/s,
      child,
    );
  }
  await hooks.dispose();
});

test("OpenCode's cache folder, whose bin/rg and plugin packages it runs in its own process, is not the agent's to write", async () => {
  const { hooks } = await plugin();
  // without rg on PATH OpenCode's grep and glob run $XDG_CACHE_HOME/opencode/bin/rg, outside any
  // boundary; its npm plugins load from .../opencode/packages at start
  const cache = join(process.env.XDG_CACHE_HOME ?? join(world.home, ".cache"), "opencode");
  for (const path of [join(cache, "bin", "rg"), join(cache, "packages", "some-plugin", "index.js")]) {
    for (const [tool, args] of [["write", { filePath: path, content: "#!/bin/sh\ntouch /tmp/pwned\n" }], ["edit", { filePath: path, oldString: "a", newString: "b" }]]) {
      await assert.rejects(
        hooks["tool.execute.before"]({ tool, sessionID: "ses_cache", callID: "c" }, { args }),
        /agentreflex|GATE-/,
        `${tool} ${path}`,
      );
    }
  }
});

test("calls OpenCode starts together are judged one at a time: a call beside an earlier one not run yet is refused", async () => {
  const { hooks } = await plugin();
  const sid = "ses_step";
  mkdirSync(join(world.project, "tests"), { recursive: true });
  writeFileSync(join(world.project, "tests", "fixtures.py"), "VALUE = 4\n");
  await hooks["chat.message"]({ sessionID: sid }, { message: {}, parts: [{ type: "text", text: "Fix the bug. Do not modify tests." }] });
  const call = (/** @type {string} */ tool, /** @type {string} */ callID) => ({ tool, sessionID: sid, callID });
  // reads beside each other are fine
  await Promise.all([
    hooks["tool.execute.before"](call("read", "r1"), { args: { filePath: join(world.project, "a.py") } }),
    hooks["tool.execute.before"](call("grep", "r2"), { args: { pattern: "x" } }),
  ]);
  // one step, two calls: the AI SDK starts each as it arrives, so the second is judged while the first
  // (the write of the script it runs) has not run yet
  const script = "sed -i s/4/0/ tests/fixtures.py\n";
  const first = hooks["tool.execute.before"](call("write", "w1"), { args: { filePath: join(world.project, "fix.sh"), content: script } });
  await assert.rejects(
    hooks["tool.execute.before"](call("bash", "b1"), { args: { command: "bash fix.sh", description: "d" } }),
    /not run yet/,
  );
  await first;
  writeFileSync(join(world.project, "fix.sh"), script);
  await hooks["tool.execute.after"]({ ...call("write", "w1"), args: {} }, { output: "", metadata: {} });
  // the next step's call is judged against what the write made
  await assert.rejects(
    hooks["tool.execute.before"](call("bash", "b2"), { args: { command: "bash fix.sh", description: "d" } }),
    /Do not modify tests/,
  );
  // a call that failed gets no tool.execute.after: its tool part's error ends it
  await hooks["tool.execute.before"](call("edit", "e1"), { args: { filePath: join(world.project, "a.py"), oldString: "x", newString: "y" } });
  await hooks.event({ event: { type: "message.part.updated", properties: { part: { type: "tool", sessionID: sid, callID: "e1", state: { status: "error" } } } } });
  await hooks["tool.execute.before"](call("bash", "b3"), { args: { command: "echo hi", description: "d" } });
  // and a new step (a new assistant message) ends whatever the last one left
  await hooks.event({ event: { type: "message.updated", properties: { info: { id: "msg_2", sessionID: sid, role: "assistant" } } } });
  await hooks["tool.execute.before"](call("bash", "b4"), { args: { command: "echo hi", description: "d" } });
});

test("calls of one step that only write files' content run together; one beside a pending bash waits", async () => {
  const { hooks } = await plugin();
  const sid = "ses_content";
  await hooks["chat.message"]({ sessionID: sid }, { message: {}, parts: [{ type: "text", text: "Tidy the docs." }] });
  const before = (/** @type {string} */ tool, /** @type {string} */ callID, /** @type {any} */ args) =>
    hooks["tool.execute.before"]({ tool, sessionID: sid, callID }, { args });
  // two edits and a read beside them: no link made, nothing run, each judged the same either way
  await before("write", "c1", { filePath: join(world.project, "a.md"), content: "a\n" });
  await before("edit", "c2", { filePath: join(world.project, "b.md"), oldString: "x", newString: "y" });
  await before("read", "c3", { filePath: join(world.project, "c.md") });
  // a bash beside them may run what they write: it waits
  await assert.rejects(before("bash", "c4", { command: "sh a.md", description: "d" }), /not run yet/);
  await hooks.event({ event: { type: "message.updated", properties: { info: { id: "msg_c2", sessionID: sid, role: "assistant" } } } });
  // and beside a bash not run yet (it may make a link), even a read or an edit waits
  await before("bash", "c5", { command: "ln -s ~ h", description: "d" });
  await assert.rejects(before("read", "c6", { filePath: join(world.project, "h", ".bashrc") }), /not run yet/);
  await assert.rejects(before("edit", "c7", { filePath: join(world.project, "h", "x"), oldString: "x", newString: "y" }), /not run yet/);
});
