"""Gemini CLI (``@google/gemini-cli``) command hooks: stdin JSON in, JSON on stdout out.

From the host's hook reference (``docs/hooks/reference.md`` in
google-gemini/gemini-cli): every payload carries ``session_id``,
``transcript_path``, ``cwd``, ``hook_event_name`` and ``timestamp``;
``BeforeTool``/``AfterTool`` add ``tool_name``, ``tool_input`` (and
``tool_response`` after); ``BeforeAgent`` adds ``prompt``; ``AfterAgent`` adds
``prompt``, ``prompt_response`` and ``stop_hook_active``; ``SessionStart``
adds ``source``; ``PreCompress`` adds ``trigger``.

Answers (exit 0, one JSON object):

* ``BeforeTool`` ``{"decision": "deny", "reason"}``: the tool does not run
  and the reason becomes the tool's result for the model;
* ``AfterAgent`` ``{"decision": "deny", "reason"}``: the host retries the
  turn with the reason as the next prompt (``stop_hook_active`` true then),
  which is how the done reflex holds the stop;
* ``AfterTool``/``BeforeAgent`` ``{"decision": "block", "reason"}``;
* context (warnings, the recap) as ``hookSpecificOutput.additionalContext``
  on ``SessionStart``, ``BeforeAgent``, ``BeforeTool`` and ``AfterTool``.
  ``PreCompress`` is advisory in Gemini CLI (its output is not shown to the
  model), so the recap after a compression travels on the next
  ``BeforeAgent``.

Gemini's tools are mapped to the shared kinds here (``run_shell_command`` is
a shell, ``replace`` an edit ...); the host's own name stays on the call.
"""

from __future__ import annotations

import os

from agentreflex.core.decision import Decision, Verdict
from agentreflex.core.events import Event, EventKind, ToolKind, ToolResult, tool_kind
from agentreflex.core.hosts.base import (
    HostReply,
    PayloadError,
    cap,
    default_reason,
    dump_json,
    in_its_folder,
    require_str,
    tool_response_text,
)
from agentreflex.core.hosts.contained import as_the_agent_wrote, contained_command
from agentreflex.core.hosts.toolnames import checked_input, mapped_call
from agentreflex.core.recap import Recap, render_plain
from agentreflex.core.util.lazyre import LazyPattern

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any

EVENTS: dict[str, EventKind] = {
    "SessionStart": EventKind.SESSION_START,
    "BeforeAgent": EventKind.USER_PROMPT,
    "BeforeTool": EventKind.PRE_TOOL,
    "AfterTool": EventKind.POST_TOOL,
    "AfterAgent": EventKind.STOP,
    "PreCompress": EventKind.PRE_COMPACT,
    "SessionEnd": EventKind.SESSION_END,
}
HOST_NAMES = {v: k for k, v in EVENTS.items()}

# Gemini CLI's built-in tools (packages/core/src/tools/tool-names.ts) -> the
# shared name whose kind and field reading they share.
TOOL_ALIASES: dict[str, str] = {
    "run_shell_command": "bash",
    "write_file": "write",
    "replace": "edit",
    "read_file": "read",
    "read_many_files": "read",
    "list_directory": "glob",  # a search, as the shared names go
    "glob": "glob",
    "search_file_content": "grep",
    "grep_search": "grep",
    "web_fetch": "webfetch",
    "google_web_search": "websearch",
    # {agent_name, prompt}: a subagent (packages/core/src/agents/agent-tool.ts).  Its
    # own tool calls go through the same BeforeTool hook (agent-scheduler.ts builds a
    # Scheduler, whose _processToolCall runs evaluateBeforeToolHook), so the prompt is a
    # message, judged where it becomes calls (0.61 bundle chunk-JDPZ4CE3.js:347954,347765)
    "invoke_agent": "task",
}
_CONTEXT_EVENTS = (
    EventKind.SESSION_START,
    EventKind.USER_PROMPT,
    EventKind.PRE_TOOL,
    EventKind.POST_TOOL,
)
_RECAP_EVENTS = (EventKind.SESSION_START, EventKind.USER_PROMPT)
_BLOCKING = (Verdict.BLOCK, Verdict.ASK_USER)


