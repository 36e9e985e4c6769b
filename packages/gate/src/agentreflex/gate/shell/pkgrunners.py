"""Package managers and tool runners that run the command line they are given.

``npm exec``, ``pnpm -C web exec``, ``yarn --cwd . dlx``, ``bundle --verbose
exec``, ``poetry -C . run``, ``conda run -n base``, ``uvx``, ``npx -c 'CMD'``...
each runs what follows its own words, so the gate judges that command.  Every
tool is one row of :data:`RUNNERS`: the subcommands that run a command, the
options that take a value (before the subcommand and after it), the options
naming the folder the command runs in, and the options or subcommands that
take a whole shell command line.  The options are each tool's documented
spelling (npm-exec(1), pnpm.io/cli/exec and /cli/dlx, yarnpkg.com/cli/dlx,
bun.sh/docs/pm/bunx, bundle-exec(1), python-poetry.org/docs/cli, pdm, hatch
and pixi CLI references, conda run, uv run / uvx).
"""

from __future__ import annotations

from agentreflex.core.util.record import record


@record(frozen=True)
class Runner:
    """How one tool spells "run this command"."""

    # subcommands (as word tuples) that run a command; () = the tool itself runs it.
    # "*" matches any one word (``yarn workspace NAME exec``).
    subs: tuple[tuple[str, ...], ...]
    # options taking a value as the next word, before the subcommand and after it
    valued: frozenset[str] = frozenset()
    # options naming the folder the command runs in (also valued)
    chdir: frozenset[str] = frozenset()
    # options whose value is a whole shell command line (also valued)
    line: frozenset[str] = frozenset()
    # flags that make the command words one shell line (pnpm's -c/--shell-mode);
    # a one-letter flag also counts inside a cluster (``pnpm -rc exec``)
    line_flags: frozenset[str] = frozenset()
    # subcommands whose words are one shell line (``bun exec 'rm -rf x'``)
    line_subs: frozenset[tuple[str, ...]] = frozenset()
    # hatch: ``run ENV:CMD`` and matrix selectors ``+py=3.12`` before the command
    env_prefix: bool = False
    # positional words after the subcommand before the command (``direnv exec DIR``)
    positional: int = 0
    # subcommands whose own last word is the program (``yarn node -e CODE`` runs node)
    program_subs: frozenset[tuple[str, ...]] = frozenset()
    # subcommands whose words, past their own options (those taking a value listed), are
    # the tool's own command line again (``yarn workspace app exec CMD``, ``yarn workspaces
    # foreach -A run SCRIPT``): judged as ``TOOL WORDS...``
    again: tuple[tuple[tuple[str, ...], frozenset[str]], ...] = ()
    # the tool's own commands: any other first word runs a package.json script of that name
    # or, when the project has none, a dependency's bin (``yarn eslint .``); see :func:`bin_of`
    commands: frozenset[str] = frozenset()
    # subcommands naming that script or bin (``yarn run eslint .``)
    script_subs: frozenset[tuple[str, ...]] = frozenset()
    # tool specs (``node@20``) before the command, which follows ``--`` (``mise x node@20 -- CMD``)
    tool_specs: bool = False
    # the command is an npm package (``npm:rimraf@5``, ``npm:@scope/pkg/bin``): run its bin;
    # a bare word is one only for the subcommands listed here (``deno x rimraf``)
    npm_spec: bool = False
    bare_packages: frozenset[tuple[str, ...]] = frozenset()


def _f(*words: str) -> frozenset[str]:
    return frozenset(words)


