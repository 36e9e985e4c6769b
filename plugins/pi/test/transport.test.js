// How a shim reaches agentreflex: the warm daemon's socket (the real protocol, checked
// against a recording server and against the real `agentreflex serve`), the subprocess,
// and what it does when neither gives an answer.

import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { after, test } from "node:test";
import { installShim, installShimChecking, installShimTrustingSockets, makeWorld, realRecord } from "../../opencode/testworld.js";
import { encodeRequest, parseReply, privateDir, BoundedMap, bounded } from "../src/transport.js";

const world = makeWorld();
const runDir = join(world.root, "run");
mkdirSync(runDir, { mode: 0o700 });
chmodSync(runDir, 0o700);

/** A server on `path` that records each request and answers `answer`. */
function recordingDaemon(path, answer) {
  /** @type {Buffer[]} */
  const seen = [];
  const server = createServer((conn) => {
    /** @type {Buffer[]} */
    const chunks = [];
    conn.on("data", (c) => chunks.push(c));
    conn.on("error", () => {}); // a client that hangs up unanswered (the Python hook: not our daemon)
    conn.on("end", () => {
      seen.push(Buffer.concat(chunks));
      conn.end(answer);
    });
  });
  return new Promise((resolve) => server.listen(path, () => resolve({ server, seen })));
}

/** Split a request the way core/hook/daemon.py parse_request does. */
function parseRequest(/** @type {Buffer} */ data) {
  assert.equal(data.subarray(0, 5).toString(), "ARX2\0");
  let rest = data.subarray(5);
  const take = () => { const i = rest.indexOf(0); const v = rest.subarray(0, i).toString(); rest = rest.subarray(i + 1); return v; };
  const install = take(), host = take(), hint = take();
  /** @type {Record<string, string>} */
  const env = {};
  for (let item = take(); item !== ""; item = take()) {
    const eq = item.indexOf("=");
    env[item.slice(0, eq)] = item.slice(eq + 1);
  }
  return { install, host, hint, env, payload: JSON.parse(rest.toString()) };
}

function withDaemonEnv(/** @type {string} */ socket) {
  process.env.AGENTREFLEX_DAEMON = "on";
  process.env.AGENTREFLEX_SOCKET = socket;
}

after(() => {
  process.env.AGENTREFLEX_DAEMON = "off";
  delete process.env.AGENTREFLEX_SOCKET;
});

test("the socket request is the daemon's wire format, with the OpenCode payload and model keys", async () => {
  const socket = join(runDir, "rec.sock");
  const { server, seen } = await recordingDaemon(socket, Buffer.from('\x00{"block": true, "reason": "from the socket"}\x00'));
  withDaemonEnv(socket);
  try {
    // the script is missing: only the socket can answer
    const mod = await installShimTrustingSockets(world.root, "opencode.js", { ...realRecord("opencode"), binary: join(world.root, "nope") });
    const hooks = await mod.AgentReflex({ client: {}, directory: world.project });
    await hooks.event({ event: { type: "message.updated", properties: { info: { sessionID: "s", modelID: "gpt-9", variant: "x".repeat(500) } } } });
    await assert.rejects(
      hooks["tool.execute.before"]({ tool: "bash", sessionID: "s", callID: "c" }, { args: { command: "ls" } }),
      /from the socket/,
    );
    assert.equal(seen.length, 1);
    const req = parseRequest(seen[0]);
    assert.equal(req.host, "opencode");
    assert.equal(req.hint, "tool.execute.before");
    assert.ok(req.install.includes("\n"), "the whole installation id, from Python");
    assert.equal(req.env.AGENTREFLEX_SOCKET, socket);
    assert.equal(req.env.PATH, process.env.PATH, "the PATH the looks read travels (red-team rt33)");
    assert.equal(req.env.LANG, undefined, "only decision-relevant variables travel");
    assert.deepEqual(req.payload, {
      session_id: "s", cwd: world.project, tool: "bash", call_id: "c", args: { command: "ls" },
      model_id: "gpt-9", model_variant: "x".repeat(128), hook_event_name: "tool.execute.before",
    });
  } finally {
    server.close();
  }
});

