"""agentreflex inside Hermes Agent: a directory plugin (``register(ctx)``).

Every hook builds the payload of Hermes' shell-hook form and hands it to
agentreflex's own ``run_hook("hermes", ...)``, so the plugin and the shell
hook (``agentreflex hook hermes``) give the same answers from the same code;
only the return shape differs (a plugin returns ``{"action": "block", ...}``).

Where agentreflex lives: Hermes runs in its own virtualenv, where agentreflex
is usually not installed.  ``agentreflex install hermes`` writes
``agentreflex.json`` next to this file: the ``sys.path`` entries of the
installation that ran it, its Python version and its ``agentreflex`` script.
When the running Python has the same major.minor version those entries are
appended (never prepended: Hermes' own packages keep winning) and agentreflex
runs in-process; otherwise the plugin runs ``agentreflex hook hermes EVENT`` as
a subprocess, which is the shell-hook form with the plugin's fail-closed rules.

Rules Hermes imposes: a callback must never raise (Hermes 0.19 logs and
ignores a raising callback, i.e. the tool runs; later versions block it), so
every callback catches everything and ``pre_tool_call`` answers a block when
the floor cannot run.  The import stays cheap: Hermes imports every enabled
plugin at start, so agentreflex itself is imported on the first hook.
"""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

HERE = os.path.dirname(os.path.abspath(__file__))
CONFIG_FILE = os.path.join(HERE, "agentreflex.json")
SUBPROCESS_TIMEOUT = 60.0
HOOKS = (
    "pre_tool_call",
    "post_tool_call",
    "pre_llm_call",
    "pre_verify",
    "on_session_start",
    "on_session_end",
)
_state: dict[str, Any] = {}


# tool_call_id -> the terminal command inside agentreflex's boundary, from pre_tool_call.
# A call another hook or plugin stops never reaches the middleware, so its entry would
# stay: only the newest MAX_CONTAINED are kept.  The ids pushed out are remembered (a
# set as long again as that, kept as a dict for its order), so such a call, should it
# come after all, is refused rather than run bare.
_contained: dict[str, str] = {}
_forgotten: dict[str, None] = {}
MAX_CONTAINED = 64


def register(ctx: Any) -> None:
    """Hermes' entry point: one callback per hook we answer, and the containment middleware.

    Hermes' hooks cannot change a tool's arguments; a ``tool_execution``
    middleware wraps the real call after the hooks ran (Hermes 0.19
    ``hermes_cli/middleware.py``), so that is where a terminal command the
    hook contained is put in the agent's command's place.
    """
    for name in HOOKS:
        ctx.register_hook(name, _callback(name))
    if hasattr(ctx, "register_middleware"):
        ctx.register_middleware("tool_execution", contain_terminal)


def contain_terminal(**kwargs: Any) -> Any:
    """Run a terminal call with the contained command the hook gave for it, if it gave one.

    Hermes runs the original call when a middleware raises before calling on,
    so nothing here may raise before ``next_call``: a failure is the tool's
    error, never an uncontained run.
    """
    next_call = kwargs["next_call"]
    try:
        call_id = str(kwargs.get("tool_call_id") or "")
        command = _contained.pop(call_id, None)
        if command is None and call_id in _forgotten:
            raise LookupError("its contained form was pushed out by newer calls")
        args = kwargs.get("args")
        if command is None or kwargs.get("tool_name") != "terminal" or not isinstance(args, dict):
            return next_call(None)
        contained = {**args, "command": command}
    except Exception as exc:
        import json

        detail = _detail(f"{type(exc).__name__}: {exc}")
        return json.dumps({"error": f"agentreflex could not contain the command ({detail})"})
    return next_call(contained)


def _callback(event: str) -> Any:
    def callback(**kwargs: Any) -> Any:
        try:
            return answer(event, kwargs)
        except BaseException as exc:  # never into Hermes; a floor that cannot run blocks
            if isinstance(exc, (KeyboardInterrupt, SystemExit)):
                raise
            return _failure(event, type(exc).__name__, str(exc))

    callback.__name__ = f"agentreflex_{event}"
    return callback


def answer(event: str, kwargs: dict[str, Any]) -> Any:
    """Hermes' hook ``event`` with its keyword arguments -> Hermes' return value."""
    payload = build_payload(event, kwargs)
    reply, verdict, error, detail = _run(event, payload)
    if error:
        return _failure(event, error, detail)
    return translate(event, reply, verdict, kwargs)


