// A test world for the shims: a real agentreflex (this repository's .venv, or
// AGENTREFLEX_TEST_BIN), an isolated home and state folder, an enforced project, and
// the shim copied into a folder with its agentreflex.json the way `agentreflex install`
// lays it out.  Shared by plugins/opencode/test and plugins/pi/test.

import { copyFileSync, mkdirSync, mkdtempSync, writeFileSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
export const REPO = resolve(here, "..", "..");
export const SHIMS = join(REPO, "plugins", "opencode", "src");
export const BINARY = process.env.AGENTREFLEX_TEST_BIN || join(REPO, ".venv", "bin", "agentreflex");
export const PYTHON = join(dirname(BINARY), "python");

/** An isolated world; sets process.env so every hook the shim starts lives in it. */
export function makeWorld() {
  if (!existsSync(BINARY)) throw new Error(`no agentreflex at ${BINARY}: run \`uv sync\` (or set AGENTREFLEX_TEST_BIN)`);
  const root = mkdtempSync(join(tmpdir(), "arx-shim-"));
  const home = join(root, "home");
  const project = join(root, "project");
  mkdirSync(join(project, ".agentreflex"), { recursive: true });
  mkdirSync(home, { recursive: true });
  writeFileSync(join(project, ".agentreflex", "config.toml"), 'mode = "enforced"\n');
  Object.assign(process.env, {
    HOME: home,
    XDG_CONFIG_HOME: join(home, ".config"),
    XDG_CACHE_HOME: join(home, ".cache"),
    XDG_STATE_HOME: join(home, ".state"),
    AGENTREFLEX_STATE_DIR: join(root, "state"),
    AGENTREFLEX_DAEMON: "off",
  });
  delete process.env.AGENTREFLEX_BIN;
  delete process.env.AGENTREFLEX_SOCKET;
  return { root, home, project };
}

/**
 * The shim installed in a fresh folder; returns its module.
 * @param {string} root @param {"opencode.js" | "pi.js"} shim
 * @param {Record<string, unknown> | null} record agentreflex.json (null: none)
 */
export async function installShim(root, shim, record) {
  return (await installed(root, shim, record)).mod;
}

/** @param {string} root @param {string} shim @param {object} [record] */
async function installed(root, shim, record) {
  const folder = mkdtempSync(join(root, "pkg-"));
  copyFileSync(join(SHIMS, shim), join(folder, "index.js"));
  copyFileSync(join(SHIMS, "transport.js"), join(folder, "transport.js"));
  writeFileSync(join(folder, "package.json"), JSON.stringify({ type: "module" }));
  if (record) writeFileSync(join(folder, "agentreflex.json"), JSON.stringify(record));
  return { folder, mod: await import(pathToFileURL(join(folder, "index.js")).href) };
}

/**
 * installShim, with the shim's daemon check standing a recording server in for the
 * daemon (the wire-format tests: the real check refuses any server that is not the
 * installation's daemon, which the real-daemon tests show).
 * @param {string} root @param {string} shim @param {object} [record]
 */
export async function installShimTrustingSockets(root, shim, record) {
  return installShimChecking(root, shim, record, (transport, socket) => transport.socketId(socket));
}

/**
 * installShim, with `check(transport, socket)` standing in for the shim's daemon check.
 * @param {string} root @param {string} shim @param {object | undefined} record
 * @param {(transport: any, socket: string) => string} check
 */
export async function installShimChecking(root, shim, record, check) {
  const { folder, mod } = await installed(root, shim, record);
  const transport = await import(pathToFileURL(join(folder, "transport.js")).href);
  transport.daemonCheck.verify = async (/** @type {string} */ _python, /** @type {string} */ socket) =>
    check(transport, socket);
  return mod;
}

/** @param {string} host */
export const realRecord = (host) => ({ binary: BINARY, python: PYTHON, host });