# ``discovered_tool_<name>``: a tool ``tools.discoveryCommand`` listed at start; a call
# runs ``tools.callCommand <name>`` with the model's arguments as JSON on stdin, from
# Gemini's own process (0.61 bundle chunk-JDPZ4CE3.js:312166 DiscoveredToolInvocation,
# settings chunk-2YTYPKEZ.js:13875).  The user's own configured tools, as MCP servers
# are: left unmapped, each call is judged by what its input does (gate/tool_input.py),
# and the settings naming them (.gemini/settings.json, the project's and the user's) are
# protected from the agent (state/userdirs.py HOST_PROJECT_FILES; issue #28).


def mcp_alias(name: str) -> str | None:
    """Gemini's MCP tool names, read as ``mcp__server__tool``.

    Gemini CLI 0.61 names them ``mcp_<server>_<tool>`` (``formatMcpToolName``;
    the server part has no ``_``); earlier versions used ``server__tool``.
    """
    if name.startswith("mcp__"):
        return None
    if name.startswith("mcp_"):
        server, _, tool = name[4:].partition("_")
        return f"mcp__{server}__{tool}" if server and tool else None
    if "__" in name:
        return "mcp__" + name
    return None


# Its own names, classified as the shared name each stands for.
TOOL_KINDS: dict[str, ToolKind] = {name: tool_kind(alias) for name, alias in TOOL_ALIASES.items()}


_FILE_KINDS = (ToolKind.WRITE, ToolKind.EDIT, ToolKind.READ)
_SEARCHING = (ToolKind.SEARCH, ToolKind.READ)


def _searched(tool_input: dict[str, Any]) -> list[str]:
    """The folders and files a Gemini search or multi-file read names beside ``file_path``.

    ``grep_search``, ``glob`` and ``list_directory`` take their folder as ``dir_path``;
    ``read_many_files`` reads every path or glob in ``include`` (Gemini CLI 0.61
    packages/core/src/tools/definitions: ``PARAM_DIR_PATH``, ``READ_MANY_PARAM_INCLUDE``).
    Read as the call's paths, the read floor judges them as it does Claude's ``Grep``
    path: ``read_many_files {"include": [".env"]}`` and a ``grep_search`` of ``~/.ssh``
    were allowed where ``read_file`` of them was refused (red-team rt46).  Gemini 0.61
    itself refuses those two (a path outside the workspace; ``.env``, seen in a real
    run) and registers ``read_many_files`` for no model; the floor no longer leans on it.
    """
    found: list[str] = []
    folder = tool_input.get("dir_path")
    if isinstance(folder, str) and folder:
        found.append(folder)
    include = tool_input.get("include")
    for entry in include if isinstance(include, list) else []:
        if isinstance(entry, str) and entry:
            found.append(entry)
    return found


_MAX_FOLDERS = 500  # Gemini's own search stops at 50


def as_gemini_reads(path: str, cwd: str, corrects: bool) -> list[str]:
    """Every file Gemini CLI (0.61) may take a file tool's ``file_path`` for, as written
    first: NUL bytes dropped; a leading ``@`` dropped when the path as written does not
    exist (``resolveDefensiveToolPath``); and for ``replace``, a relative path not found
    under the project is searched for in it: the one file whose path ends so
    (``correctPath``).  Gemini writes there in its own process, outside the boundary:
    judged as spelled, ``settings.json`` was a new file at the root while Gemini
    emptied ``.gemini/settings.json`` (red-team rt35)."""
    clean = path.replace("\0", "")
    found = [clean]
    if not cwd or os.path.isabs(clean):
        return found
    if clean.startswith("@") and len(clean) > 1 and not os.path.lexists(os.path.join(cwd, clean)):
        stripped = clean[1:].lstrip("/\\")
        first = stripped.replace("\\", "/").split("/")[0]
        if stripped and not (first and os.path.lexists(os.path.join(cwd, "@" + first))):
            found.append(stripped)
    if corrects:
        for name in list(found):
            if not os.path.lexists(os.path.join(cwd, name)):
                found += _ending_with(cwd, name.replace("\\", "/"))
    return list(dict.fromkeys(found))


def _ending_with(root: str, tail: str) -> list[str]:
    """The files below ``root`` whose path ends with ``/tail`` (a bounded walk, folders
    first by depth as Gemini's search goes, ``.git`` and ``node_modules`` left out)."""
    tail = tail.strip("/")
    if not tail:
        return []
    base = tail.rpartition("/")[2]
    found: list[str] = []
    queue, seen = [root], 0
    while queue and seen < _MAX_FOLDERS:
        folder = queue.pop(0)
        seen += 1
        try:
            entries = list(os.scandir(folder))
        except OSError:
            continue
        for entry in entries:
            try:
                if entry.is_dir(follow_symlinks=False):
                    if entry.name not in (".git", "node_modules"):
                        queue.append(entry.path)
                elif entry.name == base and entry.path.endswith("/" + tail):
                    found.append(entry.path)
            except OSError:
                continue
    return found


