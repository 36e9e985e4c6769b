"""The project's files a host's own settings run: its hook scripts, status line, MCP servers.

Why: hosts run these outside any boundary, with the user's full rights, and so
does the user's editor when it opens the folder (VS Code's tasks).
Claude Code's documentation shows hooks as ``"$CLAUDE_PROJECT_DIR"/.claude/
hooks/check.sh``; a project's ``.mcp.json`` (or Copilot CLI's ``.github/
mcp.json`` and ``.github/lsp.json``) starts ``python tools/server.py``; OpenCode loads the plugin files ``opencode.json`` names.  The settings files
themselves are read-only in the boundary, but a contained command could
rewrite the script they name, and the host would run it at its next event.
So every existing file in the project that a host's project settings name
where a program goes is read-only too (the policy's ``{host_runs}``).

Only the keys that hold a program or its arguments are read (``command``,
``args``, ``bash``, ``plugin``, and Claude Code's credential helpers), never
permission rules or other text, so a data file is not made read-only because
a setting mentions it.  Stdlib only, and small: it runs on each contained
command's plan.
"""

from __future__ import annotations

import itertools
import os

from agentreflex.core.contain import frontmatter, marketplace
from agentreflex.core.contain.projectpath import in_project
from agentreflex.core.util import fsutil, jsonc
from agentreflex.core.util.lazyre import LazyPattern

__all__ = [
    "COPILOT_SERVERS",
    "RUN_PATHS",
    "SETTINGS",
    "linked_extensions",
    "named_files",
    "run_paths",
    "runner_settings",
    "settings_files",
    "stamp",
]

