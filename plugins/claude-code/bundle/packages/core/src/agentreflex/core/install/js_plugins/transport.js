// agentreflex for JavaScript hosts (OpenCode, pi, oh-my-pi): how a shim reaches agentreflex.
//
// Each event goes to the warm daemon's Unix socket when one answers (no Python
// start-up per tool call), else to `agentreflex hook HOST EVENT` as a child process
// started from absolute paths written by `agentreflex install` (never a shell).  The
// request is the shim payload documented in agentreflex/core/hosts/jsshim.py; the
// answer is one JSON object: {}, {block, reason}, {context} and/or {command}
// (the shell command contained in agentreflex's bubblewrap boundary, issue #28).
//
// When agentreflex cannot be reached or answers nonsense, a proposed tool call is
// refused with a reason the model sees (a safety floor that cannot run must not let
// the tool through); every other event goes on without us.
//
// This file exports helpers, so OpenCode must never load it as a plugin itself: it
// lives beside the plugin's entry, not in a `plugins/` folder.

import { spawn } from "node:child_process";
import { readFileSync, lstatSync, statSync } from "node:fs";
import { createConnection } from "node:net";
import { dirname, join, isAbsolute } from "node:path";
import { fileURLToPath } from "node:url";

/** @typedef {{block?: boolean, reason?: string, context?: string, command?: string}} Reply */
/** @typedef {{binary: string, python?: string, host?: string}} Settings */
/**
 * Where this installation's daemon listens, its id, and which variables change a decision
 * (core/hook/client.py: ENV_PREFIXES, and policy_variables, the containment policy's
 * {env:NAME}, lowercased), as this installation's Python gave them: the one list, never a
 * copy here.  `policyFile`/`policyId`: the user's contain.toml it read, and its identity then.
 * @typedef {{socket: string, install: string, prefixes: string[], policy: string[],
 *   policyFile: string, policyId: string}} DaemonInfo
 */

export const MAGIC = "ARX2\0";
// one-byte daemon answers meaning "evaluate it yourself"
const EVALUATE_YOURSELF = 253;
const SOCKET_TIMEOUT_MS = 5000;
const HOOK_TIMEOUT_MS = 30000;
const PRUNE_TIMEOUT_MS = 10000;
const MAX_REPLY_BYTES = 1024 * 1024;

/**
 * The install record beside this file (agentreflex.json, written by `agentreflex install`).
 * Nothing else chooses what runs: no environment variable can point the shim elsewhere.
 * @param {string} folder
 * @returns {Settings | string} the settings, or why there are none
 */
export function readSettings(folder) {
  /** @type {any} */
  let data;
  try {
    data = JSON.parse(readFileSync(join(folder, "agentreflex.json"), "utf8"));
  } catch (err) {
    return `cannot read ${join(folder, "agentreflex.json")} (${errText(err)}); run \`agentreflex install\` again`;
  }
  const binary = data?.binary;
  if (typeof binary !== "string" || !isAbsolute(binary)) {
    return `agentreflex.json names no absolute agentreflex script (got ${JSON.stringify(binary)})`;
  }
  const python = typeof data?.python === "string" && isAbsolute(data.python) ? data.python : undefined;
  return { binary, python, host: typeof data?.host === "string" ? data.host : undefined };
}

/** @param {unknown} err */
function errText(err) {
  return err instanceof Error ? err.message : String(err);
}

/**
 * The request bytes of the daemon protocol (core/hook/client.py encode_request), with the
 * variables Python named (core/hook/client.py forwarded: a prefix, or a policy variable in
 * any case).
 * @param {Pick<DaemonInfo, "install" | "prefixes" | "policy">} info @param {string} host
 * @param {string} hint @param {Record<string, string | undefined>} env @param {Buffer} payload
 */
export function encodeRequest(info, host, hint, env, payload) {
  const parts = [Buffer.from(MAGIC), Buffer.from(info.install + "\0"), Buffer.from(host + "\0" + hint + "\0")];
  const policy = new Set(info.policy);
  for (const [key, value] of Object.entries(env)) {
    if (value === undefined || key.includes("\0") || value.includes("\0")) continue;
    if (!info.prefixes.some((p) => key.startsWith(p)) && !policy.has(key.toLowerCase())) continue;
    parts.push(Buffer.from(`${key}=${value}\0`));
  }
  parts.push(Buffer.from("\0"), payload);
  return Buffer.concat(parts);
}

/**
 * True when `folder` is a real directory of ours that nobody else may enter: then
 * nobody else can have put the socket there (core/hook/client.py private_dir_fd).
 * @param {string} folder
 */