def project_settings_env(project: str) -> dict[str, str]:
    """What a project's ``.env`` gives Gemini CLI's environment, and so every hook it runs.

    Gemini CLI reads the first ``.env`` it finds (``.gemini/.env`` before ``.env``, from
    the folder it starts in upwards) into its own environment: a cloned repository's
    ``REFLEX_MODE=shadow`` would reach the hook as the user's own.  Both of the project's
    are read (the runtime sets aside only a variable whose value is the file's).
    """
    import os

    from agentreflex.core.contain import dotenv

    found: dict[str, str] = {}
    for name in (os.path.join(".gemini", dotenv.NAME), dotenv.NAME):
        for key, value in dotenv.values(os.path.join(project, name)).items():
            found.setdefault(key, value)
    return found


class GeminiAdapter:
    name = "gemini"
    tools = TOOL_KINDS
    containment = "bwrap"  # the hook replaces each shell command (hosts/contained.py)
    # always ``bwrap ... -- bash -c CMD``: the policy twins install writes match that form
    # (install/gemini_policy.py), and a user's existing twins must keep matching
    contained_shell_form = True
    project_settings = (".gemini",)
    project_env = ("GEMINI_PROJECT_DIR", "CLAUDE_PROJECT_DIR")  # hook/sessionproject.py
    project_settings_env = staticmethod(project_settings_env)

    def terminal_filter(self) -> bool:
        """Whether the contained line may carry the terminal filter (``8<``): see :func:`twins_take_the_filter`."""
        return twins_take_the_filter(os.environ)

    def pid_namespace(self) -> bool:
        """Whether the contained line may join the project's namespaces (``6<``/``7<``): see :func:`twins_take_the_filter`."""
        return twins_take_the_pid_namespace(os.environ)

    events = EVENTS
    unknown_event: EventKind | None = None
    traits: frozenset[str] = frozenset()

    def parse(self, payload: dict[str, Any]) -> Event:
        name = require_str(payload, "hook_event_name")
        kind = EVENTS.get(name)
        if kind is None:
            raise PayloadError(f"unsupported hook_event_name {name!r} for gemini")
        try:
            return self._parse_fields(payload, name, kind)
        except PayloadError as exc:
            exc.kind = exc.kind or kind
            raise

    def _parse_fields(self, payload: dict[str, Any], name: str, kind: EventKind) -> Event:
        event = Event(
            kind=kind,
            host=self.name,
            session_id=require_str(payload, "session_id", "") or "unknown-session",
            cwd=require_str(payload, "cwd", ""),
            transcript_path=require_str(payload, "transcript_path", ""),
            host_event=name,
            raw=payload,
        )
        if kind in (EventKind.USER_PROMPT, EventKind.STOP):
            event.prompt = require_str(payload, "prompt", "")
        if kind is EventKind.USER_PROMPT:
            event.prompt = without_session_context(event.prompt)
        if kind in (EventKind.PRE_TOOL, EventKind.POST_TOOL):
            tool_name = require_str(payload, "tool_name")
            alias = TOOL_ALIASES.get(tool_name) or mcp_alias(tool_name) or tool_name
            tool_input = checked_input(payload.get("tool_input"), "tool_input", alias, kind)
            if kind is EventKind.POST_TOOL:  # the input it ran with: ours, if we contained it
                tool_input = as_the_agent_wrote(tool_input)
            event.tool = mapped_call(tool_name, alias, tool_input)
            in_its_folder(event.tool, kind)
            path = tool_input.get("file_path")
            if isinstance(path, str) and path and event.tool.kind in _FILE_KINDS:
                edit = event.tool.kind is ToolKind.EDIT
                for more in as_gemini_reads(path, event.cwd, corrects=edit):
                    if more not in event.tool.paths:
                        event.tool.paths.append(more)
            if event.tool.kind in _SEARCHING:
                for more in _searched(tool_input):
                    if more not in event.tool.paths:
                        event.tool.paths.append(more)
        if kind is EventKind.POST_TOOL:
            shell = event.tool is not None and event.tool.kind is ToolKind.SHELL
            event.result = _result(payload.get("tool_response"), shell)
        if kind is EventKind.STOP:
            event.stop_hook_active = payload.get("stop_hook_active") is True
            msg = payload.get("prompt_response")
            event.last_message = msg if isinstance(msg, str) else ""
        if kind is EventKind.PRE_COMPACT:
            event.compacts = _compacts(payload.get("trigger"), event)
        return event

    def render_recap(self, recap: Recap) -> str:
        return render_plain(recap)

    def render(self, event: Event, decision: Decision) -> HostReply:
        verdict = decision.verdict
        reason = cap(default_reason(decision))
        if verdict is Verdict.ASK_USER:
            # Gemini CLI's "ask" is not honoured in headless runs: deny and say so.
            reason = cap("Needs the user's approval before it runs; ask the user. " + reason)
        if verdict in _BLOCKING and event.kind in (EventKind.PRE_TOOL, EventKind.STOP):
            return HostReply(dump_json({"decision": "deny", "reason": reason}))
        if verdict in _BLOCKING and event.kind in (EventKind.POST_TOOL, EventKind.USER_PROMPT):
            return HostReply(dump_json({"decision": "block", "reason": reason}))
        parts = list(decision.context)
        if decision.recap is not None and event.kind in _RECAP_EVENTS:
            parts.insert(0, self.render_recap(decision.recap))
        context = "\n".join(parts)
        out: dict[str, Any] = {"hookEventName": HOST_NAMES.get(event.kind, "")}
        if event.kind in _CONTEXT_EVENTS and (verdict is Verdict.WARN or context):
            out["additionalContext"] = cap(context or f"agentreflex warning: {reason}")
        contained = contained_command(event, decision)
        refusal = _unmirrored_refusal(event) if contained and not contained[1] else ""
        if refusal and event.kind is EventKind.PRE_TOOL:
            return HostReply(
                dump_json({"decision": "deny", "reason": cap(refusal)}), refusal + "\n"
            )
        if contained is not None and not contained[1]:  # a note: left as written
            # BeforeTool may replace the tool's arguments: the shell command runs
            # inside agentreflex's boundary (Gemini's own --sandbox needs docker).
            # Gemini takes the object as the whole new arguments (0.61's
            # _processToolCall: request.args = modifiedArgs), so the others the
            # model gave (dir_path, is_background, description) are kept.
            given = event.tool.input if event.tool is not None else {}
            out["tool_input"] = {**given, "command": contained[0]}
        note = contained[1] + "\n" if contained and contained[1] else ""
        if len(out) > 1:
            return HostReply(dump_json({"hookSpecificOutput": out}), note)
        if verdict is Verdict.WARN:
            return HostReply(dump_json({"systemMessage": cap(f"agentreflex: {reason}")}), note)
        return HostReply("", note)

    def render_error(self, kind: EventKind | None, message: str, fail_closed: bool) -> HostReply:
        text = cap(f"agentreflex error: {message}")
        if fail_closed and kind is EventKind.PRE_TOOL:
            body = {"decision": "deny", "reason": text + " (failing closed)"}
            return HostReply(dump_json(body), text + "\n", 0)
        return HostReply(dump_json({"systemMessage": text}), text + "\n", 0)


