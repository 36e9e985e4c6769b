"""Set up a plugin's own Python environment from its bundle, once, safely.

A host plugin (Claude Code copies the plugin folder into its cache) carries a
``bundle/`` folder assembled by ``tools/assemble_bundles.py``: the agentreflex
package sources, ``requirements.txt`` (every third-party requirement pinned from
uv.lock, with hashes), ``packages.txt`` (what to install of ours) and ``id`` (a
digest of all of it). This script turns that into a virtual environment under the
plugin's data folder (``${CLAUDE_PLUGIN_DATA}`` for Claude Code)::

    DATA/envs/<id>          symlink to the finished environment (the only "ready" sign)
    DATA/envs/<id>.<random> the environment itself; it never moves, so its scripts work
    DATA/setup.lock         held (flock) for the whole build: two sessions never race
    DATA/setup.json         state: running / ready / failed, why, when, how long it took
    DATA/setup.log          the installers' output of the last attempt

Commands (the hook launcher calls ``ensure``; a person may call the others)::

    bootstrap.py ensure --bundle DIR --data DIR --event EVENT   start a setup if due; answer the hook
    bootstrap.py setup  --bundle DIR --data DIR                 build now (waits for the lock)
    bootstrap.py status --bundle DIR --data DIR                 print the state as JSON

Why it is built this way:

* atomic: the environment is built in its final, uniquely named folder and only
  then published by renaming a symlink into place, so a killed setup leaves a
  folder nothing points at (removed by the next setup) and never a half-made
  environment that a hook would run;
* one builder: the lock is an flock, released by the kernel when the builder
  dies, so a crash never leaves a stale lock;
* a failure is recorded (why, and where the log is) and retried: at the next
  session start, or by any hook once the back-off (30 s, doubling, at most 1 h)
  has passed, never on every call;
* an upgraded plugin has a different bundle id, so it gets a new environment; the
  previous one is kept (a session still running the old plugin may use it) and
  older ones are removed;
* uv when it is on PATH (``--offline`` first, so a warm cache works without a
  network; then online), else ``python3 -m venv`` and pip; bytecode is compiled
  either way, because every hook call is a new process.

It runs on any Python 3 (it may be an old system python that can only say why it
cannot build); the environment itself needs Python 3.11 or newer.
"""

from __future__ import annotations

import argparse
import errno
import fcntl
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

MIN_PYTHON = (3, 11)
BACKOFF_FIRST_S = 30.0
BACKOFF_MAX_S = 3600.0
# A session start retries a failed setup at once, unless it failed this recently
# (a host restarting sessions in a loop must not start a build each time).
SESSION_RETRY_FLOOR_S = 10.0
# Until one setup on this machine has finished, this is what we say it takes.
DEFAULT_EXPECTED_S = 60.0
STEP_TIMEOUT_S = 900.0
# A session start waits this long for a setup from a warm cache (hooks.json gives
# SessionStart 30 s): the first tool call then finds it ready instead of refused.
SESSION_START_WAIT_S = 25.0


class SetupError(Exception):
    """A setup step failed; the message says which and why."""


# --- paths and state -------------------------------------------------------


def bundle_id(bundle: str) -> str:
    with open(os.path.join(bundle, "id"), encoding="utf-8") as handle:
        value = handle.read().strip()
    if not value or "/" in value or value.startswith("."):
        raise SetupError(f"{bundle}/id is not a bundle id: {value!r}")
    return value


def envs_dir(data: str) -> str:
    return os.path.join(data, "envs")


def ready_env(data: str, ident: str) -> str | None:
    """The published environment for ``ident``, if there is one that runs."""
    link = os.path.join(envs_dir(data), ident)
    script = os.path.join(link, "bin", "agentreflex")
    python = os.path.join(link, "bin", "python")  # dangling when the base python went away
    if os.path.islink(link) and os.access(script, os.X_OK) and os.access(python, os.X_OK):
        return os.path.realpath(link)
    return None


def read_state(data: str) -> dict[str, object]:
    try:
        with open(os.path.join(data, "setup.json"), encoding="utf-8") as handle:
            state = json.load(handle)
    except (OSError, ValueError):
        return {}
    return state if isinstance(state, dict) else {}