test("a variable the user's contain.toml names travels, from the event after the file changed (red-team rt84)", async () => {
  const socket = join(runDir, "policy.sock");
  const { server, seen } = await recordingDaemon(socket, Buffer.from('\x00{}\x00'));
  withDaemonEnv(socket);
  const config = mkdtempSync(join(world.root, "cfg-"));
  const saved = process.env.XDG_CONFIG_HOME;
  process.env.XDG_CONFIG_HOME = config;
  process.env.MY_TOOL_HOME = "/tmp/tool";
  process.env.Npm_Config_Cache = "/tmp/npm";
  try {
    const mod = await installShimTrustingSockets(world.root, "pi.js", realRecord("pi"));
    /** @type {Record<string, Function>} */
    const handlers = {};
    mod.default({ on: (/** @type {string} */ n, /** @type {Function} */ f) => { handlers[n] = f; } });
    const event = async (/** @type {string} */ id) =>
      handlers.tool_call({ toolName: "bash", toolCallId: id, input: { command: `ls ${id}` } }, { cwd: world.project });
    await event("c1");
    await handlers.turn_end({}, {}); // the first has run: the next is asked on its own
    mkdirSync(join(config, "agentreflex"));
    writeFileSync(join(config, "agentreflex", "contain.toml"), 'read_only = ["{env:my_tool_home}/*"]\n');
    await event("c2");
    const [before, later] = seen.filter((r) => r.length > 0).map((r) => parseRequest(r).env);
    assert.equal(before.Npm_Config_Cache, "/tmp/npm", "the built-in policy's, in any case");
    assert.equal(before.MY_TOOL_HOME, undefined);
    assert.equal(later.MY_TOOL_HOME, "/tmp/tool", "the user's own, once the file names it");
  } finally {
    server.close();
    if (saved === undefined) delete process.env.XDG_CONFIG_HOME;
    else process.env.XDG_CONFIG_HOME = saved;
    delete process.env.MY_TOOL_HOME;
    delete process.env.Npm_Config_Cache;
  }
});

test("'evaluate it yourself' from the daemon falls back to the subprocess", async () => {
  const socket = join(runDir, "busy.sock");
  const { server, seen } = await recordingDaemon(socket, Buffer.from([253]));
  withDaemonEnv(socket);
  try {
    const mod = await installShimTrustingSockets(world.root, "pi.js", realRecord("pi"));
    /** @type {Record<string, Function>} */
    const handlers = {};
    mod.default({ on: (/** @type {string} */ n, /** @type {Function} */ f) => { handlers[n] = f; } });
    const out = await handlers.tool_call({ toolName: "bash", toolCallId: "c", input: { command: "git reset --hard" } }, { cwd: world.project });
    // the shim asked; the `agentreflex hook` it started saw that this server is not the
    // installation's daemon (its /proc entry: core/hook/client.py runs_our_daemon), sent it
    // nothing and evaluated itself
    assert.equal(seen.filter((r) => r.length > 0).length, 1);
    assert.match(out.reason, /GATE-/);
  } finally {
    server.close();
  }
});

test("a server that is not the installation's daemon gets nothing from the shim (issue #28)", async () => {
  // an agent runs as this user: a server it starts where the daemon listens would
  // otherwise receive every event, with the forwarded keys, and answer "allow"
  const socket = join(runDir, "look-alike.sock");
  const { server, seen } = await recordingDaemon(socket, Buffer.from('\x00{}\x00'));
  withDaemonEnv(socket);
  try {
    const mod = await installShim(world.root, "pi.js", realRecord("pi"));
    /** @type {Record<string, Function>} */
    const handlers = {};
    mod.default({ on: (/** @type {string} */ n, /** @type {Function} */ f) => { handlers[n] = f; } });
    const out = await handlers.tool_call({ toolName: "bash", toolCallId: "c", input: { command: "git reset --hard" } }, { cwd: world.project });
    assert.match(out.reason, /GATE-GIT-RESET-HARD/, "decided by agentreflex itself, not by the look-alike's {}");
    assert.deepEqual(seen.filter((r) => r.length > 0), [], "not a byte of an event reached it");
  } finally {
    server.close();
  }
});

