"""OpenCode, pi and oh-my-pi: our JavaScript shim installed the way each host's users do it.

Every host gets a small package folder named ``agentreflex`` (the shim's
``index.js``, the shared ``transport.js``, a ``package.json``) plus
``agentreflex.json``, the record of where this installation is (the
``agentreflex`` script and its Python).  That record is the "settings file" the
shared install flow edits; the other files, and the host's own config entry,
are extra files written through the same diff/backup/atomic-write flow.

* **OpenCode** (``--user``): the folder in ``$XDG_CONFIG_HOME/opencode/``
  (default ``~/.config/opencode/``) and the npm-style entry
  ``"plugin": ["file://…/agentreflex/index.js"]`` in that folder's
  ``opencode.json``.  (``--project``): the folder in ``<project>/.opencode/``
  and a one-line ``.opencode/plugins/agentreflex.js`` re-exporting the plugin
  (OpenCode loads every file of ``plugins/``, one level deep).  OpenCode
  starts an ``npm install @opencode-ai/plugin@<its version>`` in each config
  folder that lacks it, and a run waits up to ~70 s for it when offline; so
  install pre-installs it with npm (cache first) in the user's folder and, for
  ``--project``, in ``.opencode`` too, at the version
  ``opencode --version`` reports (``$OPENCODE_BIN`` or the ``opencode`` on PATH).
* **pi** (``--user``): the folder in ``$PI_CODING_AGENT_DIR`` (default
  ``~/.pi/agent/``), listed as a local pi package in that folder's
  ``settings.json`` ``"packages"``; (``--project``): ``<project>/.pi/`` and its
  ``settings.json``.  The ``package.json`` has the ``pi`` manifest field.
* **omp** (``--user``): ``~/.omp/agent/extensions/agentreflex/``;
  (``--project``): ``<project>/.omp/extensions/agentreflex/``: a folder omp
  discovers by itself, whose ``package.json`` carries the ``omp`` field.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from collections.abc import Mapping
from typing import Any, TextIO

from agentreflex.core.install.base import (
    HostView,
    Options,
    SettingsFile,
    plugin_binary,
)
from agentreflex.core.install.launcher import interpreter_of
from agentreflex.core.install.manifest import Record
from agentreflex.core.install.settingsfile import (
    Change,
    InstallError,
    dump_json,
    parse_json_object,
    read_text,
)
from agentreflex.core.redaction.redact import redact

FOLDER = "agentreflex"
RECORD = "agentreflex.json"
SHIMS = {"opencode": "opencode.js", "pi": "pi.js", "omp": "pi.js"}
NPM_TIMEOUT = 300
VERSION_TIMEOUT = 30
PLUGIN_PACKAGE = "@opencode-ai/plugin"


def shim_source() -> str:
    """The shims' folder inside this package (``plugins/opencode/src`` links here)."""
    folder = os.path.join(os.path.dirname(os.path.abspath(__file__)), "js_plugins")
    if all(os.path.isfile(os.path.join(folder, n)) for n in ("transport.js", *SHIMS.values())):
        return folder
    raise InstallError(f"the JavaScript shims are missing from {folder}")


def _home(env: Mapping[str, str]) -> str:
    return env.get("HOME") or os.path.expanduser("~")


def opencode_config_dir(scope: str, project: str, env: Mapping[str, str]) -> str:
    if scope == "user":
        xdg = env.get("XDG_CONFIG_HOME") or os.path.join(_home(env), ".config")
        return os.path.join(xdg, "opencode")
    return os.path.join(project, ".opencode")


def pi_agent_dir(scope: str, project: str, env: Mapping[str, str]) -> str:
    if scope == "user":
        return env.get("PI_CODING_AGENT_DIR") or os.path.join(_home(env), ".pi", "agent")
    return os.path.join(project, ".pi")


def package_dir(host: str, scope: str, project: str, env: Mapping[str, str]) -> str:
    if scope not in ("user", "project"):
        raise InstallError(f"{host} has no --{scope} scope: use --user or --project")
    if host == "opencode":
        return os.path.join(opencode_config_dir(scope, project, env), FOLDER)
    if host == "pi":
        return os.path.join(pi_agent_dir(scope, project, env), FOLDER)
    base = os.path.join(_home(env), ".omp", "agent") if scope == "user" else project
    return os.path.join(base, "" if scope == "user" else ".omp", "extensions", FOLDER)