# npm's configuration options that take a value (npm-config(7)), for npm and npx
_NPM_VALUED = _f(
    "--package",
    "-p",
    "--prefix",
    "-C",
    "--workspace",
    "-w",
    "--registry",
    "--cache",
    "--userconfig",
    "--globalconfig",
    "--loglevel",
    "--node-options",
    "--script-shell",
    "--include",
    "--omit",
    "--tag",
)
# pnpm.io/cli: its commands and their aliases, and the npm commands it passes on to npm
_PNPM_COMMANDS = _f(
    *("access", "add", "adduser", "approve-builds", "audit", "bin", "bugs", "c", "cache"),
    *("cat-file", "cat-index", "completion", "config", "create", "dedupe", "deploy"),
    *("deprecate", "dist-tag", "dlx", "docs", "doctor", "edit", "env", "exec", "fetch"),
    *("find-hash", "get", "help", "i", "ignored-builds", "import", "info", "init", "install"),
    *("install-test", "it", "licenses", "link", "list", "ln", "login", "logout", "ls", "m"),
    *("multi", "outdated", "owner", "pack", "patch", "patch-commit", "patch-remove", "ping"),
    *("pkg", "prefix", "profile", "prune", "publish", "rb", "rebuild", "recursive", "remove"),
    *("repo", "restart", "rm", "root", "run", "run-script", "s", "sbom", "search", "self-update"),
    *("server", "set", "set-script", "setup", "show", "star", "stars", "start", "stop", "store"),
    *("t", "team", "test", "token", "tst", "un", "undeprecate", "uninstall", "unlink"),
    *("unpublish", "unstar", "up", "update", "upgrade", "version", "view", "whoami", "why"),
)
# `bun --help`: its commands and their aliases
_BUN_COMMANDS = _f(
    *("a", "add", "audit", "build", "c", "ci", "completions", "create", "discord", "exec"),
    *("feedback", "getcompletes", "help", "i", "info", "init", "install", "link", "outdated"),
    *("patch", "patch-commit", "pm", "publish", "remove", "repl", "rm", "run", "test"),
    *("unlink", "update", "upgrade", "why", "x"),
)
_PNPM_VALUED = _f(
    "--filter",
    "-F",
    "--filter-prod",
    "--package",
    "--allow-build",
    "--workspace-concurrency",
    "--reporter",
    "--loglevel",
    "--resume-from",
    "--test-pattern",
    "--changed-files-ignore-pattern",
)
_UV_VALUED = _f(
    "--with",
    "--with-editable",
    "--with-requirements",
    "--python",
    "-p",
    "--project",
    "--package",
    "--group",
    "--extra",
    "--env-file",
    "--index",
    "--index-url",
    "--default-index",
    "--extra-index-url",
    "--cache-dir",
    "--color",
    "--config-file",
    "--python-preference",
    "--from",
    "--constraints",
    "-c",
    "--overrides",
    "--script",
    "-s",
)
_DENO_VALUED = _f(
    "-c", "--config", "--import-map", "--cert", "--location", "--seed", "--ext", "--preload"
)
_CONDA = Runner(
    (("run",),),
    _f("-n", "--name", "-p", "--prefix", "-a", "--attach", "--label", "-r", "--root-prefix"),
    _f("--cwd"),
)