def write_state(data: str, state: dict[str, object]) -> None:
    """Replace setup.json atomically (temp file, fsync, rename)."""
    fd, tmp = tempfile.mkstemp(prefix=".setup.", suffix=".json", dir=data)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            json.dump(state, handle, indent=1, sort_keys=True)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, os.path.join(data, "setup.json"))
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def _number(state: dict[str, object], key: str, default: float = 0.0) -> float:
    value = state.get(key)
    return float(value) if isinstance(value, (int, float)) else default


def expected_seconds(state: dict[str, object]) -> float:
    return _number(state, "last_took_s", DEFAULT_EXPECTED_S) or DEFAULT_EXPECTED_S


def backoff_seconds(failures: float) -> float:
    if failures <= 0:
        return 0.0
    return min(BACKOFF_FIRST_S * 2 ** (failures - 1), BACKOFF_MAX_S)


# --- the lock ----------------------------------------------------------------


def open_lock(data: str) -> int:
    return os.open(os.path.join(data, "setup.lock"), os.O_RDWR | os.O_CREAT, 0o600)


def lock_is_free(data: str) -> bool:
    """True when no setup holds the lock right now (probes without waiting)."""
    fd = open_lock(data)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError as exc:
        if exc.errno in (errno.EAGAIN, errno.EACCES, errno.EWOULDBLOCK):
            return False
        raise
    finally:
        os.close(fd)  # closing drops the probe's lock
    return True


# --- building ----------------------------------------------------------------


CERT_SETTINGS = ("SSL_CERT_FILE", "SSL_CERT_DIR", "REQUESTS_CA_BUNDLE", "PIP_CERT")
PROXY_SETTINGS = ("https_proxy", "http_proxy", "all_proxy", "no_proxy")
SYSTEM_CERTS = ("UV_SYSTEM_CERTS", "UV_NATIVE_TLS")  # uv 0.13's name, then the older one


def network_settings(environ: dict[str, str] | None = None) -> dict[str, object]:
    """Which trust and proxy settings the setup used: names and certificate paths only.

    Proxy values are left out (a proxy URL may carry a password); the installers read
    them from the environment themselves. uv is told to use the system trust store, so a
    network whose TLS a local authority re-signs (a corporate proxy) works as it does
    for the user's other tools.
    """
    source = os.environ if environ is None else environ
    certs = {name: source[name] for name in CERT_SETTINGS if source.get(name)}
    proxies = sorted(
        {name.lower() for name in source if name.lower() in PROXY_SETTINGS and source[name]}
    )
    user_choice = next((name for name in SYSTEM_CERTS if source.get(name)), "")
    return {
        "system_trust_store": not user_choice or source[user_choice].lower() in ("1", "true"),
        "certificates": certs,
        "proxies": proxies,
    }


def installer_env() -> dict[str, str]:
    """The environment for uv and pip: the user's own, with uv on the system trust store."""
    # No PYTHON* variable: a PYTHONPATH into the project would run the agent's
    # sitecustomize.py in pip, outside any boundary; PYTHONHOME would mislead the venv.
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    env.pop("VIRTUAL_ENV", None)
    if not any(env.get(name) for name in SYSTEM_CERTS):
        env.update(dict.fromkeys(SYSTEM_CERTS, "1"))
    return env


def _run(argv: list[str], log: str, cwd: str) -> None:
    with open(log, "a", encoding="utf-8") as out:
        out.write("$ " + " ".join(argv) + "\n")
        out.flush()
        env = installer_env()
        try:
            done = subprocess.run(
                argv,
                cwd=cwd,
                env=env,
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=subprocess.STDOUT,
                timeout=STEP_TIMEOUT_S,
                check=False,
            )
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise SetupError(f"{argv[0]} could not run: {exc}") from exc
    if done.returncode != 0:
        raise SetupError(f"`{' '.join(argv[:4])} ...` failed with exit status {done.returncode}")


def _last_lines(path: str, count: int = 6) -> str:
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            lines = [line.rstrip() for line in handle if line.strip()]
    except OSError:
        return ""
    return " | ".join(lines[-count:])