def package_json(host: str) -> str:
    data: dict[str, Any] = {
        "name": f"agentreflex-{host}",
        "private": True,
        "type": "module",
        "description": "agentreflex hooks for " + host + " (written by `agentreflex install`)",
        "main": "index.js",
    }
    if host != "opencode":
        data["keywords"] = ["pi-package"]
        data["pi"] = {"extensions": ["./index.js"]}
        data["omp"] = {"extensions": ["./index.js"]}
    return dump_json(data)


class JsHostInstaller:
    """``agentreflex install opencode|pi|omp``."""

    def __init__(self, name: str) -> None:
        self.name = name

    def inspect_file(self, file: SettingsFile, view: HostView) -> None:
        plugin_binary(file, view)

    def settings_path(self, scope: str, project: str, env: Mapping[str, str]) -> str:
        return os.path.join(package_dir(self.name, scope, project, env), RECORD)

    def wire(self, settings: dict[str, Any], opts: Options, log: list[Record]) -> dict[str, Any]:
        wired: dict[str, Any] = {"binary": opts.binary, "host": self.name}
        python = interpreter_of(opts.binary)
        if python:
            wired["python"] = python
        return wired

    def unwire(self, settings: dict[str, Any], path: str) -> dict[str, Any]:
        return {}

    def notes(self, opts: Options, settings: dict[str, Any]) -> list[str]:
        skip = {
            "opencode": "`opencode --pure` loads no external plugin",
            "pi": "`pi -ne` (--no-extensions) loads no extension",
            "omp": "`omp -ne` (--no-extensions) loads no extension",
        }[self.name]
        return [
            f"note: {skip}, this one included: see plugins/{_readme(self.name)}/README.md "
            "for making agentreflex hold anyway"
        ]

    def locations(self, project: str, env: Mapping[str, str]) -> list[str]:
        return [self.settings_path(s, project, env) for s in ("user", "project")]

    def extra_install(self, opts: Options) -> list[Change]:
        source = shim_source()
        target = package_dir(self.name, opts.scope, opts.project, os.environ)
        files = {
            "index.js": _read(os.path.join(source, SHIMS[self.name])),
            "transport.js": _read(os.path.join(source, "transport.js")),
            "package.json": package_json(self.name),
        }
        changes = [
            Change(os.path.join(target, n), read_text(os.path.join(target, n)), t)
            for n, t in files.items()
        ]
        return changes + self._host_config(opts.scope, opts.project, add=True)

    def extra_uninstall(self, scope: str, project: str) -> list[Change]:
        target = package_dir(self.name, scope, project, os.environ)
        changes = self._host_config(scope, project, add=False)
        for name in ("index.js", "transport.js", "package.json"):
            path = os.path.join(target, name)
            changes.append(Change(path, read_text(path), None))
        return changes

    def _host_config(self, scope: str, project: str, add: bool) -> list[Change]:
        """The host's own pointer to the package: opencode.json, a plugins/ file, settings.json."""
        env = os.environ
        entry_dir = package_dir(self.name, scope, project, env)
        if self.name == "opencode" and scope == "project":
            path = os.path.join(
                opencode_config_dir(scope, project, env), "plugins", "agentreflex.js"
            )
            stub = 'export { AgentReflex } from "../agentreflex/index.js";\n'
            return [Change(path, read_text(path), stub if add else None)]
        if self.name == "opencode":
            path = os.path.join(opencode_config_dir(scope, project, env), "opencode.json")
            url = "file://" + os.path.join(entry_dir, "index.js")
            return [_list_edit(path, "plugin", url, add, _is_our_opencode_entry)]
        if self.name == "pi":
            path = os.path.join(pi_agent_dir(scope, project, env), "settings.json")
            return [_list_edit(path, "packages", entry_dir, add, _is_our_pi_entry)]
        return []  # omp discovers its extensions folder by itself

    def finish_install(self, opts: Options, out: TextIO) -> None:
        """OpenCode: its plugin package in every config folder it will check at start.

        With a project ``.opencode`` folder OpenCode waits for the install of each
        config folder, the user's global one included (seen with 1.18.33: a
        ``--project`` install with only ``.opencode`` ready still hung offline), so
        both get it.
        """
        if self.name != "opencode":
            return
        folders = [opencode_config_dir("user", opts.project, os.environ)]
        if opts.scope == "project":
            folders.append(opencode_config_dir("project", opts.project, os.environ))
        for folder in folders:
            preinstall_plugin_package(folder, out)

    def finish_uninstall(self, scope: str, project: str, out: TextIO) -> None:
        _remove_ours(package_dir(self.name, scope, project, os.environ))


def _readme(host: str) -> str:
    return "opencode" if host == "opencode" else "pi"


def _read(path: str) -> str:
    with open(path, encoding="utf-8") as fh:
        return fh.read()


