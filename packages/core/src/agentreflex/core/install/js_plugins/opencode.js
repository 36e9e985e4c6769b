// agentreflex for OpenCode: a plugin that sends OpenCode's callbacks to agentreflex.
//
// - tool.execute.before (every tool: bash, edit, write, patch, read, webfetch, task,
//   MCP tools): a refusal is thrown, which OpenCode reports to the model as the
//   tool's error, with our reason;
// - tool.execute.after: recorded (tests run, files changed: the done reflex's evidence);
// - chat.message: the user's words (constraints such as "do not modify tests");
// - experimental.chat.system.transform: context from agentreflex joins the system prompt;
// - event session.idle: the done reflex.  Idle is not a stop OpenCode lets a plugin
//   veto, so a "not done" answer prompts the session again with the reason, once
//   per stop (the next idle says stop_hook_active and is let through);
// - event message.updated: the model and variant in use, kept in a small bounded
//   cache and sent as model_id / model_variant;
// - a subagent's session (the task tool's child, event session.created with
//   info.parentID): its tool calls are sent as calls of the session the user
//   talks to, whose words (constraints) hold there; its prompt, the parent
//   agent's words, is not sent as the user's, and its idle is not the user's stop.
//
// Only the plugin function is exported: OpenCode calls every export of a plugin module.

import { BoundedMap, bounded, createClient } from "./transport.js";

const MODEL_LIMIT = 128; // the guard reads model_id / model_variant up to this length
const TEXT_LIMIT = 4000; // the last assistant text kept per session
const SESSIONS = 64; // sessions remembered at once
const LINEAGE = 1024; // child -> parent session ids remembered at once
const DEPTH = 32; // longest chain of subagents followed to the user's session
const LOOKUP_MS = 2000; // longest wait for OpenCode to say a session's parent
// OpenCode's own tools that change nothing: a call beside them is judged against the project it runs in
const PURE_TOOLS = new Set(["read", "glob", "grep", "list", "lsp", "webfetch", "websearch", "codesearch", "todowrite", "todoread", "skill"]);
// OpenCode's tools that only write files' content (apply_patch adds, moves and deletes files,
// but makes no link and runs nothing): a call beside them is judged the same before they run
// or after, so two edits of one step both run
const CONTENT_TOOLS = new Set(["edit", "write", "multiedit", "apply_patch"]);

/**
 * @typedef {{
 *   modelID?: string, variant?: string, lastText?: string, turnContext?: string,
 *   pending: string[], reprompted: boolean, ownPrompt?: string
 * }} SessionState
 */

/**
 * Whether the calls not run yet only write files' content, and this one reads or does the
 * same: then none of them changes how this one is judged (a script it runs, a link it
 * follows), and it need not wait.
 * @param {string[]} earlier @param {string} name
 */
function onlyContent(earlier, name) {
  return earlier.every((tool) => CONTENT_TOOLS.has(tool)) && (PURE_TOOLS.has(name) || CONTENT_TOOLS.has(name));
}

/**
 * @param {{client?: any, directory?: string, worktree?: string}} input OpenCode's PluginInput
 */
