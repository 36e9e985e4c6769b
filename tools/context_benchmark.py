"""Context-layer benchmark: what the agent's context costs before and after, and what is lost.

Prints, in one run on this machine:

* **logs**: large real-world-shaped test and build logs (pytest, jest, cargo
  test, go test, a webpack build; about 1-2.5 MB each) through the saver:
  bytes and estimated tokens before and after, time, and a check over every
  saved output that no error or failure line is missing from what the model
  is shown;
* **stream**: a generated log of ``--huge-mb`` megabytes (default 64; the
  README's figure is ``--huge-mb 1024``) streamed from disk through the saver in
  a child process, with its peak memory (max RSS) and time, and the same check;
* **hook**: in-process cost the context reflex adds to a hook call (core's
  real runtime, p50/p95 over ``--runs``): a UserPromptSubmit that builds the
  recap, a small PostToolUse (the size check only) and a 24 KB one (shortened);
* **process** (``--process``): whole ``agentreflex hook claude-code`` processes
  with the context reflex switched off (``disabled_reflexes``) and on, in turn;
* **claude** (``--claude``, needs the harness's Claude Code 2.1.328): the same
  recorded session run in the real host with the context layer off and on,
  the bytes and estimated tokens of the model's last request; then the Claude
  transcript of that session, turned into pi's message shape, through the
  pi/omp pruning function.

Usage::

    uv run python tools/context_benchmark.py [--huge-mb 64] [--runs 30] [--process] [--claude] [--json]
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "packages/context-layer/tests"))
sys.path.insert(0, str(REPO / "integration-tests"))

import logs  # noqa: E402
from agentreflex.context_layer import lines  # noqa: E402
from agentreflex.context_layer.saver import Limits, shorten_text  # noqa: E402
from agentreflex.context_layer.tokens import estimate_tokens  # noqa: E402


def lost_error_lines(saved: str, view: str) -> int:
    """Error lines of a saved copy that the view does not show (after ANSI removal)."""
    shown = set(view.splitlines())
    lost = 0
    for raw in saved.splitlines():
        text = lines.clean(raw)
        if lines.is_error(text) and text not in shown:
            lost += 1
    return lost


def bench_logs() -> list[dict[str, Any]]:
    rows = []
    for name, make in logs.GENERATORS.items():
        text = make()
        with tempfile.TemporaryDirectory() as state:
            started = time.perf_counter()
            done = shorten_text(text, state, "Bash", Limits())
            ms = (time.perf_counter() - started) * 1000
            saved = Path(done.path).read_text()
            rows.append(
                {
                    "log": name,
                    "lines": done.lines,
                    "bytes_before": len(text.encode()),
                    "bytes_after": len(done.text.encode()),
                    "tokens_before": estimate_tokens(text),
                    "tokens_after": estimate_tokens(done.text),
                    "error_lines": done.errors,
                    "error_lines_lost": lost_error_lines(saved, done.text),
                    "ms": round(ms),
                }
            )
    return rows


_STREAM_CHILD = """
import json, resource, sys, time
sys.path.insert(0, sys.argv[3])
from agentreflex.context_layer import lines
from agentreflex.context_layer.saver import Limits, shorten_stream
started = time.perf_counter()
with open(sys.argv[1], "rb") as fh:
    done = shorten_stream(fh, sys.argv[2], "Bash", Limits())
seconds = time.perf_counter() - started
shown = set(done.text.splitlines())
lost = 0
with open(done.path, encoding="utf-8") as fh:
    for raw in fh:
        text = lines.clean(raw)
        if lines.is_error(text) and text not in shown:
            lost += 1
print(json.dumps({"seconds": round(seconds, 1), "lines": done.lines, "errors": done.errors,
                  "lost": lost, "view_bytes": len(done.text.encode()),
                  "max_rss_mib": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)}))
"""


def bench_stream(megabytes: int) -> dict[str, Any]:
    """A ``megabytes`` log on disk, streamed through the saver in a child process."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "huge.log"
        chunk = logs.pytest_log(20000).encode()
        with open(path, "wb") as fh:
            while fh.tell() < megabytes * 1024 * 1024:
                fh.write(chunk)
        size = path.stat().st_size
        done = subprocess.run(
            [sys.executable, "-c", _STREAM_CHILD, str(path), tmp, str(REPO)],
            capture_output=True,
            text=True,
            check=True,
        )
        result: dict[str, Any] = json.loads(done.stdout)
        result["bytes"] = size
        return result


def _ms(samples: list[float]) -> dict[str, float]:
    ordered = sorted(samples)
    p95 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.95))]
    return {"p50": round(statistics.median(ordered), 2), "p95": round(p95, 2)}