export function privateDir(folder) {
  try {
    const st = lstatSync(folder);
    const uid = typeof process.getuid === "function" ? process.getuid() : -1;
    return st.isDirectory() && !st.isSymbolicLink() && st.uid === uid && (st.mode & 0o777) === 0o700;
  } catch {
    return false;
  }
}

/**
 * The identity of the socket file at `path` ("device:inode:ctime"), or "" when there is none.
 * @param {string} path
 */
export function socketId(path) {
  try {
    const st = statSync(path, { bigint: true });
    return `${st.dev}:${st.ino}:${st.ctimeNs}`; // a file on a freed inode is new: its ctime
  } catch {
    return "";
  }
}

/**
 * The daemon's answer as [exitCode, stdout], or null ("evaluate it yourself").
 * With `trusted` (a socket file's identity this installation's Python checked:
 * core/hook/client.py verified_socket), the connection is used only if the socket
 * file is still that one once connected.
 * @param {DaemonInfo} info @param {string} host @param {string} hint @param {Buffer} payload
 * @param {string} [trusted]
 * @returns {Promise<[number, string] | null>}
 */
export function askDaemon(info, host, hint, payload, trusted) {
  if (!privateDir(dirname(info.socket))) return Promise.resolve(null);
  return new Promise((resolve) => {
    /** @type {Buffer[]} */
    const chunks = [];
    let size = 0;
    let settled = false;
    /** @param {[number, string] | null} value */
    const done = (value) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      sock.destroy();
      resolve(value);
    };
    const sock = createConnection(info.socket);
    const timer = setTimeout(() => done(null), SOCKET_TIMEOUT_MS);
    sock.on("error", () => done(null));
    sock.on("connect", () => {
      if (trusted !== undefined && socketId(info.socket) !== trusted) return done(null);
      sock.end(encodeRequest(info, host, hint, process.env, payload));
    });
    sock.on("data", (chunk) => {
      size += chunk.length;
      if (size > MAX_REPLY_BYTES) return done(null);
      chunks.push(chunk);
    });
    sock.on("end", () => {
      const data = Buffer.concat(chunks);
      if (data.length === 0 || (data.length === 1 && data[0] >= EVALUATE_YOURSELF)) return done(null);
      const end = data.indexOf(0, 1);
      done([data[0], data.subarray(1, end === -1 ? data.length : end).toString("utf8")]);
    });
  });
}

/**
 * Run `argv` (absolute paths, no shell) with `input` on stdin.
 * @param {string[]} argv @param {Buffer | string} input @param {number} timeoutMs
 * @returns {Promise<{code: number | null, stdout: string, stderr: string, error?: string}>}
 */
export function run(argv, input, timeoutMs = HOOK_TIMEOUT_MS) {
  return new Promise((resolve) => {
    /** @type {Buffer[]} */ const out = [];
    /** @type {Buffer[]} */ const err = [];
    let settled = false;
    /** @param {{code: number | null, stdout: string, stderr: string, error?: string}} value */
    const done = (value) => {
      if (!settled) { settled = true; clearTimeout(timer); resolve(value); }
    };
    let child;
    try {
      child = spawn(argv[0], argv.slice(1), { stdio: ["pipe", "pipe", "pipe"], shell: false });
    } catch (e) {
      return done({ code: null, stdout: "", stderr: "", error: errText(e) });
    }
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      done({ code: null, stdout: "", stderr: "", error: `no answer within ${timeoutMs / 1000} s` });
    }, timeoutMs);
    child.on("error", (e) => done({ code: null, stdout: "", stderr: "", error: errText(e) }));
    child.stdout.on("data", (c) => out.push(c));
    child.stderr.on("data", (c) => err.push(c));
    child.on("close", (code) =>
      done({ code, stdout: Buffer.concat(out).toString("utf8"), stderr: Buffer.concat(err).toString("utf8") }));
    child.stdin.on("error", () => {}); // a child that exits early: its answer still counts
    child.stdin.end(input);
  });
}

/**
 * Read the hook's one JSON object; null when it is not one (empty output included).
 * @param {string} text @returns {Reply | null}
 */
export function parseReply(text) {
  try {
    const value = JSON.parse(text); // nothing at all is no answer: the hook always prints an object
    if (value === null || typeof value !== "object" || Array.isArray(value)) return null;
    /** @type {Reply} */
    const reply = {};
    if (value.block === true) {
      reply.block = true;
      reply.reason = typeof value.reason === "string" && value.reason.trim() ? value.reason : "blocked by agentreflex";
    }
    if (typeof value.context === "string" && value.context) reply.context = value.context;
    if (typeof value.command === "string" && value.command) reply.command = value.command;
    return reply;
  } catch {
    return null;
  }
}