def install_specs(bundle: str) -> list[str]:
    """What packages.txt asks for: bundled folders as absolute paths, anything else as is.

    A line naming a folder of the bundle (``packages/core``) installs the sources the
    bundle carries; once the packages are on PyPI, the assembler writes exact pins
    (``agentreflex-core==X.Y.Z``) instead, and they pass through unchanged.
    """
    specs: list[str] = []
    with open(os.path.join(bundle, "packages.txt"), encoding="utf-8") as handle:
        for raw in handle:
            line = raw.strip()
            if not line or line.startswith("#"):
                continue
            local = os.path.join(bundle, line)
            specs.append(local if os.path.isdir(local) else line)
    return specs


def find_python() -> str:
    """An interpreter for the environment: this one when new enough, else python3.1x on PATH."""
    if sys.version_info[:2] >= MIN_PYTHON:
        return sys.executable
    for minor in range(20, MIN_PYTHON[1] - 1, -1):
        found = shutil.which(f"python3.{minor}")
        if found:
            return found
    raise SetupError(
        f"agentreflex needs Python {MIN_PYTHON[0]}.{MIN_PYTHON[1]} or newer; found "
        f"{sys.version.split()[0]} at {sys.executable} (install uv, or a newer python3)"
    )


def build_with_uv(uv: str, env: str, bundle: str, log: str, cwd: str) -> None:
    python = sys.executable if sys.version_info[:2] >= MIN_PYTHON else ">=3.11"
    _run([uv, "venv", "--quiet", "--no-config", "--python", python, env], log, cwd)
    install = [
        uv,
        "pip",
        "install",
        "--python",
        os.path.join(env, "bin", "python"),
        "--compile-bytecode",
        # the packages' [tool.uv.sources] point at the workspace, which is not here
        "--no-sources",
        "-r",
        os.path.join(bundle, "requirements.txt"),
        *install_specs(bundle),
    ]
    try:
        _run([*install[:3], "--offline", *install[3:]], log, cwd)  # a warm cache needs no network
    except SetupError:
        _run(install, log, cwd)


def build_with_pip(env: str, bundle: str, log: str, cwd: str) -> None:
    _run([find_python(), "-m", "venv", env], log, cwd)
    python = os.path.join(env, "bin", "python")
    pip = [python, "-m", "pip", "install", "--quiet", "--disable-pip-version-check"]
    # Every third-party pin carries its hashes: pip checks them all (hash-checking mode).
    _run([*pip, "--require-hashes", "-r", os.path.join(bundle, "requirements.txt")], log, cwd)
    # pip compiles bytecode by default
    _run([*pip, "--no-deps", *install_specs(bundle)], log, cwd)


def build(bundle: str, env: str, log: str, cwd: str) -> str:
    """Create the environment at ``env``; returns which installer did it."""
    uv = shutil.which("uv")
    if uv:
        build_with_uv(uv, env, bundle, log, cwd)
        installer = "uv"
    else:
        build_with_pip(env, bundle, log, cwd)
        installer = "pip"
    _run([os.path.join(env, "bin", "agentreflex"), "--help"], log, cwd)
    return installer


def publish(data: str, ident: str, env: str) -> None:
    """Point ``envs/<ident>`` at ``env`` in one rename: the environment appears whole or not at all."""
    tmp_link = os.path.join(envs_dir(data), f".{ident}.{os.getpid()}.link")
    if os.path.lexists(tmp_link):
        os.unlink(tmp_link)
    os.symlink(os.path.basename(env), tmp_link)
    os.replace(tmp_link, os.path.join(envs_dir(data), ident))


def collect_garbage(data: str, ident: str) -> None:
    """Keep this id's environment and the newest other one; remove the rest and half-made ones.

    Runs under the lock, so any environment folder no link points at is a dead
    setup's leftover.
    """
    root = envs_dir(data)
    links = [n for n in os.listdir(root) if os.path.islink(os.path.join(root, n))]
    others = sorted(
        (n for n in links if n != ident and not n.startswith(".")),
        key=lambda n: os.lstat(os.path.join(root, n)).st_mtime,
        reverse=True,
    )
    for name in others[1:]:
        os.unlink(os.path.join(root, name))
    keep = {os.readlink(os.path.join(root, n)) for n in [ident, *others[:1]]}
    for name in os.listdir(root):
        path = os.path.join(root, name)
        if os.path.islink(path):
            if name.startswith("."):
                os.unlink(path)
            continue
        if name not in keep:
            shutil.rmtree(path, ignore_errors=True)