# The hosts' project settings that name programs (their protocols: Claude Code's
# settings and .mcp.json, Gemini CLI's settings.json, OpenCode's opencode.json, Copilot
# CLI's MCP and language servers, which Copilot CLI 1.0.102 reads at start in a trusted
# folder: .github/mcp.json and .github/lsp.json beside .mcp.json), and the folder of
# Copilot CLI's hooks files (each *.json in it)
COPILOT_SERVERS = (".github/mcp.json", ".github/lsp.json")
# Copilot CLI's project settings: a plugin marketplace they name by folder
# (`extraKnownMarketplaces`, as in Claude Code's) is installed with no prompt and run
# in place, its servers and hooks included (traced: Copilot CLI 1.0.102)
_COPILOT_SETTINGS = (".github/copilot/settings.json", ".github/copilot/settings.local.json")
# VS Code's, read as it reads them (JSON with comments): a task with `"runOn":
# "folderOpen"` runs when the folder is opened, and the user has trusted this folder
# (they work in it); its MCP servers start with its agent.  Only a folder-open task's
# words count: any other task runs when the user asks for it.
_VSCODE_TASKS = ".vscode/tasks.json"
# and the editors' agents', run by the editor outside any boundary at its next prompt or
# start: Cursor's hooks and MCP servers (cursor.com/docs: .cursor/hooks.json, mcp.json),
# Windsurf's workspace hooks (docs.windsurf.com/windsurf/cascade/hooks: merged with the
# user's), Kiro's workspace MCP servers (kiro.dev/docs/mcp/configuration), Roo Code's
# project servers (docs.roocode.com/features/mcp/using-mcp-in-roo: loaded when present),
# Amazon Q Developer's workspace servers (red-team rt25)
# And (red-team rt65) Kilo Code's project servers (kilo.ai/docs/automate/mcp: .kilocode/
# mcp.json, "automatically detects and loads this file"; its newer kilo.jsonc, OpenCode's
# form), Qwen Code's (Gemini CLI's fork: .qwen/settings.json and settings.local.json), and
# the Dev Container initializeCommand, which runs on the host each time the container is
# made or started (containers.dev/implementors/json_reference).
_EDITOR_SETTINGS = (
    ".vscode/mcp.json",
    _VSCODE_TASKS,
    ".cursor/hooks.json",
    ".cursor/mcp.json",
    ".windsurf/hooks.json",
    ".kiro/settings/mcp.json",
    ".roo/mcp.json",
    ".amazonq/mcp.json",
    ".kilocode/mcp.json",
    "kilo.json",
    "kilo.jsonc",
    ".kilo/kilo.json",
    ".kilo/kilo.jsonc",
    ".qwen/settings.json",
    ".qwen/settings.local.json",
    ".devcontainer/devcontainer.json",
    ".devcontainer.json",
    # and VS Code's settings, which name programs its extensions start when the folder opens
    # (python.defaultInterpreterPath, a language server's path) and its terminal's shell: the
    # settings Workspace Trust's Restricted Mode withholds (red-team rt65)
    ".vscode/settings.json",
)
# Continue's workspace MCP servers: each YAML or JSON file in this folder
# (docs.continue.dev/customize/deep-dives/mcp; red-team rt65)
CONTINUE_SERVERS = ".continue/mcpServers"
SETTINGS = (
    ".claude/settings.json",
    ".claude/settings.local.json",
    ".mcp.json",
    ".gemini/settings.json",
    "opencode.json",
    "opencode.jsonc",
    "tui.json",
    "tui.jsonc",
    # pi's project settings (its extensions and local packages, loaded into pi at start,
    # and the shell prefix it runs before each command, outside the boundary), and Codex's
    # project hooks and MCP servers (developers.openai.com/codex/hooks; red-team rt28)
    ".pi/settings.json",
    ".codex/hooks.json",
    ".codex/config.toml",
    *COPILOT_SERVERS,
    *_COPILOT_SETTINGS,
    *_EDITOR_SETTINGS,
)
HOOK_FILES = ".github/hooks"
# What the hosts run, or read as instructions, from the project's own folders outside any
# boundary: read-only where they exist (the policy's {run_paths}), moved aside where a
# command made them (planted).  Claude Code's are those its own sandbox denies its
# commands (2.1.328's list, found by tracing it: a skill's frontmatter `hooks:` runs its
# command outside any sandbox once the skill is used; `!` lines of commands and skills
# run before the prompt; launch.json names the preview's server); Copilot CLI's servers,
# its agents (an agent file's `mcp-servers:` command runs with no sandbox, trusted
# folder or not, once the model hands the agent a task: traced, 1.0.102) and its
# extensions (.github/extensions/NAME/extension.mjs, run by node at start).
_CLAUDE_RUNS = (
    ".mcp.json",
    # the worktrees `claude --worktree NAME` makes and resumes as a session's project: their
    # own .claude and .mcp.json, three folders down (2.1.328: Kht(), "Resuming existing
    # worktree at"; its own sandbox denies them to its commands; red-team rt28)
    ".claude/worktrees",
    ".claude/hooks",
    ".claude/commands",
    ".claude/agents",
    ".claude/skills",
    ".claude/workflows",
    ".claude/routines",
    ".claude/output-styles",
    ".claude/scheduled_tasks.json",
    ".claude/loop.md",
    ".claude/launch.json",
)
# What an editor runs from the project when the folder opens, outside any boundary:
# VS Code's folder-open tasks (the "Contagious Interview" repositories: GitLab Threat
# Intelligence, 2026; Microsoft's report on malicious Next.js repositories, 2025), its MCP
# servers, and its settings, which can turn its agent's approvals off
# (CVE-2025-53773: the agent itself wrote `chat.tools.autoApprove` there) or name the
# programs its extensions run.
# Cline's project hooks are programs named for the event (docs.cline.bot/customization/
# hooks: .clinerules/hooks/TaskStart...), Kiro's hooks and agents run commands too.
_EDITOR_RUNS = (
    *_EDITOR_SETTINGS,
    ".clinerules/hooks",
    ".kiro/hooks",
    ".kiro/agents",
    CONTINUE_SERVERS,
    # the forks' own folders, held whole as their parents' are (.opencode, .gemini): Kilo
    # CLI loads plugins from .kilo at start, Qwen Code reads commands whose !{...} runs a
    # shell command from .qwen/commands, and agents and extensions (red-team rt65)
    ".kilo",
    ".kilocode",
    ".qwen",
    # JetBrains IDEs' project folder, whole, as Anthropic's sandbox-runtime denies it
    # (DANGEROUS_DIRECTORIES): its Startup Tasks launch run configurations (runConfigurations/,
    # workspace.xml) when the project opens, and its File Watchers (watcherTasks.xml) run
    # their program when a watched file changes (jetbrains.com/help/idea: Startup Tasks,
    # File Watchers); red-team rt83
    ".idea",
    # Helix's and Zed's project settings, which name the language servers (and Zed's MCP
    # servers) they start once the user trusts the folder (helix-editor/helix#9514, #15857;
    # zed.dev/docs/worktree-trust); red-team rt83
    ".helix",
    ".zed/settings.json",
)
_COPILOT_RUNS = (*COPILOT_SERVERS, ".github/agents", ".github/extensions")
# Gemini CLI's project agents (an agent's `mcp_servers:` command starts with no
# acknowledgment: a local agent has no hash; 0.61.0's AgentRegistry) and its custom
# commands (whose `!{...}` run shell commands)
_GEMINI_RUNS = (".gemini/agents", ".gemini/commands")
# Codex's project skills, which its own sandbox holds read-only with .git and .codex
# (codex-rs/protocol/src/permissions.rs default_read_only_subpaths_for_writable_root): what
# the user's next session follows (red-team rt83)
_CODEX_RUNS = (".agents",)
RUN_PATHS = (*_CLAUDE_RUNS, *_COPILOT_RUNS, *_GEMINI_RUNS, *_CODEX_RUNS, *_EDITOR_RUNS)
# the keys whose strings are a program and its arguments
_RUN_KEYS = frozenset(
    {
        "command",
        "args",
        "bash",
        "plugin",
        "apiKeyHelper",
        "awsAuthRefresh",
        "awsCredentialExport",
        "otelHeadersHelper",
        # Claude Code's MCP headers and environment helpers (run at each connection);
        # Gemini CLI's tool discovery and call commands and MCP server command; pi's
        # extensions, local packages and skills, and the prefix and shell it runs each
        # command with (red-team rt28)
        "headersHelper",
        "envHelper",
        "discoveryCommand",
        "callCommand",
        "serverCommand",
        "extensions",
        "packages",
        "skills",
        "shellCommandPrefix",
        "shellPath",
        # the Dev Container's command run on the host, and Codex's program run after each
        # turn, outside its sandbox (red-team rt65)
        "initializeCommand",
        "notify",
    }
)
_MAX_BYTES = 1 << 20  # a settings file larger than this is not read
# the programs that run a folder's index file when named a folder
_NODES = frozenset({"node", "nodejs", "bun", "deno", "tsx"})
# the package runners a host's setting may start a server with, and the project settings
# they read (npm's, pnpm's, yarn's and bun's .npmrc; yarn's own; pnpm's hooks file; bun's;
# uv's, read by `uvx` from the folder it runs in)
_RUNNERS = frozenset({"npx", "npm", "pnpm", "pnpx", "yarn", "bunx", "bun", "uvx", "uv"})
_RUNNER_SETTINGS = (".npmrc", ".yarnrc", ".yarnrc.yml", ".pnpmfile.cjs", "bunfig.toml", "uv.toml")