def build_payload(event: str, kwargs: dict[str, Any]) -> dict[str, Any]:
    """The shell-hook payload (what ``agentreflex hook hermes`` reads) for a plugin call."""
    session = kwargs.get("session_id") or kwargs.get("task_id") or _fallback_session()
    extra = {k: v for k, v in kwargs.items() if k not in ("tool_name", "args", "session_id")}
    extra.pop("conversation_history", None)  # large, and nothing reads it
    extra.pop("middleware_trace", None)
    if event == "pre_verify" and int(kwargs.get("attempt") or 0) > 0:
        extra["stop_hook_active"] = True
    if kwargs.get("tool_name") == "terminal":
        # Hermes' own folder, which a background command's relative ``workdir`` is
        # (hosts/hermes.py ``_where_the_background_runs``); ``cwd`` is the session's
        try:
            extra["process_cwd"] = os.getcwd()
        except OSError:
            extra["process_cwd"] = ""
    return {
        "hook_event_name": event,
        "tool_name": kwargs.get("tool_name"),
        # as Hermes gave it: arguments that are not an object fail closed in the hook, where
        # an empty object read as "no command" let a terminal call through (red-team rt36)
        "tool_input": kwargs.get("args"),
        "session_id": str(session),
        "cwd": _working_directory(kwargs),
        "profile": os.environ.get("HERMES_PROFILE", ""),
        "extra": extra,
    }


def _working_directory(kwargs: dict[str, Any]) -> str:
    """Where Hermes runs this call: the folder it resolves a file tool's relative path
    against and runs a terminal command in.

    Not Hermes' process directory: every terminal command rewrites the session's
    recorded folder from its ``pwd`` (``workdir=.git`` included), and the file tools
    resolve against that record (``tools.file_tools._resolve_base_dir``), so
    ``write_file hooks/pre-commit`` after it writes ``.git/hooks/pre-commit``
    (red-team rt35).  A terminal call's ``workdir`` is its own folder, which the hook
    resolves against this one (``hosts.base.in_its_folder``), as for a shell hook's
    payload (red-team rt41): joined here too, it would be resolved twice.
    """
    base = os.getcwd()
    files = sys.modules.get("tools.file_tools")  # Hermes' own, loaded with its file tools
    resolve = getattr(files, "_resolve_base_dir", None)
    if callable(resolve):
        try:
            base = str(resolve(str(kwargs.get("task_id") or "default")))
        except Exception:  # another version's internals: the process directory
            base = os.getcwd()
    return os.path.normpath(base)


def translate(event: str, reply: dict[str, Any], verdict: str, kwargs: dict[str, Any]) -> Any:
    """agentreflex's shell-hook reply -> the plugin return shape for ``event``."""
    reason = reply.get("reason") or reply.get("message") or ""
    blocking = reply.get("decision") == "block" or reply.get("action") == "block"
    if event == "pre_tool_call" and blocking:
        message = str(reason) or "agentreflex blocked this tool call"
        if verdict == "ASK_USER" and human_can_approve():
            rule = f"agentreflex:{kwargs.get('tool_name') or 'tool'}:{message[:80]}"
            return {"action": "approve", "message": message, "rule_key": rule}
        return {"action": "block", "message": message}
    if event == "pre_verify" and blocking and reason:
        return {"action": "continue", "message": str(reason)}
    if event == "pre_llm_call" and isinstance(reply.get("context"), str) and reply["context"]:
        return {"context": reply["context"]}
    command = reply.get("command")
    if event == "pre_tool_call" and isinstance(command, str) and kwargs.get("tool_call_id"):
        _contained[str(kwargs["tool_call_id"])] = command  # contain_terminal runs it
        while len(_contained) > MAX_CONTAINED:
            oldest = next(iter(_contained))
            del _contained[oldest]
            _forgotten[oldest] = None
        while len(_forgotten) > 16 * MAX_CONTAINED:
            del _forgotten[next(iter(_forgotten))]
    return None


def human_can_approve() -> bool:
    """True only where Hermes' approval gate will ask a person (never auto-approves).

    ``{"action": "approve"}`` exists from Hermes 0.19 on (older versions ignore
    it, i.e. the tool would run), and ``--yolo`` or cron's ``approve`` mode
    approve it without asking.  Anywhere we cannot tell, the answer is a block.
    """
    env = os.environ
    for name in ("HERMES_YOLO_MODE", "HERMES_CRON_SESSION"):
        if env.get(name, "").strip().lower() not in ("", "0", "false", "no", "off"):
            return False
    try:
        approval = sys.modules.get("tools.approval")
        if approval is None or not hasattr(approval, "request_tool_approval"):
            return False
        if getattr(approval, "_YOLO_MODE_FROZEN", True):
            return False
        if approval.is_current_session_yolo_enabled():
            return False
        return bool(approval._is_interactive_cli() or approval._is_gateway_approval_context())
    except Exception:
        return False


def _failure(event: str, error: str, detail: str = "") -> Any:
    """A floor that cannot run blocks the tool call; every other hook does nothing.

    ``error`` is the plugin's own words; ``detail`` (an exception's text, what
    agentreflex answered) may hold anything the agent or Hermes passed, so it is
    shown only through agentreflex's redaction (:func:`_detail`).
    """
    text = " ".join(str(error).split())[:200]
    if detail:
        text = f"{text}: {_detail(detail)}"
    try:  # noqa: SIM105 (contextlib would be one more import at Hermes' start)
        sys.stderr.write(f"agentreflex: {text}\n")
    except Exception:
        pass
    if event == "pre_tool_call":
        return {
            "action": "block",
            "message": f"agentreflex could not check this tool call ({text}); failing closed. "
            "Ask the user to run `agentreflex doctor` and repair the installation.",
        }
    return None