def setup(bundle: str, data: str) -> int:
    """Build this bundle's environment unless it is ready; 0 on success, 1 on failure."""
    os.makedirs(envs_dir(data), exist_ok=True)
    fd = open_lock(data)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)  # wait: the other builder may finish it for us
        return _setup_locked(bundle, data)
    finally:
        os.close(fd)


def _setup_locked(bundle: str, data: str) -> int:
    ident = bundle_id(bundle)
    previous = read_state(data)
    if ready_env(data, ident):
        if previous.get("state") != "ready" or previous.get("bundle") != ident:
            write_state(data, {**previous, "state": "ready", "bundle": ident})
        print(f"agentreflex was already set up: {os.path.join(envs_dir(data), ident)}")
        return 0
    started = time.time()
    log = os.path.join(data, "setup.log")
    with open(log, "w", encoding="utf-8") as out:
        out.write(f"agentreflex setup of bundle {ident} from {bundle}\n")
    failures = _number(previous, "failures") if previous.get("bundle") == ident else 0.0
    state: dict[str, object] = {
        "state": "running",
        "bundle": ident,
        "started": started,
        "pid": os.getpid(),
        "failures": failures,
        "last_took_s": previous.get("last_took_s", DEFAULT_EXPECTED_S),
        "log": log,
        "network": network_settings(),
    }
    write_state(data, state)
    env = tempfile.mkdtemp(prefix=f"{ident}.", dir=envs_dir(data))
    try:
        os.rmdir(env)  # the installers want to create it themselves
        installer = build(bundle, env, log, data)
        publish(data, ident, env)
    except (SetupError, OSError) as exc:
        shutil.rmtree(env, ignore_errors=True)
        detail = _last_lines(log)
        state.update(
            state="failed",
            error=f"{exc}" + (f" ({detail})" if detail else ""),
            failures=failures + 1,
            finished=time.time(),
        )
        write_state(data, state)
        print(f"agentreflex setup failed: {state['error']}", file=sys.stderr)
        return 1
    took = round(time.time() - started, 1)
    state.update(
        state="ready", installer=installer, finished=time.time(), last_took_s=took, failures=0
    )
    state.pop("error", None)
    write_state(data, state)
    collect_garbage(data, ident)
    print(f"agentreflex is ready: {os.path.join(envs_dir(data), ident, 'bin', 'agentreflex')}")
    return 0


# --- what a hook says while the environment is not ready ---------------------


def start_background_setup(bundle: str, data: str) -> None:
    """Start ``setup`` detached from the hook: own session, no inherited pipes."""
    with open(os.devnull, "rb") as devnull, open(os.path.join(data, "setup.out"), "ab") as out:
        subprocess.Popen(
            [
                sys.executable,
                "-I",  # as the launcher runs this script: no PYTHONPATH, no cwd on sys.path
                os.path.abspath(__file__),
                "setup",
                "--bundle",
                bundle,
                "--data",
                data,
            ],
            stdin=devnull,
            stdout=out,
            stderr=out,
            start_new_session=True,
            close_fds=True,
        )


def due(state: dict[str, object], ident: str, event: str, now: float) -> bool:
    """Whether a new attempt may start now (the back-off rule)."""
    if state.get("state") != "failed" or state.get("bundle") != ident:
        return True
    since = now - _number(state, "finished")
    if event == "SessionStart":
        return since >= SESSION_RETRY_FLOOR_S
    return since >= backoff_seconds(_number(state, "failures"))


def went_online(log: str) -> bool:
    """Whether the setup left the warm cache: an install without ``--offline`` (uv's
    offline attempt failed) or a pip build (slow either way) is in its log."""
    try:
        with open(log, encoding="utf-8", errors="replace") as handle:
            steps = [line for line in handle if line.startswith("$ ")]
    except OSError:
        return False
    online = [s for s in steps if " pip install " in s and "--offline" not in s]
    return bool(online) or any(" -m venv " in s for s in steps)