test("a socket file the check refused is not checked again on every event", async () => {
  // a stale or foreign socket stays the same file: one Python run for it, not one per event
  const socket = join(runDir, "refused.sock");
  const { server, seen } = await recordingDaemon(socket, Buffer.from('\x00{}\x00'));
  withDaemonEnv(socket);
  try {
    let checks = 0;
    const mod = await installShimChecking(world.root, "pi.js", realRecord("pi"), () => { checks += 1; return ""; });
    /** @type {Record<string, Function>} */
    const handlers = {};
    mod.default({ on: (/** @type {string} */ n, /** @type {Function} */ f) => { handlers[n] = f; } });
    for (const id of ["c1", "c2"]) {
      const out = await handlers.tool_call({ toolName: "bash", toolCallId: id, input: { command: "git reset --hard" } }, { cwd: world.project });
      assert.match(out.reason, /GATE-GIT-RESET-HARD/);
    }
    assert.equal(checks, 1);
    assert.deepEqual(seen.filter((r) => r.length > 0), []);
  } finally {
    server.close();
  }
});

test("the real warm daemon answers the shim", async () => {
  const socket = join(runDir, "real.sock");
  withDaemonEnv(socket);
  const record = realRecord("pi");
  const daemon = spawn(record.python, [record.binary, "serve"], { stdio: "ignore", env: process.env });
  try {
    for (let i = 0; i < 200 && !existsSync(socket); i++) await new Promise((r) => setTimeout(r, 50));
    assert.ok(existsSync(socket), "the daemon started");
    // the script is missing: the answer can only come from the daemon
    const mod = await installShim(world.root, "pi.js", { ...record, binary: join(world.root, "nope") });
    /** @type {Record<string, Function>} */
    const handlers = {};
    mod.default({ on: (/** @type {string} */ n, /** @type {Function} */ f) => { handlers[n] = f; } });
    const out = await handlers.tool_call({ toolName: "bash", toolCallId: "c", input: { command: "git push --force" } }, { cwd: world.project });
    assert.equal(out.block, true);
    assert.match(out.reason, /GATE-/);
  } finally {
    daemon.kill("SIGTERM");
  }
});

test("a socket directory others may enter is not trusted", () => {
  const open = mkdtempSync(join(world.root, "open-"));
  chmodSync(open, 0o755);
  assert.equal(privateDir(open), false);
  assert.equal(privateDir(runDir), true);
  assert.equal(privateDir(join(world.root, "absent")), false);
});

test("replies: only a JSON object counts; a block always has a reason", () => {
  assert.deepEqual(parseReply("{}"), {});
  assert.deepEqual(parseReply('{"block": true}'), { block: true, reason: "blocked by agentreflex" });
  assert.deepEqual(parseReply('{"block": "yes", "context": "c"}'), { context: "c" });
  for (const bad of ["", "  \n", "[]", "null", "42", "{not json", '"text"']) assert.equal(parseReply(bad), null, bad);
});

test("requests carry the variables Python named and skip those with NUL bytes; caches stay bounded", () => {
  const info = { install: "id", prefixes: ["HOME", "AGENTREFLEX_"], policy: ["npm_config_cache"] };
  const env = { HOME: "/h", AGENTREFLEX_X: "a\0b", OTHER: "o", Npm_Config_Cache: "/n", npm_config_cachex: "/x" };
  const req = encodeRequest(info, "pi", "tool_call", env, Buffer.from("{}"));
  // a policy variable in any case (npm reads them so), nothing else it begins
  assert.equal(req.toString(), "ARX2\0id\0pi\0tool_call\0HOME=/h\0Npm_Config_Cache=/n\0\0{}");
  const map = new BoundedMap(2);
  map.set("a", 1); map.set("b", 2); map.set("c", 3);
  assert.deepEqual([...map.keys()], ["b", "c"]);
  assert.equal(bounded("x".repeat(300), 128)?.length, 128);
  assert.equal(bounded(5, 128), undefined);
});