def named_files(project: str) -> list[str]:
    """The existing files inside ``project`` that its hosts' settings, agents and skills
    run, and the plugin folders they install from in place."""
    found: list[str] = []
    for settings in settings_files(project):
        try:
            named = _named_by(settings, project)
        except RecursionError:
            continue  # nested deeper than any host's settings are: no host reads it either
        found += [target for target in named if target not in found]
    return found


def _named_by(settings: str, project: str) -> list[str]:
    words, folders = _words_of(settings, project)
    entries = _entry_files(words)
    if "/.pi/" in settings:  # pi reads its settings' paths from its folder (join(cwd, ".pi"))
        entries += [os.path.join(".pi", w) for w in entries if w[:1] not in "/$~"]
    return [t for t in (in_project(w, project) for w in entries) if t] + folders


def _words_of(settings: str, project: str) -> tuple[list[str], list[str]]:
    """The words a settings file runs (a program and its arguments), and the plugin
    folders it installs from in place."""
    if settings.endswith(".md"):
        return frontmatter.run_words(settings), []
    if settings.endswith((".yaml", ".yml")):
        return frontmatter.yaml_words(settings), []
    value = _read_settings(settings)
    if value is None and "/.vscode/" in settings:
        return _string_words(settings), []
    if settings.endswith(_VSCODE_TASKS):
        value = _folder_open_tasks(value)
    return _run_words(value), marketplace.folders(value, project)