_CONTEXT_OPEN, _CONTEXT_CLOSE = "<hook_context>", "</hook_context>\n\n"


def without_session_context(prompt: str) -> str:
    """The prompt the user gave, without the SessionStart context Gemini put before it.

    ``gemini -p`` (0.61 ``main``) prepends SessionStart's ``additionalContext`` to the
    input as ``<hook_context>CONTEXT</hook_context>`` and a blank line, and that input
    is what ``BeforeAgent`` receives as ``prompt``.  Read as the user's words, a recap
    injected at a resumed session's start became the user's constraints, and the
    recap, changed by them, was injected again with each prompt (seen in a real run).
    """
    if prompt.startswith(_CONTEXT_OPEN):
        end = prompt.find(_CONTEXT_CLOSE)
        if end != -1:
            return prompt[end + len(_CONTEXT_CLOSE) :]
    return prompt


def _compacts(trigger: object, event: Event) -> bool:
    """Whether this ``PreCompress`` is followed by a compression.

    ``manual`` (``/compress``) always is.  An ``auto`` one fires before every model
    request and compresses only past Gemini's threshold
    (:mod:`agentreflex.core.hosts.gemini_compress`); unknown is a compaction, and so
    is any other trigger.
    """
    if trigger != "auto":
        return True
    from agentreflex.core.hosts import gemini_compress

    found = gemini_compress.will_compress(event.transcript_path, event.cwd, os.environ)
    return found is not False


