// agentreflex for pi and oh-my-pi (omp): an extension that sends pi's events to agentreflex.
//
// - tool_call (every tool): a refusal is returned as {block: true, reason}, which pi
//   shows the model as the tool's error result;
// - tool_result: recorded (tests run, files changed: the done reflex's evidence);
// - before_agent_start: the user's words (constraints such as "do not modify tests");
//   context from agentreflex comes back as the extension's message;
// - context: context that arrived after a tool joins the next model request, and a long
//   conversation is pruned (superseded tool outputs of earlier turns become stubs);
// - agent_end: the done reflex.  pi cannot veto a stop, so a "not done" answer sends
//   the reason as a follow-up user message, once per stop (the next agent_end says
//   stop_hook_active and is let through);
// - session_shutdown: waits for that follow-up (`pi -p` shuts down right after the
//   first answer, so the follow-up turn runs while it shuts down).
//
// The host name ("pi" or "omp") is in agentreflex.json, written by `agentreflex install`.

import { createClient } from "./transport.js";

const SETTLE_MS = 5000; // longest wait for pi to be idle before the follow-up is sent
// A conversation this long (JSON characters) is worth a pruning pass before the model
// call: superseded tool outputs of earlier turns become one-line stubs (the context
// layer's `agentreflex context prune`); a shorter one is not worth starting Python.
const PRUNE_FROM_CHARS = 32000;
// pi's own tools that change nothing: a call beside them is judged against the project it runs in
const PURE_TOOLS = new Set(["read", "grep", "find", "ls"]);
// pi's tools that only write a file's content: no link, no program run, so a call beside
// them is judged the same before they run or after (two edits in one message both run)
const CONTENT_TOOLS = new Set(["edit", "write"]);

/** @param {unknown} value */
function sizeOf(value) {
  try {
    return JSON.stringify(value).length;
  } catch {
    return 0;
  }
}

/** @param {any} pi pi's ExtensionAPI */
/**
 * Whether the calls not run yet only write files' content, and this one reads or does the
 * same: then none of them changes how this one is judged (a script it runs, a link it
 * follows), and it need not wait.
 * @param {string[]} earlier @param {string} name
 */
function onlyContent(earlier, name) {
  return earlier.every((tool) => CONTENT_TOOLS.has(tool)) && (PURE_TOOLS.has(name) || CONTENT_TOOLS.has(name));
}