def runner_settings(project: str) -> list[str]:
    """The package managers' project settings (existing or not), where a host's setting
    starts a program through one (``npx -y NAME``), else none.

    Why: the host starts it in the project, outside any boundary, and the runner reads
    the project's settings for where NAME's code comes from (.npmrc's ``registry``, a
    server a contained command left running), or what runs with it (``node-options``,
    yarn's ``yarnPath``, pnpm's ``.pnpmfile.cjs`` hooks, bun's ``preload``) (red-team
    rt65).  Only then: they are the project's own files, which its agent may edit.
    """
    for settings in settings_files(project):
        try:
            words = _words_of(settings, project)[0]
        except RecursionError:
            continue
        if any(os.path.basename(w.strip("'\"")) in _RUNNERS for w in words):
            return [os.path.join(project, name) for name in _RUNNER_SETTINGS]
    return []


def _entry_files(words: list[str]) -> list[str]:
    """``words``, and the files a program run on a module or a folder starts: for
    ``python -m pkg.server`` the module's file (``pkg/server.py``, or its package's
    ``__main__.py``), for ``node tools/srv`` the folder's ``index.js``, for ``python
    tools/app`` the folder's ``__main__.py``; and the value of an option spelled in its
    own word (node's ``--require=./preload.js``, ``--env-file=mcp.env``: a file the
    program loads, taken for no file while the word began with ``-``; red-team rt65)."""
    out = list(words)
    out += [w.split("=", 1)[1] for w in words if w.startswith("-") and "=" in w]
    out += _from_folders(out)
    program = ""  # the last program named: its arguments, flags aside, may be folders
    for before, word in itertools.pairwise(words):
        name = os.path.basename(before)
        if name in _NODES or name.startswith("python"):
            program = name
        if before == "-m" and word.replace(".", "").replace("_", "").isalnum():
            path = word.replace(".", "/")
            out += [f"{path}.py", f"{path}/__main__.py"]
        elif word.startswith("-") or not program:
            continue
        elif program in _NODES:
            out += [f"{word}/index{ext}" for ext in (".js", ".mjs", ".cjs", ".ts")]
        else:
            out.append(f"{word}/__main__.py")
    return out


# the words after which a command's next word is the folder it runs in (the shell's `cd`,
# uv's `--directory`, `make -C`); and how many such folders are tried (a settings file is
# a few commands, not a script)
_FOLDER_WORDS = frozenset({"cd", "pushd", "--directory", "--cwd", "--dir", "-C"})
_MAX_FOLDERS = 8


def _from_folders(words: list[str]) -> list[str]:
    """``words`` read from each folder the command moves to: ``cd mcp && python3 server.py``
    and ``uv run --directory mcp server.py`` run ``mcp/server.py`` (red-team rt65)."""
    folders = [w for before, w in itertools.pairwise(words) if before in _FOLDER_WORDS]
    folders += [
        w.split("=", 1)[1] for w in words if w.split("=", 1)[0] in _FOLDER_WORDS and "=" in w
    ]
    relative = [w for w in words if w[:1] not in "-/$~"]
    return [os.path.join(f, w) for f in folders[:_MAX_FOLDERS] for w in relative]