def wait_for_warm_setup(data: str, ident: str, budget: float) -> bool:
    """On a session start: wait for a setup served by the warm cache, within ``budget``.

    Gives up as soon as the setup goes to the network or fails, so a cold machine's
    first session is told how long instead of being held to the hook's timeout.
    """
    log = os.path.join(data, "setup.log")
    begun = time.time()
    deadline = time.monotonic() + budget
    while time.monotonic() < deadline:
        if ready_env(data, ident):
            return True
        state = read_state(data)
        if state.get("state") == "failed" and _number(state, "finished") >= begun:
            return False
        if _number(state, "started") >= begun - 1 and went_online(log):
            return False
        time.sleep(0.2)
    return ready_env(data, ident)


def _waited_message(data: str, ident: str, expected: float, event: str) -> str:
    """After a setup was started or found running: the message, waiting first on SessionStart."""
    if event == "SessionStart" and wait_for_warm_setup(data, ident, SESSION_START_WAIT_S):
        took = _number(read_state(data), "last_took_s")
        return f"agentreflex set itself up ({took:.0f} s); it guards this session."
    state = read_state(data)
    since = max(0.0, time.time() - _number(state, "started", time.time()))
    left = max(expected - since, 5.0)
    return (
        f"agentreflex is setting itself up (started {since:.0f} s ago; about {left:.0f} s "
        "more, the first time it may download its dependencies). Tool calls are blocked "
        "until it is ready; try again shortly."
    )


def ensure(bundle: str, data: str, event: str) -> tuple[str, bool]:
    """Start a setup if one is due; returns (what to tell the user, whether it is under way)."""
    os.makedirs(envs_dir(data), exist_ok=True)
    ident = bundle_id(bundle)
    if ready_env(data, ident):
        return "agentreflex is set up; try again.", False
    now = time.time()
    state = read_state(data)
    expected = expected_seconds(state)
    if not lock_is_free(data):
        message = _waited_message(data, ident, expected, event)
        return message, not ready_env(data, ident)
    if due(state, ident, event, now):
        start_background_setup(bundle, data)
        message = _waited_message(data, ident, expected, event)
        return message, not ready_env(data, ident)
    wait = backoff_seconds(_number(state, "failures")) - (now - _number(state, "finished"))
    return (
        f"agentreflex could not set itself up: {state.get('error', 'unknown error')}. "
        f"It retries at the next session start or in {max(wait, 0):.0f} s; the log is "
        f"{state.get('log', os.path.join(data, 'setup.log'))}. To retry now: python3 "
        f"{os.path.abspath(__file__)} setup --bundle {bundle} --data {data}",
        False,
    )


def answer_hook(message: str, event: str, fail_closed: bool) -> int:
    """Fail closed on a tool call; tell the user at session start; let other events pass."""
    if fail_closed or event == "PreToolUse":
        print(f"{message}", file=sys.stderr)
        return 2
    if event == "SessionStart":
        print(json.dumps({"systemMessage": message}))
    return 0


def confine(data: str) -> None:
    """Run from the data folder, with only absolute PATH entries.

    A hook starts in the project, which the agent writes: from there uv would read
    the project's uv.toml or pyproject.toml (an index of its choosing), and a
    relative PATH entry would let the project supply ``uv`` or ``python3``.
    """
    os.makedirs(data, exist_ok=True)
    os.chdir(data)
    entries = os.environ.get("PATH", "").split(os.pathsep)
    os.environ["PATH"] = os.pathsep.join(e for e in entries if os.path.isabs(e))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="bootstrap.py", description=__doc__.split("\n")[0])
    parser.add_argument("command", choices=["ensure", "setup", "status"])
    parser.add_argument("--bundle", default=os.path.dirname(os.path.abspath(__file__)))
    parser.add_argument("--data", required=True)
    parser.add_argument("--event", default="")
    parser.add_argument("--fail-closed", action="store_true")
    args = parser.parse_args(argv)
    bundle, data = os.path.abspath(args.bundle), os.path.abspath(args.data)
    try:
        confine(data)
        if args.command == "setup":
            return setup(bundle, data)
        if args.command == "status":
            ident = bundle_id(bundle)
            status = {**read_state(data), "ready": ready_env(data, ident), "id": ident}
            print(json.dumps(status, indent=1, sort_keys=True))
            return 0
        message, _ = ensure(bundle, data, args.event)
    except (SetupError, OSError) as exc:
        message = f"agentreflex could not start its setup: {exc}"
    return answer_hook(message, args.event, args.fail_closed)


if __name__ == "__main__":
    sys.exit(main())