export default function agentreflex(pi) {
  const { send, prune } = createClient(undefined, import.meta.url);
  /** @type {string[]} */
  const pending = [];
  let reprompted = false;
  /** @type {string | undefined} the follow-up we sent, which pi hands back as a prompt */
  let ownPrompt;
  /** @type {Set<Promise<unknown>>} */
  const inFlight = new Set();

  let known = { session_id: "", cwd: process.cwd() };
  /**
   * Session id and cwd from pi's ctx.  A ctx turns "stale" once pi starts shutting
   * down (and `pi -p` runs the follow-up turn then): its getters throw, so the last
   * values seen are used instead.
   * @param {any} ctx
   */
  const base = (ctx) => {
    try {
      known = {
        session_id: String(ctx?.sessionManager?.getSessionId?.() ?? known.session_id),
        cwd: String(ctx?.cwd ?? known.cwd),
      };
    } catch {
      // stale ctx: keep what was known
    }
    return { ...known };
  };

  /** @param {Promise<unknown>} work */
  const track = (work) => {
    inFlight.add(work);
    work.finally(() => inFlight.delete(work));
    return work;
  };

  pi.on("session_start", async (/** @type {any} */ _event, /** @type {any} */ ctx) => {
    await send("session_start", base(ctx), false);
  });

  pi.on("before_agent_start", async (/** @type {any} */ event, /** @type {any} */ ctx) => {
    const prompt = typeof event?.prompt === "string" ? event.prompt : "";
    if (ownPrompt !== undefined && prompt === ownPrompt) {
      ownPrompt = undefined; // our own follow-up, not the user's words
      return undefined;
    }
    const reply = await send("before_agent_start", { ...base(ctx), prompt }, false);
    if (!reply.context) return undefined;
    return { message: { customType: "agentreflex", content: reply.context, display: false } };
  });

  /** the agent's own command per tool call id, while the contained one runs */
  /** @type {Map<string, string>} */
  const original = new Map();

  // pi runs the calls of one assistant message together, after asking about each of them
  // (pi-agent-core's parallel tool execution): a call proposed while an earlier one that
  // may change the project has not run yet would be judged against a project that one is
  // about to change (`ln -s tests t` beside `sed -i ... t/fixtures.py` passed "Do not modify
  // tests": red-team rt38).  So such a call is refused, to be proposed again once the
  // others have run.  Cleared at each turn's end: a call pi skipped has no result.
  /** @type {Map<string, string>} tool call id -> tool name, allowed and not run yet */
  const unrun = new Map();
  pi.on("turn_end", async () => {
    unrun.clear();
  });

  pi.on("tool_call", async (/** @type {any} */ event, /** @type {any} */ ctx) => {
    const name = String(event?.toolName ?? "");
    const earlier = [...new Set([...unrun.values()].filter((tool) => !PURE_TOOLS.has(tool)))];
    if (earlier.length && !onlyContent(earlier, name)) {
      return {
        block: true,
        reason:
          `agentreflex: this ${name} call came in the same message as ${earlier.join(", ")} calls that have not run ` +
          "yet, and pi runs them together: it would be checked against a project they may still change. " +
          "Propose it again, on its own, once they have run.",
      };
    }
    const reply = await send(
      "tool_call",
      { ...base(ctx), tool: event?.toolName, call_id: event?.toolCallId, args: event?.input },
      true,
    );
    if (reply.block) return { block: true, reason: reply.reason };
    unrun.set(String(event?.toolCallId ?? ""), name);
    if (reply.context) pending.push(reply.context);
    if (reply.command && event?.input && typeof event.input.command === "string") {
      // run it inside agentreflex's boundary: pi runs the input object it passed us
      // (omp also takes `input` from the result); the reflexes still see the agent's own command
      original.set(String(event?.toolCallId ?? ""), event.input.command);
      event.input.command = reply.command;
      return { input: event.input };
    }
    return undefined;
  });

  pi.on("tool_result", async (/** @type {any} */ event, /** @type {any} */ ctx) => {
    const content = Array.isArray(event?.content) ? event.content : [];
    const output = content.filter((c) => c?.type === "text").map((c) => String(c.text ?? "")).join("\n");
    const exit = event?.details?.exitCode;
    const result = { output, is_error: event?.isError === true, exit_code: typeof exit === "number" ? exit : undefined };
    const callId = String(event?.toolCallId ?? "");
    unrun.delete(callId);
    const args = original.has(callId) ? { ...(event?.input ?? {}), command: original.get(callId) } : event?.input ?? {};
    original.delete(callId);
    const reply = await send(
      "tool_result",
      { ...base(ctx), tool: event?.toolName, call_id: event?.toolCallId, args, result },
      false,
    );
    if (reply.context) pending.push(reply.context);
    return undefined;
  });

  pi.on("context", async (/** @type {any} */ event) => {
    if (!Array.isArray(event?.messages)) return undefined;
    /** @type {unknown[]} */
    let messages = event.messages;
    let changed = false;
    if (sizeOf(messages) > PRUNE_FROM_CHARS) {
      const pruned = await prune(messages);
      if (pruned) {
        messages = pruned;
        changed = true;
      }
    }
    if (pending.length) {
      const text = `agentreflex:\n${pending.splice(0).join("\n")}`;
      const note = { role: "custom", customType: "agentreflex", content: text, display: false, timestamp: Date.now() };
      messages = [...messages, note];
      changed = true;
    }
    return changed ? { messages } : undefined;
  });

  pi.on("agent_end", async (/** @type {any} */ event, /** @type {any} */ ctx) => {
    unrun.clear();
    const messages = Array.isArray(event?.messages) ? event.messages : [];
    const last = [...messages].reverse().find((m) => m?.role === "assistant");
    const lastText = Array.isArray(last?.content)
      ? last.content.filter((c) => c?.type === "text").map((c) => String(c.text ?? "")).join("\n")
      : "";
    const reply = await track(
      send("agent_end", { ...base(ctx), last_message: lastText.slice(0, 4000), stop_hook_active: reprompted }, false),
    );
    if (!reply.block || reprompted) {
      reprompted = false;
      return;
    }
    reprompted = true;
    ownPrompt = reply.reason ?? "";
    // not awaited here: the follow-up turn's own events queue behind this handler
    track(followUp(reply.reason ?? "", ctx));
  });

  /** @param {string} reason @param {any} ctx */
  async function followUp(reason, ctx) {
    const start = Date.now();
    while (typeof ctx?.isIdle === "function" && !ctx.isIdle() && Date.now() - start < SETTLE_MS) {
      await new Promise((r) => setTimeout(r, 20));
    }
    try {
      await pi.sendUserMessage(reason);
    } catch (err) {
      console.error(`agentreflex: could not send the follow-up: ${err instanceof Error ? err.message : err}`);
    }
  }

  pi.on("session_shutdown", async () => {
    while (inFlight.size) await Promise.allSettled([...inFlight]);
  });
}