def run_paths(project: str) -> list[str]:
    """The paths in ``project`` a host runs from itself (:data:`RUN_PATHS`), or the user's
    shell when it enters the folder (:mod:`.shellruns`: mise, direnv), existing or not.

    Why one function: the boundary holds those that exist, the look after a command
    moves aside those a command made, and the gate asks before a file tool writes any.
    """
    from agentreflex.core.contain import shellruns

    own = [os.path.join(project, name) for name in RUN_PATHS]
    own += runner_settings(project)
    return own + shellruns.paths(project) + linked_extensions(project)


def _read_settings(path: str) -> object:
    """A settings file's value as its host reads it; a byte-order mark is no text.

    Every JSON one is read as JSON with comments (JSONC), a superset: OpenCode's
    ``.jsonc``, VS Code's and the Dev Container's files have comments, and Gemini CLI
    reads its settings through strip-json-comments.  Read as strict JSON, a settings file
    with one comment named nothing, and no script it names was held (red-team rt65);
    a file its host can't read held more than it runs, which costs nothing.
    """
    if path.endswith(".toml"):  # Codex's: the parser loaded only for a file that is there
        data = fsutil.read_regular(path, _MAX_BYTES)
        if not data:
            return None
        import tomllib

        try:
            return tomllib.loads(data.decode("utf-8"))
        except (UnicodeDecodeError, tomllib.TOMLDecodeError):
            return None
    return fsutil.read_json(path, _MAX_BYTES, _jsonc)


def _string_words(path: str) -> list[str]:
    """The words of every string in a VS Code file that does not parse: VS Code's own
    reader recovers from errors and runs what it could read (for ``tasks.json``, only
    where a task runs when the folder opens)."""
    data = fsutil.read_regular(path, _MAX_BYTES)
    text = data.decode("utf-8-sig", "replace") if data and len(data) <= _MAX_BYTES else ""
    if path.endswith(_VSCODE_TASKS) and "folderOpen" not in text:
        return []
    return [w for found in _STRING.findall(text) for w in found.split()]


_STRING = LazyPattern(r'"((?:[^"\\\n]|\\.)*)"', hints='"')


def _folder_open_tasks(value: object) -> list[dict[str, object]]:
    """The tasks of a VS Code ``tasks.json`` that run when the folder opens: those with
    ``"runOn": "folderOpen"`` and every task they depend on (``dependsOn``, by label)."""
    tasks = value.get("tasks") if isinstance(value, dict) else None
    if not isinstance(tasks, list):
        return []
    tasks = [t for t in tasks if isinstance(t, dict)]
    by_label = {t["label"]: t for t in tasks if isinstance(t.get("label"), str)}
    run = [t for t in tasks if _on_open(t)]
    for task in run:  # grows as it goes: what a running task depends on runs too
        needs = task.get("dependsOn")
        for label in (
            [needs] if isinstance(needs, str) else needs if isinstance(needs, list) else []
        ):
            need = by_label.get(label) if isinstance(label, str) else None
            if need is not None and all(need is not t for t in run):
                run.append(need)
    return run


def _on_open(task: dict[str, object]) -> bool:
    options = task.get("runOptions")
    return isinstance(options, dict) and options.get("runOn") == "folderOpen"


def _jsonc(data: bytes) -> object:
    return jsonc.loads(data.decode("utf-8-sig", "replace"))


def linked_extensions(project: str) -> list[str]:
    """The Gemini CLI extensions the user linked from a folder inside ``project``
    (``gemini extensions link .``): Gemini loads each from there at every start, its
    ``gemini-extension.json`` servers and its ``hooks/hooks.json`` (0.61.0: an install of
    ``type: "link"`` is read from its ``source``; red-team rt28).  Their files, existing
    or not."""
    found: list[str] = []
    for source in _linked_sources():
        if source == project or source.startswith(project + "/"):
            found += [os.path.join(source, n) for n in _EXTENSION_FILES]
    return found