def _detail(text: str, limit: int = 300) -> str:
    """``text`` as one line for Hermes' screen, redacted before it is cut (core's
    ``redact_line``, the one redaction); withheld where agentreflex cannot be
    imported (the subprocess form): a second rule set here would be one to keep in step."""
    try:
        from agentreflex.core.redaction.redact import redact_line
    except Exception:
        return "(details withheld: agentreflex's redaction cannot be imported here)"
    try:
        return redact_line(str(text), limit)
    except Exception:
        return "(details withheld: they could not be redacted)"


def _fallback_session() -> str:
    return f"hermes-{os.getpid()}"


def _config() -> dict[str, Any]:
    if "config" not in _state:
        import json

        try:
            with open(CONFIG_FILE, encoding="utf-8") as fh:
                loaded = json.load(fh)
            _state["config"] = loaded if isinstance(loaded, dict) else {}
        except (OSError, ValueError):
            _state["config"] = {}
    config: dict[str, Any] = _state["config"]
    return config


def _runtime() -> Any:
    """agentreflex's ``run_hook`` in this process, or None (then: a subprocess)."""
    if "run_hook" in _state:
        return _state["run_hook"]
    config = _config()
    run_hook = None
    here = f"{sys.version_info[0]}.{sys.version_info[1]}"
    if config.get("python") in (None, here):
        for entry in config.get("paths") or []:
            if isinstance(entry, str) and entry not in sys.path:
                sys.path.append(entry)
        try:
            from agentreflex.core.hook.runtime import run_hook as found

            run_hook = found
        except ImportError:
            run_hook = None
    _state["run_hook"] = run_hook
    return run_hook


def _run(event: str, payload: dict[str, Any]) -> tuple[dict[str, Any], str, str, str]:
    """(reply object, verdict name or "", error or "", the error's detail, not yet redacted)."""
    import json

    data = json.dumps(payload, default=str).encode("utf-8")
    run_hook = _runtime()
    if run_hook is not None:
        outcome = run_hook("hermes", data, os.environ, event)
        stdout, stderr = outcome.reply.stdout, outcome.reply.stderr
        decision = outcome.decision
        verdict = decision.verdict.value if decision is not None else ""
    else:
        stdout, stderr, problem, detail = _subprocess(event, data)
        if problem:
            return {}, "", problem, detail
        verdict = ""
    if stderr:
        sys.stderr.write(stderr)
    try:
        reply = json.loads(stdout or "{}")
    except ValueError:
        return {}, "", "agentreflex answered something that is not JSON", stdout
    if not isinstance(reply, dict):
        return {}, "", "agentreflex answered JSON that is not an object", ""
    return reply, str(verdict), "", ""


def _subprocess(event: str, data: bytes) -> tuple[str, str, str, str]:
    """``agentreflex hook hermes EVENT``: (stdout, stderr, problem or "", its detail).

    Only the program ``install`` recorded, never one found on ``PATH``: the
    agent writes the project, and an activated ``.venv/bin`` (or
    ``node_modules/.bin``) at the front of Hermes' ``PATH`` could hold an
    ``agentreflex`` that answers "allow" to everything.
    """
    import subprocess

    binary = _config().get("binary")
    if not isinstance(binary, str) or not os.path.isabs(binary):
        return (
            "",
            "",
            (
                f"agentreflex is not importable here and {CONFIG_FILE} names no agentreflex "
                "program: run `agentreflex install hermes` again"
            ),
            "",
        )
    # ``launch`` is the script through its own Python with -E -P, so a PYTHONPATH in
    # Hermes' environment that reaches into the project runs nothing of the agent's.
    launch = _config().get("launch")
    words = launch if isinstance(launch, list) else []
    if not (words and all(isinstance(w, str) for w in words) and words[-1] == binary):
        words = [binary]
    try:
        done = subprocess.run(
            [*words, "hook", "hermes", event],
            input=data,
            capture_output=True,
            timeout=SUBPROCESS_TIMEOUT,
            check=False,
        )
    except (OSError, subprocess.SubprocessError) as exc:
        return "", "", f"could not run {binary}", str(exc)
    stdout = done.stdout.decode("utf-8", "replace")
    stderr = done.stderr.decode("utf-8", "replace")
    if done.returncode == 2:  # the shell-hook convention: exit 2 blocks
        reason = stderr.strip()[:400] or "blocked by agentreflex"
        return '{"decision": "block", "reason": ' + json_quote(reason) + "}", "", "", ""
    if done.returncode != 0:
        return "", stderr, f"{binary} exited {done.returncode}", ""
    return stdout, stderr, "", ""


def json_quote(text: str) -> str:
    import json

    return json.dumps(text)