RUNNERS: dict[str, Runner] = {
    "npm": Runner((("exec",), ("x",)), _NPM_VALUED, line=_f("-c", "--call")),
    "npx": Runner(((),), _NPM_VALUED, line=_f("-c", "--call")),
    # pnpm 6.6.1 release notes: a first word that is neither a pnpm command nor a script
    # "is considered a shell command", run as `pnpm exec` runs it (any program on PATH)
    "pnpm": Runner(
        (("exec",), ("dlx",)),
        _PNPM_VALUED,
        _f("-C", "--dir"),
        line_flags=_f("-c", "--shell-mode"),
        commands=_PNPM_COMMANDS,
    ),
    "pnpx": Runner(((),), _PNPM_VALUED, line_flags=_f("-c", "--shell-mode")),
    # yarnpkg.com/cli/node: `yarn node` runs node itself.  yarnpkg.com/cli/workspace and
    # /cli/workspaces/foreach (classic: classic.yarnpkg.com/en/docs/cli/workspaces): `yarn
    # workspace NAME CMD...` and `yarn workspaces foreach [opts] CMD...` run the yarn command
    # CMD in workspaces.  yarnpkg.com/cli/run (berry packages/plugin-essentials/sources/
    # commands/run.ts) and classic.yarnpkg.com/en/docs/cli/run: `yarn [run] NAME` runs the
    # package.json script NAME or, without one, the bin NAME of a dependency (node_modules/
    # .bin), never a program from PATH; built-in commands come first
    "yarn": Runner(
        (("exec",), ("dlx",), ("node",)),
        _f(
            "-p",
            "--package",
            "--require",
            "--cache-folder",
            "--modules-folder",
            "--global-folder",
            "--registry",
            "--mutex",
            "--network-timeout",
            "--use-yarnrc",
        ),
        _f("--cwd"),
        program_subs=frozenset({("node",)}),
        again=(
            (("workspace", "*"), frozenset()),
            (("workspaces", "foreach"), _f("--include", "--exclude", "-j", "--jobs", "--from")),
            (("workspaces", "run"), frozenset()),
        ),
        commands=_f(
            # berry (yarnpkg.com/cli) and classic (classic.yarnpkg.com/en/docs/cli)
            "access",
            "add",
            "audit",
            "autoclean",
            "bin",
            "cache",
            "check",
            "config",
            "constraints",
            "create",
            "dedupe",
            "dlx",
            "exec",
            "explain",
            "generate-lock-entry",
            "global",
            "help",
            "import",
            "info",
            "init",
            "install",
            "licenses",
            "link",
            "list",
            "login",
            "logout",
            "node",
            "npm",
            "outdated",
            "owner",
            "pack",
            "patch",
            "patch-commit",
            "plugin",
            "policies",
            "publish",
            "rebuild",
            "remove",
            "run",
            "search",
            "set",
            "stage",
            "tag",
            "team",
            "unlink",
            "unplug",
            "up",
            "upgrade",
            "upgrade-interactive",
            "version",
            "versions",
            "why",
            "workspace",
            "workspaces",
        ),
        script_subs=frozenset({("run",)}),
    ),
    # docs.deno.com/runtime/reference/cli/run and /cli/x: an `npm:` specifier runs the
    # package's bin; `deno x` and `dx` take a bare package name too
    "deno": Runner(
        (("run",), ("x",)),
        _DENO_VALUED,
        npm_spec=True,
        bare_packages=frozenset({("x",)}),
    ),
    "dx": Runner(((),), _DENO_VALUED, npm_spec=True, bare_packages=frozenset({()})),
    # bun.com/docs/runtime (`bun run` and the naked `bun NAME` behave the same) and
    # oven-sh/bun#14190, #31877: a NAME that is no script, file or dependency's bin is found
    # on PATH, so `bun run script` runs /usr/bin/script
    "bun": Runner(
        (("x",), ("exec",)),
        _f("-p", "--package", "--config", "--env-file", "-r", "--preload", "--tsconfig-override"),
        _f("--cwd"),
        line_subs=frozenset({("exec",)}),
        commands=_BUN_COMMANDS,
        script_subs=frozenset({("run",)}),
    ),
    "bunx": Runner(((),), _f("-p", "--package")),
    "bundle": Runner((("exec",),), _f("-r", "--retry", "--gemfile")),
    "poetry": Runner((("run",),), _f("-P", "--project"), _f("-C", "--directory")),
    "pipenv": Runner((("run",),), _f("--python", "--pypi-mirror")),
    "pdm": Runner((("run",),), _f("-p", "--project", "--venv", "-c", "--config")),
    "hatch": Runner(
        (("run",), ("env", "run")),
        _f("-e", "--env", "-p", "--project", "--data-dir", "--cache-dir", "--config"),
        env_prefix=True,
    ),
    "rye": Runner((("run",),), _f("--pyproject")),
    "pixi": Runner(
        (("run",), ("exec",), ("x",)),
        _f(
            "-e",
            "--environment",
            "-p",
            "--platform",
            "--manifest-path",
            "-s",
            "--spec",
            "-w",
            "--with",
            "-c",
            "--channel",
        ),
        line_subs=frozenset({("run",)}),
    ),
    "conda": _CONDA,
    "mamba": _CONDA,
    "micromamba": _CONDA,
    "uv": Runner((("run",), ("tool", "run")), _UV_VALUED, _f("--directory")),
    # uv's tool runner: `uvx --from agentreflex-core agentreflex uninstall` runs agentreflex
    "uvx": Runner(((),), _UV_VALUED, _f("--directory")),
    "pipx": Runner((("run",),), _f("--spec", "--python", "--index-url", "--pip-args")),
    # mise.jdx.dev/cli/exec: `mise exec [TOOL@VERSION]... -- COMMAND`
    "mise": Runner(
        (("exec",), ("x",)),
        _f("-C", "--cd", "-j", "--jobs"),
        line=_f("-c", "--command"),
        tool_specs=True,
    ),
    "asdf": Runner((("exec",),)),
    "direnv": Runner((("exec",),), positional=1),
    "op": Runner((("run",),), _f("--env-file", "--environment")),
    "doppler": Runner(
        (("run",),), _f("-p", "--project", "-c", "--config", "--token"), line=_f("--command")
    ),
    "infisical": Runner(
        (("run",),), _f("--env", "--path", "--projectId", "--token"), line=_f("--command")
    ),
}
# every word that is (part of) a subcommand running a command, by tool
SUB_WORDS: dict[str, frozenset[str]] = {
    name: frozenset(w for sub in (*r.subs, *(a for a, _ in r.again)) for w in sub if w != "*")
    for name, r in RUNNERS.items()
}