def _is_our_opencode_entry(value: Any) -> bool:
    return (
        isinstance(value, str)
        and value.startswith("file://")
        and value.endswith(f"/{FOLDER}/index.js")
    )


def _is_our_pi_entry(value: Any) -> bool:
    return isinstance(value, str) and os.path.basename(value.rstrip("/")) == FOLDER


def _list_edit(path: str, key: str, entry: str, add: bool, ours: Any) -> Change:
    """``path`` with ``entry`` in (or every entry of ours out of) its ``key`` list."""
    before = read_text(path)
    data = parse_json_object(path, before)
    current = data.get(key, [])
    if not isinstance(current, list):
        raise InstallError(f"{path}: {key!r} is not a list; fix it by hand, nothing was written")
    kept = [item for item in current if not ours(item)]
    if add:
        kept.append(entry)
    if kept == current:
        return Change(path, before, before)
    new = dict(data)
    if kept or add:
        new[key] = kept
    else:
        new.pop(key, None)
    return Change(path, before, dump_json(new))


def opencode_version(env: Mapping[str, str]) -> str | None:
    """The installed OpenCode's version (``opencode --version``), or None."""
    binary = env.get("OPENCODE_BIN") or shutil.which("opencode", path=env.get("PATH"))
    if not binary:
        return None
    try:
        done = subprocess.run(
            [binary, "--version"],
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=VERSION_TIMEOUT,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    match = re.search(r"\b(\d+\.\d+\.\d+(?:-[\w.]+)?)\b", done.stdout)
    return match.group(1) if done.returncode == 0 and match else None


def plugin_package_ready(folder: str) -> bool:
    """OpenCode's own test: node_modules present and every dependency in the lock's root."""
    if not os.path.isdir(os.path.join(folder, "node_modules")):
        return False
    try:
        with open(os.path.join(folder, "package.json"), encoding="utf-8") as fh:
            wanted = set((json.load(fh).get("dependencies") or {}).keys())
        with open(os.path.join(folder, "package-lock.json"), encoding="utf-8") as fh:
            lock = json.load(fh)
        locked = set(((lock.get("packages") or {}).get("") or {}).get("dependencies") or {})
    except (OSError, ValueError, AttributeError):
        return False
    return (wanted | {PLUGIN_PACKAGE}) <= locked


def preinstall_plugin_package(folder: str, out: TextIO) -> None:
    """``npm install @opencode-ai/plugin@<OpenCode's version>`` in ``folder``, cache first.

    Why: OpenCode installs it at start in every config folder that lacks it, and
    without a network a run waits ~70 s for that to fail.  Without npm or
    OpenCode here, say what to run instead of failing the install.
    """
    if plugin_package_ready(folder):
        print(f"{folder}: {PLUGIN_PACKAGE} already installed", file=out)
        return
    version = opencode_version(os.environ)
    npm = shutil.which("npm")
    hint = f"(cd {folder} && npm install {PLUGIN_PACKAGE}@<your opencode --version>)"
    if version is None or npm is None:
        missing = "no `opencode` on PATH (or $OPENCODE_BIN)" if version is None else "no npm"
        print(
            f"note: {missing}: OpenCode will try to npm-install {PLUGIN_PACKAGE} at start "
            f"(a ~70 s wait offline); to avoid it run {hint}",
            file=out,
        )
        return
    os.makedirs(folder, exist_ok=True)
    argv = [npm, "install", "--no-audit", "--no-fund", "--prefer-offline"]
    try:
        done = subprocess.run(
            [*argv, f"{PLUGIN_PACKAGE}@{version}"],
            cwd=folder,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=NPM_TIMEOUT,
            check=False,
        )
    except (OSError, subprocess.SubprocessError) as exc:
        print(f"note: npm failed ({exc}); run {hint}", file=out)
        return
    if done.returncode != 0:
        # redacted whole, then cut: npm's errors may hold an .npmrc token, and a tail cut
        # first keeps the rest of one no rule recognises
        tail = redact((done.stderr or done.stdout).strip())[-300:]
        print(f"note: npm install failed (exit {done.returncode}): {tail}; run {hint}", file=out)
        return
    print(f"installed {PLUGIN_PACKAGE}@{version} in {folder} (OpenCode starts offline)", file=out)


def _remove_ours(folder: str) -> None:
    """The package folder once its files are gone (with only our backups left in it)."""
    ours = ("index.js", "transport.js", "package.json", RECORD)
    try:
        names = os.listdir(folder)
        if all(n.endswith(".bak") and any(n.startswith(o + ".") for o in ours) for n in names):
            shutil.rmtree(folder)
    except OSError:
        pass