# the linked extensions' sources by their install files' stamps: the plan, the looks and
# the gate each ask in one hook call, and the warm daemon sees an install made since
_LINKED: dict[tuple[tuple[str, int, int, int], ...], list[str]] = {}


def _linked_sources() -> list[str]:
    from agentreflex.core.state import userdirs

    folder = os.path.join(userdirs.home_dir(), ".gemini", "extensions")
    try:
        names = sorted(os.listdir(folder))
    except OSError:
        return []
    stamps = []
    for name in names:
        path = os.path.join(folder, name, ".gemini-extension-install.json")
        try:
            st = os.stat(path)
        except OSError:
            continue
        stamps.append((path, st.st_ino, st.st_size, st.st_mtime_ns))
    key = tuple(stamps)
    if key not in _LINKED:
        _LINKED.clear()
        _LINKED[key] = [s for s in (_linked_source(p) for p, *_ in stamps) if s]
    return _LINKED[key]


def _linked_source(install_file: str) -> str:
    """Where an extension's install file says it is linked from ("" if not a link)."""
    install = fsutil.read_json(install_file, _MAX_BYTES)
    source = install.get("source") if isinstance(install, dict) else None
    if not isinstance(source, str) or install.get("type") != "link":
        return ""
    return os.path.realpath(source)


_EXTENSION_FILES = ("gemini-extension.json", "hooks/hooks.json", "hooks")


def settings_files(project: str) -> list[str]:
    """The hosts' project settings files that may name programs (existing or not), and
    their agents' and skills' Markdown files (existing)."""
    paths = [os.path.join(project, name) for name in SETTINGS]
    paths += [p for p in linked_extensions(project) if p.endswith(".json")]
    paths += _folder_files(os.path.join(project, HOOK_FILES), (".json",))
    paths += _folder_files(os.path.join(project, CONTINUE_SERVERS), (".json", ".yaml", ".yml"))
    return paths + frontmatter.files(project)


def _folder_files(folder: str, endings: tuple[str, ...]) -> list[str]:
    """The files in ``folder`` (not below it) whose names end in one of ``endings``."""
    try:
        found = os.scandir(folder)
    except OSError:
        return []
    with found:
        return sorted(e.path for e in found if e.name.endswith(endings))


def stamp(project: str) -> tuple[tuple[int, ...], ...]:
    """What changes when a settings file is written: for a cache of :func:`named_files`."""
    return tuple(tuple(fsutil.stamp(path, follow=True) or ()) for path in settings_files(project))


def _run_words(value: object, running: bool = False) -> list[str]:
    """The words of every string under a key that holds a program or its arguments, and
    those words read from the folder a ``cwd`` setting (a VS Code task's ``options.cwd``)
    runs the program in."""
    if isinstance(value, dict):
        words = [w for k, v in value.items() for w in _run_words(v, running or _runs(k))]
        cwd = _cwd(value)
        if cwd:
            words += [os.path.join(cwd, w) for w in _entry_files(words) if w[:1] not in "-/$"]
        return words
    if isinstance(value, list):
        return [w for v in value for w in _run_words(v, running)]
    if isinstance(value, str) and running:
        return value.split()
    return []


def _runs(key: object) -> bool:
    """Does a settings key hold a program or its arguments?  One of :data:`_RUN_KEYS`, or
    an editor's setting whose last part names a program's path (VS Code's
    ``python.defaultInterpreterPath``, ``rust-analyzer.server.path``, a terminal
    profile's ``path``)."""
    if not isinstance(key, str):
        return False
    return key in _RUN_KEYS or key.rsplit(".", 1)[-1].lower().endswith(_PROGRAM_KEY_ENDS)


# the ends of an editor's setting names that hold a program's path (lower-cased)
_PROGRAM_KEY_ENDS = ("path", "executable", "commandline")


def _cwd(value: dict[object, object]) -> str | None:
    options = value.get("options")
    cwd = value.get("cwd", options.get("cwd") if isinstance(options, dict) else None)
    return cwd if isinstance(cwd, str) and cwd.strip() else None