@record(frozen=True)
class Unwrapped:
    """The command a runner runs and the folder it runs it in ("" if unchanged)."""

    argv: list[str]
    chdir: str


def unwrap(name: str, words: list[str]) -> Unwrapped | None:
    """The command ``name words...`` runs, or ``None`` when it runs none
    (``npm install``, ``poetry add``) or ``name`` is no runner."""
    runner = RUNNERS.get(name)
    if runner is None:
        return None
    state = _Options(runner)
    i = state.skip(words, 0)
    sub = _sub_at(runner, words, i)
    if sub is None and state.last_unknown and i < len(words) and words[i - 1].startswith("--"):
        i += 1  # an option not in the table took this word: ``npm --foo bar exec``
        sub = _sub_at(runner, words, state.skip(words, i))
        i = state.skip(words, i)
    for again, valued in runner.again:
        if _matches(again, words, i):
            rest = words[_skip_own(words, i + len(again), valued) :]
            return Unwrapped([name, *rest], state.chdir) if rest else None
    if sub is None:
        return None
    rest = words[state.skip(words, i + len(sub), after=True) :]
    if state.line is not None:
        return Unwrapped(["sh", "-c", state.line], state.chdir)
    if sub in runner.program_subs:  # its options are the program's: ``yarn node -e CODE``
        return Unwrapped([sub[-1], *words[i + len(sub) :]], state.chdir)
    if runner.tool_specs:
        rest = _after_tool_specs(words[i + len(sub) :], rest)
    if runner.npm_spec:
        program = _npm_bin(rest[0], sub in runner.bare_packages) if rest else None
        return None if program is None else Unwrapped([program, *rest[1:]], state.chdir)
    if runner.env_prefix:
        while rest and rest[0][:1] == "+":
            rest = rest[1:]  # a matrix selector
        if rest and ":" in rest[0] and "/" not in rest[0].split(":", 1)[0]:
            rest = [rest[0].split(":", 1)[1], *rest[1:]] if rest[0].split(":", 1)[1] else rest[1:]
    if runner.positional:
        rest = rest[runner.positional :]
    if rest and (state.shell_mode or sub in runner.line_subs):
        if sub in runner.line_subs and len(rest) > 1 and not state.shell_mode:
            return Unwrapped(rest, state.chdir)  # separate words: the command itself
        return Unwrapped(["sh", "-c", " ".join(rest)], state.chdir)
    return Unwrapped(rest, state.chdir)