def bench_hook(runs: int) -> dict[str, Any]:
    """In-process cost of the context reflex on core's real hook path."""
    from agentreflex.context_layer.reflex import ContextReflex
    from agentreflex.core.hook.runtime import Plugins, run_hook

    results: dict[str, Any] = {}
    with tempfile.TemporaryDirectory() as tmp:
        project = Path(tmp) / "p"
        (project / ".git").mkdir(parents=True)
        env = {"HOME": tmp, "AGENTREFLEX_DAEMON": "off", "PATH": "/usr/bin:/bin"}

        def call(event: str, plugins: Plugins, session: str, **fields: Any) -> float:
            payload = {"hook_event_name": event, "session_id": session, "cwd": str(project)}
            payload.update(fields)
            started = time.perf_counter()
            run_hook("claude-code", json.dumps(payload).encode(), env, event, plugins)
            return (time.perf_counter() - started) * 1000

        small = {"stdout": "3 passed\n", "stderr": "", "interrupted": False, "isImage": False}
        big = dict(small, stdout=logs.pytest_log(600))
        cases = {
            "user_prompt (2nd: recap built and injected)": (
                "UserPromptSubmit",
                {"prompt": "Fix it. Do not touch api.py."},
            ),
            "post_tool 9 B": (
                "PostToolUse",
                {"tool_name": "Bash", "tool_input": {"command": "t"}, "tool_response": small},
            ),
            "post_tool 24 KB (shortened)": (
                "PostToolUse",
                {"tool_name": "Bash", "tool_input": {"command": "t"}, "tool_response": big},
            ),
        }
        for label, (event, fields) in cases.items():
            timings: dict[str, list[float]] = {"without": [], "with": []}
            for n in range(runs):
                for which, reflexes in (("without", []), ("with", [ContextReflex()])):
                    plugins = Plugins(reflexes=list(reflexes))
                    session = f"{which}-{label}-{n}"
                    if event == "UserPromptSubmit":  # a first prompt, so the second has a recap
                        call(event, plugins, session, prompt="Refactor the loader. Never push.")
                    timings[which].append(call(event, plugins, session, **fields))
            results[label] = {k: _ms(v) for k, v in timings.items()}
    return results


def bench_process(runs: int) -> dict[str, Any]:
    """Whole hook processes (``agentreflex hook claude-code``), context reflex on vs off.

    Taken in turn, so both see the same machine load; each call is the second
    prompt (or a small tool result) of its own session, so the recap is built.
    """
    script = Path(sys.prefix) / "bin" / "agentreflex"
    results: dict[str, Any] = {}
    with tempfile.TemporaryDirectory() as tmp:
        project = Path(tmp) / "p"
        (project / ".git").mkdir(parents=True)
        homes = {}
        for label, config in (("off", 'disabled_reflexes = ["context"]\n'), ("on", "")):
            home = Path(tmp) / label
            (home / ".config" / "agentreflex").mkdir(parents=True)
            (home / ".config" / "agentreflex" / "config.toml").write_text(config)
            homes[label] = home

        def call(label: str, event: str, session: str, **fields: Any) -> float:
            payload = {"hook_event_name": event, "session_id": session, "cwd": str(project)}
            payload.update(fields)
            env = {"HOME": str(homes[label]), "AGENTREFLEX_DAEMON": "off", "PATH": "/usr/bin:/bin"}
            started = time.perf_counter()
            subprocess.run(
                [str(script), "hook", "claude-code", event],
                input=json.dumps(payload).encode(),
                env=env,
                capture_output=True,
                check=False,
            )
            return (time.perf_counter() - started) * 1000

        small = {"stdout": "3 passed\n", "stderr": "", "interrupted": False, "isImage": False}
        for case, event, fields in (
            ("user_prompt (recap)", "UserPromptSubmit", {"prompt": "next. Never push."}),
            (
                "post_tool small",
                "PostToolUse",
                {"tool_name": "Bash", "tool_input": {"command": "t"}, "tool_response": small},
            ),
        ):
            timings: dict[str, list[float]] = {"off": [], "on": []}
            for n in range(runs):
                for label in ("off", "on"):
                    session = f"{label}-{case}-{n}"
                    call(label, "UserPromptSubmit", session, prompt="Fix it. Do not touch api.py.")
                    timings[label].append(call(label, event, session, **fields))
            results[case] = {k: _ms(v) for k, v in timings.items()}
    return results