/**
 * The shim's link to agentreflex for one host.
 * @param {string | undefined} chosen "opencode", "pi" or "omp"; undefined: agentreflex.json's
 *   `host` (pi and omp share one extension), else "pi"
 * @param {string} moduleUrl the shim's import.meta.url (agentreflex.json sits beside it)
 */
export function createClient(chosen, moduleUrl) {
  const folder = dirname(fileURLToPath(moduleUrl));
  const settings = readSettings(folder);
  const host = chosen ?? (typeof settings === "object" && settings.host === "omp" ? "omp" : "pi");
  /** @type {Promise<DaemonInfo | null> | null} */
  let daemon = null;

  /**
   * Where this installation's daemon listens (asked from Python, which knows its id), and
   * asked again when the user's contain.toml changed: its {env:NAME} are forwarded too.
   * @returns {Promise<DaemonInfo | null>}
   */
  async function daemonInfo() {
    if (typeof settings === "string" || !settings.python) return null;
    if ((process.env.AGENTREFLEX_DAEMON || "").toLowerCase() === "off") return null;
    if (daemon) {
      const known = await daemon;
      if (!known || socketId(known.policyFile) === known.policyId) return known;
    }
    daemon = loadDaemonInfo(settings.python);
    return daemon;
  }

  // The socket file this installation's Python found its own daemon listening on, and
  // the last one it did not: a socket file belongs to one listener for good (a new
  // daemon binds a new file), so neither is asked about again on every event.
  let trusted = "";
  let refused = "";

  /**
   * Whether the daemon's socket is one this installation's Python checked: Node cannot
   * read a socket's peer, and an agent runs as this user, so a server it started where
   * the daemon listens would receive every event (issue #28).  Checked once per
   * socket file (a server put in its place is a new file).
   * @param {DaemonInfo} info
   */
  async function daemonTrusted(info) {
    const id = socketId(info.socket);
    if (!id || id === refused || typeof settings === "string" || !settings.python) return false;
    if (id !== trusted) {
      if ((await daemonCheck.verify(settings.python, info.socket)) === id) trusted = id;
      else refused = id;
    }
    return id === trusted;
  }

  /**
   * Send one event; the reply, or for a tool call a refusal saying why agentreflex was not reached.
   * @param {string} event the host callback name (hook_event_name)
   * @param {Record<string, unknown>} fields the rest of the shim payload
   * @param {boolean} failClosed true before a tool runs
   * @returns {Promise<Reply>}
   */
  async function send(event, fields, failClosed) {
    const refuse = (/** @type {string} */ why) =>
      failClosed
        ? { block: true, reason: `agentreflex could not check this call (${why}); failing closed. Ask the user to run \`agentreflex doctor\`.` }
        : {};
    if (typeof settings === "string") return refuse(settings);
    let payload;
    try {
      payload = Buffer.from(JSON.stringify({ ...fields, hook_event_name: event }), "utf8");
    } catch (err) {
      return refuse(`the event could not be encoded: ${errText(err)}`);
    }
    const info = await daemonInfo();
    const warm = info && (await daemonTrusted(info)) ? await askDaemon(info, host, event, payload, trusted) : null;
    if (warm && warm[0] === 0) {
      const reply = parseReply(warm[1]);
      if (reply) return reply;
    }
    const argv = settings.python
      ? [settings.python, ...ISOLATED, settings.binary, "hook", host, event]
      : [settings.binary, "hook", host, event];
    const done = await run(argv, payload);
    if (done.error) return refuse(`${settings.binary} did not run: ${done.error}`);
    const reply = done.code === 0 ? parseReply(done.stdout) : null;
    if (reply === null) {
      const said = (done.stderr || done.stdout).trim().split("\n").pop()?.slice(0, 300) ?? "";
      return refuse(`\`agentreflex hook ${host}\` exited ${done.code} without an answer${said ? ": " + said : ""}`);
    }
    return reply;
  }

  /**
   * The conversation with superseded tool outputs stubbed (`agentreflex context prune`,
   * the context layer's pruning), or null when nothing changed or it could not run.
   * Pruning is a convenience: any failure keeps the host's own list.
   * @param {unknown[]} messages the host's message list (pi's `context` event)
   * @returns {Promise<unknown[] | null>}
   */
  async function prune(messages) {
    if (typeof settings === "string") return null;
    const argv = settings.python
      ? [settings.python, ...ISOLATED, settings.binary, "context", "prune"]
      : [settings.binary, "context", "prune"];
    let input;
    try {
      input = JSON.stringify({ messages });
    } catch {
      return null;
    }
    const done = await run(argv, input, PRUNE_TIMEOUT_MS);
    if (done.error || done.code !== 0) return null;
    try {
      const value = JSON.parse(done.stdout);
      return Array.isArray(value?.messages) ? value.messages : null;
    } catch {
      return null;
    }
  }

  return { send, prune, settings, host };
}