def _after_tool_specs(after_sub: list[str], rest: list[str]) -> list[str]:
    """mise's command: what follows ``--``, past the ``TOOL@VERSION`` words before it."""
    if "--" in after_sub:
        return after_sub[after_sub.index("--") + 1 :]
    while rest and "@" in rest[0]:
        rest = rest[1:]  # mise wants `--`; judged as what would run if it did not
    return rest


def _npm_bin(spec: str, bare: bool) -> str | None:
    """The bin an npm package specifier runs (``npm:@scope/pkg@1/bin`` -> ``bin``), or None."""
    if spec.startswith("npm:"):
        spec = spec[4:]
    elif not bare or ":" in spec or spec.startswith((".", "/")):
        return None  # a script, a URL or a jsr: package: not an npm bin
    parts = spec.split("/")
    if len(parts) > (2 if spec.startswith("@") else 1):
        return parts[-1] or None  # an explicit bin
    return parts[-1].split("@")[0] or None  # the package's name, its version cut


def bin_of(name: str, words: list[str]) -> Unwrapped | None:
    """The program ``yarn|pnpm|bun [run] NAME ARGS...`` runs when the project has no script
    NAME: ``NAME ARGS...`` (a dependency's bin, or for pnpm and bun a program on PATH), or
    ``None`` for the tool's own commands and for a file it runs (``bun run build.ts``)."""
    runner = RUNNERS.get(name)
    if runner is None or not runner.commands:
        return None
    state = _Options(runner)
    i = state.skip(words, 0)
    if any(_matches(sub, words, i) for sub in runner.script_subs):
        i = state.skip(words, i + 1, after=True)
    elif i >= len(words) or words[i] in runner.commands:
        return None
    if i >= len(words) or _is_file(words[i]):
        return None
    return Unwrapped(words[i:], state.chdir)


def _is_file(word: str) -> bool:
    """A file the tool runs itself (``./x.js``, ``build.ts``), not a program's name."""
    return "/" in word or word.endswith((".js", ".mjs", ".cjs", ".ts", ".mts", ".cts", ".tsx"))


def _matches(sub: tuple[str, ...], words: list[str], i: int) -> bool:
    got = words[i : i + len(sub)]
    return len(got) == len(sub) and all(s in ("*", w) for s, w in zip(sub, got, strict=True))


def _sub_at(runner: Runner, words: list[str], i: int) -> tuple[str, ...] | None:
    """The subcommand of ``runner`` spelled at ``words[i]``, if any."""
    for sub in runner.subs:
        if _matches(sub, words, i):
            return sub
    return None


def _skip_own(words: list[str], i: int, valued: frozenset[str]) -> int:
    """Past a subcommand's own options (``foreach -A --include app -j 2``), to its command."""
    while i < len(words) and words[i].startswith("-") and words[i] != "--":
        i += 2 if words[i] in valued else 1
    return i


class _Options:
    """Walks a runner's options, noting the folder and a shell command line."""

    def __init__(self, runner: Runner) -> None:
        self.runner = runner
        self.chdir = ""
        self.line: str | None = None
        self.shell_mode = False
        self.last_unknown = False

    def skip(self, words: list[str], i: int, after: bool = False) -> int:
        r = self.runner
        takes = r.valued | r.chdir | r.line
        while i < len(words):
            w = words[i]
            if w == "--":
                return i + 1 if after else i
            if not w.startswith("-") or w == "-":
                return i
            key, eq, value = w.partition("=")
            if not eq and key not in takes and not key.startswith("--") and len(key) > 2:
                if key[:2] in takes:  # a short option with its value attached: -Cweb
                    key, eq, value = key[:2], "=", key[2:]
                elif any("-" + c in r.line_flags for c in key[1:]):
                    self.shell_mode = True  # a cluster: pnpm -rc
            if key in takes and not eq:
                value = words[i + 1] if i + 1 < len(words) else ""
                i += 1
            if key in r.chdir:
                self.chdir = value
            if key in r.line:
                self.line = value
            if key in r.line_flags:
                self.shell_mode = True
            self.last_unknown = key not in takes and not eq
            i += 1
        return i