export const AgentReflex = async (input) => {
  const agentreflex = createClient("opencode", import.meta.url);
  const cwd = input?.directory || process.cwd();
  /** @type {BoundedMap<SessionState>} */
  const sessions = new BoundedMap(SESSIONS);
  /** @type {Set<Promise<void>>} */
  const inFlight = new Set();

  /** @param {string} id @returns {SessionState} */
  const session = (id) => {
    let state = sessions.get(id);
    if (!state) {
      state = { pending: [], reprompted: false };
      sessions.set(id, state);
    }
    return state;
  };

  /** child session -> its parent (OpenCode's task tool), or "" for a session with none */
  /** @type {BoundedMap<string>} */
  const parents = new BoundedMap(LINEAGE);

  /** @param {any} info a Session.Info */
  const rememberParent = (info) => {
    if (typeof info?.id !== "string" || !info.id) return;
    parents.set(info.id, typeof info.parentID === "string" ? info.parentID : "");
  };

  /**
   * The parent of a session this plugin did not see made (one resumed, or an event not
   * yet delivered): asked of OpenCode once, "" when it has none or does not answer.
   * @param {string} id
   */
  const lookUpParent = async (id) => {
    /** @type {ReturnType<typeof setTimeout> | undefined} */
    let timer;
    try {
      const asked = input?.client?.session?.get?.({ path: { id }, sessionID: id });
      const late = new Promise((resolve) => { timer = setTimeout(() => resolve(undefined), LOOKUP_MS); });
      const res = /** @type {any} */ (await Promise.race([asked, late]));
      const info = res?.data ?? res;
      if (info?.id === id) rememberParent(info);
    } catch {
      // no parent known: the session is its own
    } finally {
      clearTimeout(timer);
    }
    if (!parents.has(id)) parents.set(id, "");
    return parents.get(id) ?? "";
  };

  /**
   * The session the user talks to, which a subagent's session descends from (itself for
   * one with no parent): a subagent's calls are judged there, with the user's words.
   * @param {string} id
   */
  const userSession = async (id) => {
    let current = id;
    for (let hops = 0; current && hops < DEPTH; hops++) {
      const parent = parents.has(current) ? parents.get(current) : await lookUpParent(current);
      if (!parent || parent === id) return current;
      current = parent;
    }
    return current || id;
  };

  /** @param {string} id */
  const modelFields = (id) => {
    const state = sessions.get(id);
    return { model_id: state?.modelID, model_variant: state?.variant };
  };

  /** @param {string} id @param {any} source a message info or chat.message input */
  const rememberModel = (id, source) => {
    const modelID = bounded(source?.modelID ?? source?.model?.modelID, MODEL_LIMIT);
    const variant = bounded(source?.variant ?? source?.model?.variant, MODEL_LIMIT);
    if (!modelID && !variant) return;
    const state = session(id);
    if (modelID) state.modelID = modelID;
    if (variant) state.variant = variant;
  };

  /** @param {string} id @param {{context?: string}} reply */
  const keepContext = (id, reply) => {
    if (reply.context) session(id).pending.push(reply.context);
  };

  /** The done reflex at idle; a "not done" prompts the session again, once. @param {string} id */
  const onIdle = async (id) => {
    if ((await userSession(id)) !== id) return; // a subagent's end is its parent's tool result
    const state = session(id);
    const reply = await agentreflex.send(
      "session.idle",
      { session_id: id, cwd, last_message: state.lastText ?? "", stop_hook_active: state.reprompted, ...modelFields(id) },
      false,
    );
    if (!reply.block || state.reprompted) {
      state.reprompted = false;
      return;
    }
    state.reprompted = true;
    state.ownPrompt = reply.reason;
    const parts = [{ type: "text", text: reply.reason }];
    try {
      // both SDK shapes: v1 {path, body}, v2 {sessionID, parts}
      await input.client.session.prompt({ path: { id }, body: { parts }, sessionID: id, parts });
    } catch (err) {
      console.error(`agentreflex: could not prompt the session again: ${err instanceof Error ? err.message : err}`);
    }
  };

  /** @param {Promise<void>} work */
  const track = (work) => {
    inFlight.add(work);
    work.finally(() => inFlight.delete(work));
  };

  /** the agent's own command per call id, while the contained one runs */
  /** @type {Map<string, string>} */
  const original = new Map();

  // OpenCode (the AI SDK) starts each call of a reply as it arrives, so a call could be judged
  // while an earlier call of the same step that may change the project has not run yet (a
  // write of fix.sh beside `bash fix.sh` passed "Do not modify tests": red-team rt38).  Such a
  // call is refused, to be proposed again.  A call is over at its tool.execute.after, or at
  // its tool part's "completed" or "error" (a failing call gets no after), and every call of
  // a session is over once its next assistant message (the next step) starts.
  /** @type {BoundedMap<Map<string, string>>} session -> call id -> tool, not over yet */
  const unrun = new BoundedMap(SESSIONS);
  /** @type {BoundedMap<string>} session -> its current assistant message */
  const steps = new BoundedMap(SESSIONS);
  /** @param {string} id */
  const calls = (id) => {
    let found = unrun.get(id);
    if (!found) {
      found = new Map();
      unrun.set(id, found);
    }
    return found;
  };

  return {
    "tool.execute.before": async (/** @type {any} */ call, /** @type {any} */ output) => {
      const id = String(call?.sessionID ?? "");
      const callId = String(call?.callID ?? "");
      const name = String(call?.tool ?? "");
      const running = calls(id);
      const earlier = [...new Set([...running].filter(([c, t]) => c !== callId && !PURE_TOOLS.has(t)).map(([, t]) => t))];
      if (earlier.length && !onlyContent(earlier, name)) {
        throw new Error(
          `agentreflex: this ${name} call came in the same step as ${earlier.join(", ")} calls that have not run ` +
            "yet, and OpenCode runs them together: it would be checked against a project they may still change. " +
            "Propose it again, on its own, once they have run.",
        );
      }
      running.set(callId, name); // before the check: a call beside this one sees it
      const reply = await agentreflex.send(
        "tool.execute.before",
        { session_id: await userSession(id), cwd, tool: call?.tool, call_id: call?.callID, args: output?.args, ...modelFields(id) },
        true,
      );
      if (reply.block) {
        running.delete(callId); // refused: it does not run
        throw new Error(reply.reason);
      }
      if (reply.command && output?.args && typeof output.args.command === "string") {
        // run it inside agentreflex's boundary; the reflexes still see what the agent wrote
        original.set(String(call?.callID ?? ""), output.args.command);
        output.args.command = reply.command;
      }
      keepContext(id, reply);
    },

    "tool.execute.after": async (/** @type {any} */ call, /** @type {any} */ output) => {
      const id = String(call?.sessionID ?? "");
      const meta = output?.metadata ?? {};
      const exit = typeof meta.exit === "number" ? meta.exit : meta.exitCode;
      const result = { output: typeof output?.output === "string" ? output.output : "", exit_code: exit };
      const callId = String(call?.callID ?? "");
      unrun.get(id)?.delete(callId);
      const args = original.has(callId) ? { ...(call?.args ?? {}), command: original.get(callId) } : call?.args ?? {};
      original.delete(callId);
      const reply = await agentreflex.send(
        "tool.execute.after",
        { session_id: await userSession(id), cwd, tool: call?.tool, call_id: call?.callID, args, result, ...modelFields(id) },
        false,
      );
      keepContext(id, reply);
    },

    "chat.message": async (/** @type {any} */ info, /** @type {any} */ output) => {
      const id = String(info?.sessionID ?? "");
      rememberModel(id, info);
      const parts = Array.isArray(output?.parts) ? output.parts : [];
      const prompt = parts.filter((p) => p?.type === "text" && typeof p.text === "string" && !p.synthetic)
        .map((p) => p.text).join("\n");
      const state = session(id);
      if (state.ownPrompt !== undefined && prompt === state.ownPrompt) {
        state.ownPrompt = undefined; // our own re-prompt, not the user's words
        return;
      }
      if ((await userSession(id)) !== id) return; // a subagent's prompt: the parent agent's words
      const reply = await agentreflex.send("chat.message", { session_id: id, cwd, prompt, ...modelFields(id) }, false);
      session(id).turnContext = reply.context;
    },

    "experimental.chat.system.transform": async (/** @type {any} */ info, /** @type {any} */ output) => {
      const id = String(info?.sessionID ?? "");
      const state = sessions.get(id);
      if (!state || !Array.isArray(output?.system)) return;
      const texts = [state.turnContext, ...state.pending.splice(0)].filter(Boolean);
      if (texts.length) output.system.push(`agentreflex:\n${texts.join("\n")}`);
    },

    "experimental.text.complete": async (/** @type {any} */ info, /** @type {any} */ output) => {
      const text = bounded(output?.text, TEXT_LIMIT);
      if (text && info?.sessionID) session(String(info.sessionID)).lastText = text;
    },

    event: async (/** @type {{event: any}} */ { event }) => {
      const props = event?.properties ?? {};
      if (event?.type === "message.updated" && props.info?.sessionID) {
        const id = String(props.info.sessionID);
        rememberModel(id, props.info);
        if (props.info.role === "assistant" && typeof props.info.id === "string" && steps.get(id) !== props.info.id) {
          steps.set(id, props.info.id); // the next step: the last one's calls are over
          unrun.delete(id);
        }
      } else if (event?.type === "message.part.updated" && props.part?.type === "tool") {
        const status = props.part.state?.status;
        if (status === "completed" || status === "error") unrun.get(String(props.part.sessionID ?? ""))?.delete(String(props.part.callID ?? ""));
      } else if (event?.type === "session.created" && props.info?.id) {
        rememberParent(props.info);
        track(agentreflex.send("session.created", { session_id: String(props.info.id), cwd }, false).then(() => {}));
      } else if (event?.type === "session.idle" && props.sessionID) {
        unrun.delete(String(props.sessionID));
        track(onIdle(String(props.sessionID)));
      }
    },

    // `opencode run` exits at the first idle: wait for the done reflex (and its re-prompt)
    dispose: async () => {
      while (inFlight.size) await Promise.allSettled([...inFlight]);
    },
  };
};