# run_shell_command's llmContent ends in lines the tool adds after the command's output:
# ``Exit Code: N`` (only when non-zero since 0.2x; ``Exit Code: (none)`` or ``0`` always
# before), then ``Signal:``, ``Background PIDs:``, ``Process Group PGID:``.  A command
# that exits 1 sets no ``error`` (that is for a shell that could not start): the exit
# code is only in this trailer.  Gemini may wrap the content in ``<untrusted_context>``
# and, when a hook rewrote the command (our boundary), append a ``[System] Tool input
# parameters ... were modified by a hook`` note after it.  Source: gemini-cli packages/core/src/tools/shell.ts
# (https://github.com/google-gemini/gemini-cli/blob/main/packages/core/src/tools/shell.ts).
_EXIT_TRAILER = LazyPattern(
    r"\nExit Code: (-?\d+)\n?(?:(?:Signal|Background PIDs|Process Group PGID): [^\n]*\n?)*"
    r"(?:</untrusted_context>\s*)?(?:\[System\][^\n]*\s*)*\Z",
    hints="Exit Code",
)


def _shell_exit_code(content: str) -> int | None:
    """The exit code in run_shell_command's trailer (the last one: output may print its own)."""
    found = _EXIT_TRAILER.search(content[-2000:])
    return int(found.group(1)) if found else None


def _result(response: Any, shell: bool) -> ToolResult:
    """Gemini's ``tool_response`` is ``{llmContent, returnDisplay, error}``.

    Only run_shell_command adds the exit trailer: a file read that ends in the same
    words did not fail."""
    if isinstance(response, dict) and ("llmContent" in response or "error" in response):
        error = response.get("error")
        err_text = ""
        if isinstance(error, dict):
            err_text = str(error.get("message", ""))
        elif isinstance(error, str):
            err_text = error
        ok, out, _, code, _ = tool_response_text({"output": response.get("llmContent", "")})
        if code is None and shell:
            code = _shell_exit_code(out)
        failed = bool(err_text or error) or (code is not None and code != 0)
        return ToolResult(ok=not failed, output=out, error=err_text, exit_code=code)
    ok, out, err, code, interrupted = tool_response_text(response)
    return ToolResult(ok=ok, output=out, error=err, exit_code=code, interrupted=interrupted)


# The user-tier policy file ``agentreflex install gemini`` writes the twins into.
TWINS_FILE = "agentreflex-contained.toml"


def policies_dir(env: Mapping[str, str]) -> str:
    """Gemini CLI's user policy folder (``~/.gemini/policies``)."""
    home = env.get("HOME") or os.path.expanduser("~")
    return os.path.join(home, ".gemini", "policies")


def twin_path(env: Mapping[str, str]) -> str:
    return os.path.join(policies_dir(env), TWINS_FILE)


_SHELL_ENTRY = ("run_shell_command(", "ShellTool(")  # tools.allowed / tools.exclude entries


def settings_prefixes(path: str) -> tuple[list[str], list[str]]:
    """The shell prefixes a Gemini settings file allows and excludes (``tools.allowed``/``exclude``)."""
    from agentreflex.core.util import fastjson

    try:
        with open(path, "rb") as handle:
            data = handle.read(1 << 20)
    except OSError:
        return [], []
    try:
        try:
            tools = fastjson.loads(data).get("tools")
        except ValueError:  # Gemini strips comments before it parses (strip-json-comments)
            from agentreflex.core.util import jsonc

            tools = jsonc.loads(data.decode("utf-8", "replace")).get("tools")
    except (ValueError, AttributeError):
        return [], []
    found: tuple[list[str], list[str]] = ([], [])
    for key, out in zip(("allowed", "exclude"), found, strict=True):
        entries = tools.get(key) if isinstance(tools, dict) else None
        for entry in entries if isinstance(entries, list) else []:
            if isinstance(entry, str) and entry.startswith(_SHELL_ENTRY) and entry.endswith(")"):
                out.append(entry[entry.index("(") + 1 : -1].strip())
    return found