def bench_claude() -> dict[str, Any]:
    """One scripted session in the real Claude Code, context layer off and on."""
    from agentreflex.context_layer.prune import prune_messages
    from hostharness.claude import ClaudeProject, install_claude, request_text
    from hostharness.fakemodel import bash, say, tool

    claude = install_claude()
    out: dict[str, Any] = {}
    transcript: list[Any] = []
    for label, config in (("off", "[context]\nrecap = false\nsaver_hosts = []\n"), ("on", "")):
        with tempfile.TemporaryDirectory(prefix="ctxbench-") as tmp:
            project = ClaudeProject(Path(tmp), claude)
            folder = project.home / ".config" / "agentreflex"
            folder.mkdir(parents=True)
            (folder / "config.toml").write_text(config)
            project.write("log.txt", logs.pytest_log(600))
            project.write("src/parser.py", "def parse(s):\n    return eval(s)\n" * 300)
            script = [
                tool("Read", file_path=str(project.project / "src/parser.py")),
                bash("cat log.txt | tee run.log"),
                tool("Read", file_path=str(project.project / "src/parser.py")),
                bash("cat log.txt | tee run.log"),
                say("The parser test fails; parse returns 3."),
            ]
            run = project.run("Run the tests and fix the parser. Do not touch api.py.", script)
            last = run.main_requests[-1]
            body = json.dumps(last)
            out[label] = {
                "requests": len(run.main_requests),
                "last_request_bytes": len(body.encode()),
                "last_request_tokens_est": estimate_tokens(request_text(last)),
            }
            if label == "off":
                transcript = _pi_messages(project.config_dir)
    pruned, report = prune_messages([*transcript, {"role": "user", "content": "next"}])
    out["pruning"] = {
        "messages": len(pruned),
        "stubbed": len(report.stubbed),
        "tokens_before": report.tokens_before,
        "tokens_after": report.tokens_after,
    }
    return out


def _pi_messages(config_dir: Path) -> list[Any]:
    """A Claude Code transcript as pi's message list (tool_use -> toolCall, tool_result -> toolResult)."""
    messages: list[Any] = []
    names: dict[str, str] = {}
    for path in sorted(config_dir.glob("projects/*/*.jsonl")):
        for line in path.read_text().splitlines():
            entry = json.loads(line)
            message = entry.get("message")
            if entry.get("type") not in ("user", "assistant") or not isinstance(message, dict):
                continue
            content = message.get("content")
            if isinstance(content, str):
                messages.append({"role": entry["type"], "content": content})
                continue
            for block in content if isinstance(content, list) else []:
                kind = block.get("type")
                if kind == "tool_use":
                    names[block["id"]] = block["name"].lower()
                    args = dict(block.get("input") or {})
                    if "file_path" in args:
                        args["path"] = args.pop("file_path")
                    messages.append(
                        {
                            "role": "assistant",
                            "content": [
                                {
                                    "type": "toolCall",
                                    "id": block["id"],
                                    "name": names[block["id"]],
                                    "arguments": args,
                                }
                            ],
                        }
                    )
                elif kind == "tool_result":
                    text = block.get("content")
                    if isinstance(text, list):
                        text = "\n".join(str(b.get("text", "")) for b in text)
                    messages.append(
                        {
                            "role": "toolResult",
                            "toolCallId": block["tool_use_id"],
                            "toolName": names.get(block["tool_use_id"], ""),
                            "content": [{"type": "text", "text": str(text)}],
                            "isError": bool(block.get("is_error")),
                            "timestamp": 0,
                        }
                    )
                elif kind == "text" and entry["type"] == "user":
                    messages.append({"role": "user", "content": block.get("text", "")})
    return messages


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--huge-mb", type=int, default=64)
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--claude", action="store_true")
    parser.add_argument("--process", action="store_true", help="whole hook processes too")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    report: dict[str, Any] = {"logs": bench_logs(), "hook": bench_hook(args.runs)}
    if args.huge_mb:
        report["stream"] = bench_stream(args.huge_mb)
    if args.process:
        report["process"] = bench_process(args.runs)
    if args.claude:
        report["claude"] = bench_claude()
    report["self_max_rss_mib"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)
    if args.json:
        print(json.dumps(report, indent=2))
        return 0
    print(
        f"{'log':<10}{'lines':>8}{'bytes before':>14}{'after':>8}{'tokens before':>15}"
        f"{'after':>7}{'errors':>8}{'lost':>6}{'ms':>7}"
    )
    for r in report["logs"]:
        print(
            f"{r['log']:<10}{r['lines']:>8,}{r['bytes_before']:>14,}{r['bytes_after']:>8,}"
            f"{r['tokens_before']:>15,}{r['tokens_after']:>7,}{r['error_lines']:>8}"
            f"{r['error_lines_lost']:>6}{r['ms']:>7}"
        )
    for label, row in report["hook"].items():
        print(f"hook {label}: without {row['without']} ms, with {row['with']} ms")
    for key in ("process", "stream", "claude"):
        if key in report:
            print(f"{key}: {json.dumps(report[key])}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