// Printed by this installation's Python: its daemon socket and installation id.
/**
 * The flags this installation's Python always gets (core/util/ownpython.py ISOLATED, and a
 * test keeps the two equal): `-E` ignores PYTHONPATH and every other PYTHON* variable of
 * the host's environment, `-P` keeps the working directory (the project) off sys.path,
 * so nothing a contained command wrote into the project runs here.
 */
export const ISOLATED = ["-E", "-P"];

// (the user's contain.toml's identity is taken before it is read: a change after that is
// seen at the next event)
const DAEMON_INFO =
  "import json,os,sys\n" +
  "from agentreflex.core.hook import client as c\n" +
  "i, f = c.installation_id(), c.user_policy_file(os.environ)\n" +
  "try:\n st = os.stat(f); s = f'{st.st_dev}:{st.st_ino}:{st.st_ctime_ns}'\n" +
  "except OSError:\n s = ''\n" +
  "sys.stdout.write(json.dumps({'socket': c.socket_path(i), 'install': i,\n" +
  " 'prefixes': list(c.ENV_PREFIXES), 'policy': sorted(c.policy_variables(os.environ)),\n" +
  " 'policyFile': f, 'policyId': s}))\n";

/** @param {unknown} value */
const strings = (value) => Array.isArray(value) && value.every((v) => typeof v === "string");

/**
 * This installation's daemon socket, its id and the variables to forward, from its Python.
 * @param {string} python @returns {Promise<DaemonInfo | null>}
 */
export async function loadDaemonInfo(python) {
  const r = await run([python, ...ISOLATED, "-c", DAEMON_INFO], "", SOCKET_TIMEOUT_MS);
  try {
    const v = JSON.parse(r.stdout);
    const text = ["socket", "install", "policyFile", "policyId"].every((k) => typeof v?.[k] === "string");
    return text && strings(v.prefixes) && strings(v.policy) ? v : null;
  } catch {
    return null;
  }
}

/**
 * How a shim checks the daemon's socket before sending it anything: this installation's
 * Python connects, reads the listener's credentials and its /proc entry
 * (core/hook/client.py verified_socket) and gives the socket file's identity, or
 * nothing.  An object, so that the wire-format tests can stand a recording server in
 * for the daemon (code in the host's own process is the only thing that can change it).
 */
export const daemonCheck = {
  /** @param {string} python @param {string} socket @returns {Promise<string>} the identity, or "" */
  async verify(python, socket) {
    const done = await run([python, ...ISOLATED, "-c", DAEMON_CHECK, socket], "", SOCKET_TIMEOUT_MS);
    try {
      const found = JSON.parse(done.stdout);
      return Array.isArray(found) ? found.join(":") : "";
    } catch {
      return "";
    }
  },
};

// Printed by this installation's Python: the socket file's identity when its own
// daemon listens there, else null.
const DAEMON_CHECK =
  "import json,sys\n" +
  "from agentreflex.core.hook.client import verified_socket\n" +
  "found = verified_socket(sys.argv[1])\n" +
  "sys.stdout.write(json.dumps(found and [str(n) for n in found]))\n";

/**
 * A bounded map: the oldest entry goes when it is full (per-session caches).
 * @template V
 */
export class BoundedMap extends Map {
  /** @param {number} limit */
  constructor(limit) {
    super();
    this.limit = limit;
  }
  /** @param {string} key @param {V} value */
  set(key, value) {
    if (!this.has(key) && this.size >= this.limit) {
      const oldest = this.keys().next().value;
      if (oldest !== undefined) this.delete(oldest);
    }
    return super.set(key, value);
  }
}

/**
 * A string cut to `limit` characters, or undefined when it is not a non-empty string.
 * @param {unknown} value @param {number} limit
 */
export function bounded(value, limit) {
  return typeof value === "string" && value ? value.slice(0, limit) : undefined;
}