def twins_take_the_filter(env: Mapping[str, str]) -> bool:
    """Whether the user's allow twins match a contained line with the terminal filter's ``8<``.

    Why: twins written by an install before the filter existed match only the
    line without it; adding it would turn every command they allow into a
    question (refused headless).  Those users keep the shared terminal until
    they run ``agentreflex install gemini`` again, and doctor says so.
    """
    try:
        with open(twin_path(env), encoding="utf-8", errors="replace") as handle:
            text = handle.read(1 << 20)
    except OSError:
        return True  # no twins: nothing to keep matching
    return 'decision = "allow"' not in text or r"\.bpf" in text


def twins_take_the_pid_namespace(env: Mapping[str, str]) -> bool:
    """Whether the user's allow twins match a contained line that joins the project's namespaces.

    As for the terminal filter (:func:`twins_take_the_filter`): twins written
    before :mod:`agentreflex.core.contain.pidns` match no line with its ``6<``
    and ``7<``; their users keep the user's pid namespace until they run
    ``agentreflex install gemini`` again.
    """
    try:
        with open(twin_path(env), encoding="utf-8", errors="replace") as handle:
            text = handle.read(1 << 20)
    except OSError:
        return True
    return 'decision = "allow"' not in text or "/ns/pid" in text


def _unmirrored_refusal(event: Event) -> str:
    """Why the user's own rule refuses this command where Gemini can no longer see it ("" if
    no such rule names it).

    ``agentreflex install gemini`` mirrors the user's shell rules for the contained form
    (:mod:`agentreflex.core.install.gemini_policy`), and Gemini checks its rules against
    the replaced command.  A rule that refuses (or asks) with no twin would be passed over
    by the contained line: any ``tools.exclude`` (never mirrored), a deny or ``ask_user``
    in a policy file changed since the twins were written.  The hook refuses what such a
    rule names itself, where a twin would (the prefix at word boundaries, anywhere in the
    command).  An allow with no twin changes nothing: the command is contained all the
    same, and Gemini asks about it (red-team rt30: left as written, a command the user once
    allowed ran a script a contained command had rewritten, outside the boundary; and a
    word anywhere in the command matching an exclusion left the rest as written).
    """
    command = event.tool.input.get("command") if event.tool is not None else None
    if not isinstance(command, str):
        return ""
    env = os.environ
    home = env.get("HOME") or os.path.expanduser("~")
    settings = [os.path.join(home, ".gemini", "settings.json")]
    # the workspace's, where Gemini reads them: not a folder the agent's cwd went to, whose
    # .gemini a contained command may write (red-team rt30)
    workspace = event.session_folder or event.cwd
    if workspace:
        settings.append(os.path.join(workspace, ".gemini", "settings.json"))
    for path in settings:
        for prefix in settings_prefixes(path)[1]:
            if _names(prefix, command):
                return _REFUSED.format(prefix=prefix, rule=f"tools.exclude in {path}")
    try:
        mirrored = os.stat(twin_path(env)).st_mtime_ns
    except OSError:
        mirrored = 0
    policies = policies_dir(env)
    try:
        names = [n for n in os.listdir(policies) if n.endswith(".toml") and n != TWINS_FILE]
    except OSError:
        names = []
    for name in sorted(names):
        path = os.path.join(policies, name)
        try:
            if os.stat(path).st_mtime_ns <= mirrored:
                continue
        except OSError:
            continue
        from agentreflex.core.install import gemini_policy as policy  # changed: read its rules

        for rule in policy.toml_rules(path):
            if rule.decision != "allow" and _names(rule.prefix, command):
                return _REFUSED.format(prefix=rule.prefix, rule=f"{rule.decision} in {path}")
    return ""


_REFUSED = (
    "Refused by your own Gemini rule for {prefix!r} ({rule}): agentreflex runs every "
    "command inside its boundary, where that rule no longer sees it, so it holds the rule "
    "here (`agentreflex install gemini` mirrors a policy rule for contained commands)."
)
_WORD = r"[\w@%+=:,./-]"  # a plain word's characters, as the twins read a prefix


def _names(prefix: str, command: str) -> bool:
    """Does ``command`` name ``prefix`` at word boundaries, anywhere (as a deny twin matches)?"""
    import re

    words = prefix.split()
    if not words:
        return False
    body = r"\s+".join(re.escape(w) for w in words)
    return re.search(rf"(?<!{_WORD}){body}(?!{_WORD})", command) is not None