test("a recorded script that is gone: Python cannot open it, and the call is refused", async () => {
  const mod = await installShim(world.root, "pi.js", { ...realRecord("pi"), binary: join(world.root, "gone", "agentreflex") });
  /** @type {Record<string, Function>} */
  const handlers = {};
  mod.default({ on: (/** @type {string} */ n, /** @type {Function} */ f) => { handlers[n] = f; } });
  const out = await handlers.tool_call({ toolName: "bash", toolCallId: "c", input: { command: "ls" } }, { cwd: world.project });
  assert.equal(out.block, true);
  assert.match(out.reason, /exited 2 without an answer: .*can't open file/);
});

test("an agentreflex that answers nonsense fails the tool call closed", async () => {
  const script = join(world.root, "bad-agentreflex");
  const { writeFileSync } = await import("node:fs");
  writeFileSync(script, "#!/bin/sh\necho 'Traceback: boom' >&2\necho '[1,2]'\nexit 3\n", { mode: 0o755 });
  const mod = await installShim(world.root, "pi.js", { binary: script, host: "pi" });
  /** @type {Record<string, Function>} */
  const handlers = {};
  mod.default({ on: (/** @type {string} */ n, /** @type {Function} */ f) => { handlers[n] = f; } });
  const out = await handlers.tool_call({ toolName: "bash", toolCallId: "c", input: { command: "ls" } }, { cwd: world.project });
  assert.equal(out.block, true);
  assert.match(out.reason, /exited 3 without an answer: Traceback: boom/);
});

test("prompt-time context: pi gets it as the extension's message, OpenCode in every system prompt of the turn", async () => {
  const socket = join(runDir, "ctx.sock");
  const { server } = await recordingDaemon(socket, Buffer.from('\x00{"context": "the user said: do not modify tests"}\x00'));
  withDaemonEnv(socket);
  try {
    const piMod = await installShimTrustingSockets(world.root, "pi.js", realRecord("pi"));
    /** @type {Record<string, Function>} */
    const handlers = {};
    piMod.default({ on: (/** @type {string} */ n, /** @type {Function} */ f) => { handlers[n] = f; } });
    const started = await handlers.before_agent_start({ prompt: "Do not modify tests." }, { cwd: world.project });
    assert.deepEqual(started, {
      message: { customType: "agentreflex", content: "the user said: do not modify tests", display: false },
    });
    const ocMod = await installShimTrustingSockets(world.root, "opencode.js", realRecord("opencode"));
    const hooks = await ocMod.AgentReflex({ client: {}, directory: world.project });
    await hooks["chat.message"]({ sessionID: "t" }, { parts: [{ type: "text", text: "Do not modify tests." }] });
    for (let i = 0; i < 2; i++) {
      const system = ["base"];
      await hooks["experimental.chat.system.transform"]({ sessionID: "t" }, { system });
      assert.deepEqual(system, ["base", "agentreflex:\nthe user said: do not modify tests"]);
    }
  } finally {
    server.close();
  }
});

test("the shims' own follow-up is not sent back to agentreflex as the user's words", async () => {
  const socket = join(runDir, "own.sock");
  const nudge = "Not done yet: run the tests";
  const { server, seen } = await recordingDaemon(socket, Buffer.from(`\x00{"block": true, "reason": "${nudge}"}\x00`));
  withDaemonEnv(socket);
  const hints = () => seen.map((req) => parseRequest(req).hint);
  try {
    // OpenCode: the re-prompt comes back through chat.message, as the real host does
    const ocMod = await installShimTrustingSockets(world.root, "opencode.js", realRecord("opencode"));
    /** @type {any} */
    let hooks;
    const client = { session: { prompt: async (/** @type {any} */ req) => hooks["chat.message"]({ sessionID: req.sessionID }, { parts: req.parts }) } };
    hooks = await ocMod.AgentReflex({ client, directory: world.project });
    await hooks.event({ event: { type: "session.idle", properties: { sessionID: "o" } } });
    await hooks.dispose();
    assert.deepEqual(hints(), ["session.idle"]);
    await hooks["chat.message"]({ sessionID: "o" }, { parts: [{ type: "text", text: nudge }] });
    assert.deepEqual(hints(), ["session.idle", "chat.message"], "the same words from the user do count");
    // pi: the follow-up comes back through before_agent_start
    seen.length = 0;
    const piMod = await installShimTrustingSockets(world.root, "pi.js", realRecord("pi"));
    /** @type {Record<string, Function>} */
    const handlers = {};
    piMod.default({
      on: (/** @type {string} */ n, /** @type {Function} */ f) => { handlers[n] = f; },
      sendUserMessage: async (/** @type {string} */ text) => handlers.before_agent_start({ prompt: text }, { cwd: world.project }),
    });
    await handlers.agent_end({ messages: [] }, { cwd: world.project });
    await handlers.session_shutdown({});
    assert.deepEqual(hints(), ["agent_end"]);
  } finally {
    server.close();
  }
});
