"""Containment (issue #28): the policy, bwrap's mounts, and real contained commands.

The real tests run the rewritten line with the real bubblewrap, the way a host
runs a command after the hook rewrote it (``bash -c LINE`` in the project),
and check the effect on disk, not what bwrap printed.  ``.ci/run`` installs
bubblewrap; a Linux machine without it fails here rather than skipping.
"""

from __future__ import annotations

import base64
import contextlib
import glob
import hashlib
import http.server
import io
import json
import os
import shlex
import shutil
import socket
import subprocess
import sys
import sysconfig
import threading
import time
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from agentreflex.core.contain import boundary as contain
from agentreflex.core.state import userdirs
from hypothesis import given, settings
from hypothesis import strategies as st

REPO = Path(__file__).resolve().parents[3]


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    (root / ".agentreflex").mkdir(parents=True)
    (root / ".agentreflex" / "config.toml").write_text("mode = 'enforced'\n")
    (root / ".claude").mkdir()
    (root / ".claude" / "settings.json").write_text("{}\n")
    return root


@pytest.fixture
def home() -> Path:
    path = Path(os.environ["HOME"])
    state = Path(userdirs.user_state_dir())
    state.mkdir(parents=True)
    Path(userdirs.key_path()).write_text("per-user-key\n")
    (path / ".claude").mkdir()
    (path / ".claude" / "settings.json").write_text('{"hooks": {}}\n')
    (path / "notes.txt").write_text("keep me\n")
    return path


def _engine() -> str:
    found = contain.engine_path()
    if found is None:
        pytest.fail(
            "bubblewrap is not installed: `apt-get install -y bubblewrap` (.ci/run does this)"
        )
    return found


def mounts_file(line: str) -> Path:
    """The file a contained line reads its mounts from (after ``9<``)."""
    words = shlex.split(line)
    return Path(words[words.index("9<") + 1])


def run(
    command: str, project: Path, cwd: Path | None = None, **kw: object
) -> subprocess.CompletedProcess[str]:
    _engine()
    line = contain.rewrite(command, str(project))
    return subprocess.run(
        ["bash", "-c", line], cwd=cwd or project, capture_output=True, text=True, timeout=120, **kw
    )


# -- the policy ---------------------------------------------------------------


def test_builtin_policy_is_the_documented_one() -> None:
    shipped = Path(contain.__file__).with_name("contain.toml").read_text()
    assert shipped == (REPO / "policies" / "contain.toml").read_text()


def test_policy_lists_the_issue_paths() -> None:
    policy = contain.load_policy()
    assert "{project}" in policy.writable and "{tmp}" in policy.writable
    assert "~/.cache/uv" in policy.writable and "~/.cargo/registry" in policy.writable
    for entry in (
        "{project}/.agentreflex",
        "{project}/.claude/settings.json",
        "{project}/.codex",
        "{interpreter}",
    ):
        assert entry in policy.read_only
    assert {"{key}", "{trust}", "{daemon}", "{plugin_envs}"} <= set(policy.unreadable)


@pytest.mark.parametrize(
    ("tmpdir", "folder"), [("/var/tmp/u", "/var/tmp/u"), ("", "/tmp"), ("rel/tmp", "/tmp")]
)
def test_the_temp_folder_programs_use(tmpdir: str, folder: str) -> None:
    from agentreflex.core.contain import policy

    env = {"TMPDIR": tmpdir} if tmpdir else {}
    assert policy.placeholders("/work/p", env)["{tmpdir}"] == [folder]


def test_user_policy_adds_entries(tmp_path: Path) -> None:
    user = Path(contain.user_policy_path())
    user.parent.mkdir(parents=True)
    user.write_text('read_only = ["~/secrets-dir"]\nwritable = ["~/.cache/bazel"]\n')
    policy = contain.load_policy()
    assert "~/secrets-dir" in policy.read_only and "~/.cache/bazel" in policy.writable
    assert "{project}/.agentreflex" in policy.read_only  # added to, never replaced


def test_a_changed_user_policy_is_read_again_in_the_same_process(tmp_path: Path) -> None:
    """The parsed lists are kept per file stamp: an edit, even to the same length, counts."""
    user = Path(contain.user_policy_path())
    user.parent.mkdir(parents=True)
    user.write_text('read_only = ["~/aaaa"]\n')
    assert "~/aaaa" in contain.load_policy().read_only
    user.write_text('read_only = ["~/bbbb"]\n')  # same size; a new inode or mtime
    os.utime(user, ns=(1, 1))
    policy = contain.load_policy()
    assert "~/bbbb" in policy.read_only and "~/aaaa" not in policy.read_only
    user.write_text("read_only = 3\n")
    with pytest.raises(contain.PolicyError, match="list of non-empty strings"):
        contain.load_policy()


def test_a_cache_the_user_lists_read_only_is_read_only(project: Path, home: Path) -> None:
    """A writable tool cache holds code that later runs outside; the user may close it."""
    cache = home / ".cache" / "pypoetry"
    cache.mkdir(parents=True)
    user = Path(contain.user_policy_path())
    user.parent.mkdir(parents=True, exist_ok=True)
    before = contain.plan(str(project), contain.load_policy()).mounts
    assert contain.Mount(str(cache), "rw") in before
    user.write_text('read_only = ["~/.cache/pypoetry"]\n')
    after = contain.plan(str(project), contain.load_policy()).mounts
    assert contain.Mount(str(cache), "ro") in after
    done = run(f"touch {cache}/planted", project)
    assert done.returncode != 0 and not (cache / "planted").exists()


# -- red-team rt75: caches whose contents run later outside the boundary -----------


NPX_PACKAGE = {
    "package.json": '{"name": "srv", "version": "1.0.0", "bin": {"srv": "index.js"}}\n',
    "index.js": "#!/usr/bin/env node\nconsole.log('served')\n",
}


def test_npx_in_the_boundary_installs_into_the_guards_folder_not_the_real_cache(
    project: Path, home: Path
) -> None:
    """``npx -y`` works in the boundary (its install kept for the next command), and what it
    writes under ``~/.npm/_npx`` is the guard's folder: the real one, which a host's
    ``npx -y NAME`` runs outside, is as it was."""
    real = home / ".npm" / "_npx"
    (real / "6a2f" / "node_modules" / "srv").mkdir(parents=True)
    (real / "6a2f" / "node_modules" / "srv" / "index.js").write_text("// the user's\n")
    for name, text in NPX_PACKAGE.items():
        (project / "srv" / name).parent.mkdir(parents=True, exist_ok=True)
        (project / "srv" / name).write_text(text)
    done = run("npx --offline -y ./srv", project)
    assert done.stdout == "served\n", done.stderr
    planted = "echo planted >> ~/.npm/_npx/6a2f/node_modules/srv/index.js; ls ~/.npm/_npx"
    listed = run(planted, project)
    # the guard's folder, with npx's own install in it, kept from the first command
    assert "6a2f" not in listed.stdout and listed.stdout.strip(), listed
    assert (real / "6a2f" / "node_modules" / "srv" / "index.js").read_text() == "// the user's\n"
    assert sorted(os.listdir(real)) == ["6a2f"]
    shadow = contain.shadow_source(str(real))
    assert sorted(os.listdir(shadow)) == listed.stdout.split()


def _demo_wheel() -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as wheel:
        info = "ar_demo-1.0.dist-info/"
        wheel.writestr("ar_demo.py", "SERVED = True\n")
        wheel.writestr(info + "METADATA", "Metadata-Version: 2.1\nName: ar-demo\nVersion: 1.0\n")
        wheel.writestr(
            info + "WHEEL", "Wheel-Version: 1.0\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
        )
        wheel.writestr(
            info + "RECORD", f"ar_demo.py,,\n{info}METADATA,,\n{info}WHEEL,,\n{info}RECORD,,\n"
        )
    return buf.getvalue()


@contextlib.contextmanager
def _index(wheel: bytes) -> Iterator[str]:
    """A package index on 127.0.0.1 whose answers pip may cache (max-age and an ETag)."""
    name = "ar_demo-1.0-py3-none-any.whl"
    link = f'<a href="/files/{name}#sha256={hashlib.sha256(wheel).hexdigest()}">{name}</a>'
    pages = {"/simple/ar-demo/": (link.encode(), "text/html"), f"/files/{name}": (wheel, "")}

    class Index(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            body, kind = pages.get(self.path, (b"", ""))
            self.send_response(200 if body else 404)
            self.send_header("Content-Type", kind or "application/octet-stream")
            self.send_header("Cache-Control", "max-age=600")
            self.send_header("ETag", f'"{hashlib.sha256(body).hexdigest()}"')
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Index)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/simple/"
    finally:
        server.shutdown()
        server.server_close()


def test_pip_in_the_boundary_caches_into_the_guards_folder_not_the_real_cache(
    project: Path, home: Path
) -> None:
    """red-team rt80: ``pip install`` works in the boundary, from an index, and what pip
    caches there (its HTTP cache, whose fresh simple page and wheel the user's next ``pip
    install NAME`` would take as they are, offline) is in the guard's folder: the real
    cache is as it was."""
    if shutil.which("pip") is None:
        pytest.fail("pip is not installed: the boundary's pip cache can't be shown")
    real = home / ".cache" / "pip"
    (real / "http-v2").mkdir(parents=True)
    with _index(_demo_wheel()) as url:
        line = f"pip --isolated install -q --no-deps --target out --index-url {url} --trusted-host 127.0.0.1 ar-demo"
        done = run(line, project)
    assert done.returncode == 0, done.stderr
    assert (project / "out" / "ar_demo.py").read_text() == "SERVED = True\n"
    assert [files for _, _, files in os.walk(real) if files] == []
    shadow = contain.shadow_source(str(real))
    assert [files for _, _, files in os.walk(shadow) if files], "pip cached nothing"


def test_a_missing_shadowed_cache_is_shadowed_where_a_command_could_make_it(
    project: Path, home: Path
) -> None:
    """``~/.npm`` writable, ``_npx`` not there yet: bwrap makes the mount point, and a command
    that makes ``_npx`` makes it in the guard's folder.  A shadowed cache whose folder is
    read-only (home) is left to it: no command can make it."""
    (home / ".npm").mkdir()
    found = contain.plan(str(project), contain.load_policy())
    kinds = {m.path: m.kind for m in found.mounts}
    assert kinds[str(home / ".npm" / "_npx")] == "shadow"
    # doctor says where the stand-in is
    assert any(
        line.startswith("shadowed") and "_npx" in line and "/shadow/" in line
        for line in contain.describe(found)
    )
    assert str(home / ".cache" / "go-build") not in kinds
    run("mkdir -p ~/.npm/_npx/ab && touch ~/.npm/_npx/ab/x", project)
    assert os.listdir(home / ".npm" / "_npx") == []
    assert os.path.exists(os.path.join(contain.shadow_source(str(home / ".npm/_npx")), "ab/x"))


def test_a_shadowed_cache_whose_stand_in_cant_be_made_is_an_empty_read_only_folder(
    project: Path, home: Path
) -> None:
    """No folder of the guard's (its cache folder a file): the real cache is out of reach
    all the same, and the tool fails in the boundary instead."""
    cache = home / ".cache" / "go-build"
    cache.mkdir(parents=True)
    (cache / "README").write_text("the user's\n")
    Path(userdirs.user_cache_dir()).parent.mkdir(parents=True, exist_ok=True)
    Path(userdirs.user_cache_dir()).write_text("not a folder\n")
    kinds = {m.path: m.kind for m in contain.plan(str(project), contain.load_policy()).mounts}
    assert kinds[str(cache)] == "hide"
    done = run("echo planted > ~/.cache/go-build/README", project)
    assert done.returncode != 0 and (cache / "README").read_text() == "the user's\n"


def test_a_shadowed_cache_the_user_lists_read_only_is_read_only(project: Path, home: Path) -> None:
    """The user's ``read_only`` is the stronger entry for one path: the tool then fails."""
    cache = home / ".cache" / "pre-commit"
    cache.mkdir(parents=True)
    Path(contain.user_policy_path()).parent.mkdir(parents=True, exist_ok=True)
    Path(contain.user_policy_path()).write_text('read_only = ["~/.cache/pre-commit"]\n')
    assert (
        contain.Mount(str(cache), "ro") in contain.plan(str(project), contain.load_policy()).mounts
    )


def test_playwrights_installed_browsers_are_read_only_and_a_new_one_can_be_installed(
    project: Path, home: Path
) -> None:
    """What ``npx playwright install`` writes for a new revision (its folder, marker and
    ``.links`` entry) is written in the boundary; an installed browser can't be changed."""
    cache = home / ".cache" / "ms-playwright"
    (cache / "chromium-1140" / "chrome-linux").mkdir(parents=True)
    (cache / "chromium-1140" / "chrome-linux" / "chrome").write_text("#!/bin/sh\n")
    (cache / ".links").mkdir()
    new = "mkdir -p ~/.cache/ms-playwright/chromium-1150 && : > ~/.cache/ms-playwright/chromium-1150/INSTALLATION_COMPLETE && echo proj > ~/.cache/ms-playwright/.links/ab"
    assert run(new, project).returncode == 0
    assert (cache / "chromium-1150" / "INSTALLATION_COMPLETE").exists()
    assert (cache / ".links" / "ab").exists()
    done = run("echo planted > ~/.cache/ms-playwright/chromium-1140/chrome-linux/chrome", project)
    assert done.returncode != 0
    assert (cache / "chromium-1140" / "chrome-linux" / "chrome").read_text() == "#!/bin/sh\n"


def test_a_cache_follows_its_variable_but_never_to_home_or_the_project(tmp_path: Path) -> None:
    """red-team rt80: ``{env:NAME}`` is where the host's variable put a tool's cache (any case,
    as npm reads ``npm_config_*``), and ``{cache}`` is XDG_CACHE_HOME and ~/.cache both; a
    value at or above home or the project would make an entry stand for all of it: none."""
    project, home = str(tmp_path / "proj"), os.environ["HOME"]
    env = {"HOME": home, "NPM_CONFIG_CACHE": "/tmp/n", "XDG_CACHE_HOME": "/tmp/x"}
    assert contain.expand(["{env:npm_config_cache}/_npx"], project, env) == ["/tmp/n/_npx"]
    assert contain.expand(["{cache}/go-build"], project, env) == [
        "/tmp/x/go-build",
        os.path.join(home, ".cache", "go-build"),
    ]
    for value in (home, os.path.dirname(home), "/", project, str(tmp_path), "rel/cache", ""):
        env = {"HOME": home, "GOCACHE": value, "XDG_CACHE_HOME": value}
        assert contain.expand(["{env:GOCACHE}"], project, env) == [], value
        assert contain.expand(["{cache}"], project, env) == [os.path.join(home, ".cache")]


def test_a_cache_variable_spelled_or_linked_to_home_moves_nothing(tmp_path: Path) -> None:
    """red-team rt90: the kernel, bubblewrap and Claude Code's sandbox read ``//home/me`` as
    ``/home/me`` (POSIX keeps a leading ``//`` as spelled, so it passed for a folder of its
    own), and a link to home, above it or to the project's parent leads there all the same:
    an entry for such a value would stand for all of home.  Both spellings are checked, as
    given and where the links lead."""
    project, home = str(tmp_path / "proj"), os.environ["HOME"]
    os.mkdir(project)
    (tmp_path / "to-home").symlink_to(home)
    (tmp_path / "to-above").symlink_to(os.path.dirname(home))
    (tmp_path / "to-parent").symlink_to(tmp_path)
    (tmp_path / "cache").mkdir()
    (tmp_path / "to-cache").symlink_to(tmp_path / "cache")
    hostile = (
        "/" + home,
        "//" + home.lstrip("/"),
        str(tmp_path / "to-home"),
        str(tmp_path / "to-home") + "/",
        str(tmp_path / "to-above"),
        str(tmp_path / "to-parent"),
        str(tmp_path / "to-parent" / "proj"),
        "//",
    )
    for value in hostile:
        env = {"HOME": home, "PRE_COMMIT_HOME": value, "XDG_CACHE_HOME": value}
        assert contain.expand(["{env:PRE_COMMIT_HOME}"], project, env) == [], value
        assert contain.expand(["{cache}/pip"], project, env) == [
            os.path.join(home, ".cache", "pip")
        ], value
    # a link to a cache of its own still counts (Claude Code binds where it leads)
    env = {"HOME": home, "PRE_COMMIT_HOME": str(tmp_path / "to-cache")}
    assert contain.expand(["{env:PRE_COMMIT_HOME}"], project, env) == [str(tmp_path / "to-cache")]


def test_a_temp_folder_spelled_with_two_slashes_is_planned_as_one(tmp_path: Path) -> None:
    """red-team rt90: ``TMPDIR=//tmp/x`` is absolute, and POSIX keeps a leading ``//``, whose
    ``dirname`` is itself: the walk up to ``/`` that pins a writable mount's folders never
    ended, and the hook's plan spun until the host gave up on it.  Planned as ``/tmp/x``."""
    import signal

    project, home = tmp_path / "proj", tmp_path / "home"
    project.mkdir(exist_ok=True)
    home.mkdir(exist_ok=True)
    spelled = "//" + str(tmp_path / "t").lstrip("/")
    (tmp_path / "t").mkdir()
    assert userdirs.temp_dir({"TMPDIR": spelled}) == str(tmp_path / "t")
    env = {"HOME": str(home), "TMPDIR": spelled, "PATH": "/usr/bin:/bin"}

    def stuck(signum: int, frame: object) -> None:
        raise TimeoutError("the plan never ended")

    previous = signal.signal(signal.SIGALRM, stuck)
    signal.alarm(20)
    try:
        result = contain.plan(str(project), contain.load_policy(), env)
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
    assert result.mounts and not [m for m in result.mounts if m.path.startswith("//")]


def test_a_temp_folder_at_the_root_makes_nothing_writable(tmp_path: Path) -> None:
    """red-team rt90: ``TMPDIR=/`` in the host's environment made ``{tmp}`` stand for the
    whole machine, writable in the boundary but for home and the protected paths (other
    projects, ``/opt``...).  The system's temp folders stay; ``/`` is not one of them."""
    project = tmp_path / "proj"
    project.mkdir(exist_ok=True)
    env = {"HOME": str(tmp_path / "home"), "TMPDIR": "/", "PATH": "/usr/bin:/bin"}
    assert "/" not in userdirs.temp_dirs(env)
    result = contain.plan(str(project), contain.load_policy(), env)
    assert contain.Mount("/", "rw") not in result.mounts


def test_the_protected_files_placeholder_keeps_its_older_name(tmp_path: Path) -> None:
    """``{guarded}`` (the name before "guard" meant only the Reasoning Guard) still
    expands in a user's contain.toml, to the same list as ``{protected}``."""
    project = str(tmp_path / "proj")
    protected = contain.expand(["{protected}"], project)
    assert protected == contain.expand(["{guarded}"], project)
    assert os.path.join(project, ".agentreflex") in protected


def test_project_policy_file_is_never_read(project: Path) -> None:
    (project / "policies").mkdir()
    (project / "policies" / "contain.toml").write_text('writable = ["~"]\n')
    result = contain.plan(str(project), contain.load_policy())
    home = os.path.realpath(os.environ["HOME"])
    assert contain.Mount(home, "rw") not in result.mounts


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("writable = [", "not valid TOML"),
        ("allow_all = true\n", "unknown key"),
        ("writable = 'x'\n", "list of non-empty strings"),
        ("writable = ['']\n", "list of non-empty strings"),
    ],
)
def test_broken_user_policy_is_a_clear_error(text: str, message: str) -> None:
    user = Path(contain.user_policy_path())
    user.parent.mkdir(parents=True)
    user.write_text(text)
    with pytest.raises(contain.PolicyError, match=message):
        contain.load_policy()


def test_relative_user_entry_is_refused(project: Path) -> None:
    user = Path(contain.user_policy_path())
    user.parent.mkdir(parents=True)
    user.write_text('writable = ["build"]\n')
    with pytest.raises(contain.PolicyError, match="not absolute"):
        contain.plan(str(project), contain.load_policy())


# -- the plan -----------------------------------------------------------------


def test_plan_mounts_deeper_paths_over_their_parents(project: Path, home: Path) -> None:
    result = contain.plan(str(project), contain.load_policy())
    kinds = {m.path: m.kind for m in result.mounts}
    proj = os.path.realpath(project)
    assert kinds[proj] == "pin"  # writable, and a mount point: it holds protected mounts
    assert kinds[f"{proj}/.agentreflex"] == "ro"
    assert kinds[f"{proj}/.claude/settings.json"] == "ro"
    assert kinds[os.path.realpath(home)] == "ro"
    assert kinds[userdirs.key_path()] == "hide"
    order = [m.path for m in result.mounts]
    assert order.index(proj) < order.index(f"{proj}/.agentreflex")


def test_writable_is_the_deepest_mounts_word(project: Path, home: Path) -> None:
    from agentreflex.core.contain import mounts

    (home / ".cache" / "uv").mkdir(parents=True, exist_ok=True)
    result = contain.plan(str(project), contain.load_policy())
    assert mounts.writable(result, str(project / "src" / "new.py"))  # a file yet to be made
    assert mounts.writable(result, str(home / ".cache" / "uv" / "wheels"))
    assert not mounts.writable(result, str(project / ".agentreflex" / "config.toml"))
    assert not mounts.writable(result, str(home / ".git-templates"))  # home, in /tmp or not
    assert not mounts.writable(result, "/usr/share/git-core/templates")  # the system
    assert not mounts.writable(result, userdirs.key_path())  # hidden is no place to write


def test_missing_protected_file_is_covered_by_its_folder(tmp_path: Path) -> None:
    proj = tmp_path / "p"
    (proj / ".github").mkdir(parents=True)
    result = contain.plan(str(proj), contain.load_policy())
    assert contain.Mount(os.path.realpath(proj / ".github"), "ro") in result.mounts
    # nothing below the project root to cover .agentreflex with: said, not hidden
    assert os.path.join(os.path.realpath(proj), ".agentreflex") in result.uncovered
    assert any("uncovered" in line for line in contain.describe(result))


def test_bwrap_args_keep_pid_net_and_session() -> None:
    args = contain.bwrap_args(contain.Plan([contain.Mount("/x", "rw")]))
    for flag in (
        "--unshare-pid",
        "--unshare-net",
        "--new-session",
        "--die-with-parent",
        "--unshare-all",
    ):
        assert flag not in args
    assert args[:6] == ["bwrap", "--unshare-user", "--cap-drop", "ALL", "--ro-bind", "/"]
    assert args[-3:] == ["--bind-try", "/x", "/x"]


def test_missing_engine_is_said(monkeypatch: pytest.MonkeyPatch, project: Path) -> None:
    monkeypatch.setenv("PATH", "/nonexistent")
    with pytest.raises(FileNotFoundError, match="not contained"):
        contain.rewrite("true", str(project))
    with pytest.raises(FileNotFoundError, match="not contained"):
        contain.run_argv(["true"], str(project))


# -- real contained commands: what must fail with no effect -----------------------


def test_interpreter_write_to_guard_config_fails(project: Path, home: Path) -> None:
    code = "open('.agentreflex/config.toml','w').write('mode = \"off\"')"
    done = run(f"{sys.executable} -c {shlex.quote(code)}", project)
    assert done.returncode != 0 and "Read-only file system" in done.stderr
    assert (project / ".agentreflex" / "config.toml").read_text() == "mode = 'enforced'\n"


def test_pth_in_hook_site_packages_fails(project: Path, home: Path) -> None:
    site = Path(sysconfig.get_paths()["purelib"])
    target = site / "zz_i28_contained.pth"
    done = run(f"echo 'import os' >> {target}", project)
    assert done.returncode != 0
    assert not target.exists()


def test_batch_editor_write_to_user_settings_fails(project: Path, home: Path) -> None:
    settings = home / ".claude" / "settings.json"
    editors = [
        f"sed -i 's/hooks/nohooks/' {settings}",
        f"awk -i inplace '{{print}}' {settings} 2>/dev/null || perl -pi -e 's/hooks/x/' {settings}",
        f"sort -o {settings} {settings}",
    ]
    if shutil.which("ex"):
        editors.append(f"ex -sc '%s/hooks/x/|x' {settings}")
    for command in editors:
        run(
            command, project
        )  # some editors exit 0 after a refused write: the effect is what counts
        assert settings.read_text() == '{"hooks": {}}\n', command


def test_rm_home_through_symlink_made_in_same_command(project: Path, home: Path) -> None:
    done = run("ln -s ~ x && rm -rf x/ ; rm -rf ~/ ; cat ~/.local/state/agentreflex/key", project)
    assert done.returncode != 0
    assert (home / "notes.txt").read_text() == "keep me\n"
    assert Path(userdirs.key_path()).read_text() == "per-user-key\n"
    assert "per-user-key" not in done.stdout


def test_no_way_out_through_another_process_root_or_cwd(project: Path, home: Path) -> None:
    """``/proc/PID/root`` of a process outside leads into the host's own mounts.

    Run as root (as CI runs), bwrap made no user namespace of its own, and
    ``touch /proc/$PPID/root/HOME/x`` wrote home past every read-only mount.
    Every process's root and cwd is tried, as an agent would.
    """
    # a process outside holding a secret in its environment, as the warm daemon does
    secret = {**os.environ, "JEV_API_KEY": "jev-marker-outside"}
    outside = subprocess.Popen(["sleep", "60"], cwd=home, env=secret)
    try:
        done = run(
            "for p in /proc/[0-9]*; do "
            f"touch $p/root{home}/escaped 2>/dev/null && echo via $p/root; "
            "touch $p/cwd/escaped-cwd 2>/dev/null; "  # the shell's own cwd is the project
            f"cat $p/root{userdirs.key_path()} 2>/dev/null; "
            "tr '\\0' '\\n' < $p/environ 2>/dev/null | grep -a jev-marker; "
            "done; true",
            project,
        )
    finally:
        outside.kill()
        outside.wait()
    assert done.returncode == 0, done.stderr
    assert "via" not in done.stdout and "per-user-key" not in done.stdout
    assert "jev-marker" not in done.stdout
    assert not (home / "escaped").exists() and not (home / "escaped-cwd").exists()


def test_the_start_probe_runs_the_systems_true(
    project: Path, home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """red-team rt30: whether bwrap can start is asked once per boot, with ``true`` found on
    the host's PATH (an activated ``.venv/bin`` first): a ``.venv/bin/true`` a contained
    command planted (no name pathprograms watches) fails the probe after the next reboot, and
    every command of every session is then left as written, outside the boundary; it also
    runs, in the probe's boundary with no mounts, with the per-user key readable."""
    _engine()
    venv = project / ".venv" / "bin"
    venv.mkdir(parents=True)
    (venv / "true").write_text("#!/bin/sh\nexit 1\n")
    (venv / "true").chmod(0o755)
    monkeypatch.setenv("PATH", f"{venv}{os.pathsep}{os.environ['PATH']}")
    line, note = contain.shell_rewrite("echo hi", str(project))
    assert note == "" and contain.inner_command(line) == "echo hi", (line, note)


def _tmux() -> str:
    found = shutil.which("tmux")
    if found is None:
        pytest.fail("tmux is not installed: `apt-get install -y tmux` (.ci/run does this)")
    return found


@pytest.fixture
def users_tmux(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """A real tmux server of the user's, started outside the boundary (its own socket folder)."""
    monkeypatch.setenv("TMUX_TMPDIR", str(tmp_path / "tmux-tmp"))
    (tmp_path / "tmux-tmp").mkdir()
    tmux = _tmux()
    subprocess.run([tmux, "new-session", "-d", "-s", "user", "sleep 120"], check=True, timeout=30)
    try:
        yield tmux
    finally:
        subprocess.run([tmux, "kill-server"], capture_output=True, timeout=30)


def _settled(path: Path) -> bool:
    """Has ``path`` appeared within a few seconds (a tmux window starts asynchronously)?"""
    for _ in range(30):
        if path.exists():
            return True
        time.sleep(0.1)
    return False


def test_the_users_tmux_server_cannot_run_a_command_outside(
    project: Path, home: Path, users_tmux: str
) -> None:
    """What the user's tmux server starts runs outside the boundary, as the user.

    Before the server's sockets were hidden, a contained ``tmux new-window``
    wrote home (and every other spelling reaching the server did too).
    """
    for command in (
        f"tmux new-window -d 'touch {home}/via-window'",
        f"tmux run-shell 'touch {home}/via-run-shell'",
        f"tmux send-keys -t user 'touch {home}/via-keys' Enter",
        f"tmux -S $TMUX_TMPDIR/tmux-{os.getuid()}/default new-window -d 'touch {home}/via-socket'",
    ):
        run(command, project)
    time.sleep(0.5)
    assert sorted(p.name for p in home.iterdir() if p.name.startswith("via-")) == []
    # a tmux of the agent's own, started inside, still works
    own = run(
        "tmux -S ./own.sock new-session -d 'sleep 5' && tmux -S ./own.sock ls "
        "&& tmux -S ./own.sock kill-server",
        project,
    )
    assert own.returncode == 0 and "1 windows" in own.stdout, own.stderr


def test_a_socket_the_user_lets_through_is_reached(
    project: Path, home: Path, users_tmux: str
) -> None:
    """``reach`` in the user's contain.toml: the user's choice, and only for servers' sockets."""
    config = Path(contain.user_policy_path())
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(f'reach = ["{{tmux}}", "{userdirs.key_path()}"]\n')
    run(f"tmux new-window -d 'touch {home}/reached'", project)
    assert _settled(home / "reached")
    hidden = {m.path for m in contain.plan(str(project), contain.load_policy()).mounts}
    assert userdirs.key_path() in hidden  # agentreflex's own secrets can't be let through


def test_reach_is_a_users_word_only(tmp_path: Path) -> None:
    builtin = contain.load_policy()
    assert builtin.reach == () and "{tmux}" in builtin.sockets


def test_the_session_bus_and_editor_servers_are_out_of_reach(
    project: Path, home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A socket file (the session bus, systemd's, an editor's) answers nothing inside."""
    runtime = tmp_path / "run"
    (runtime / "systemd").mkdir(parents=True)
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(runtime))
    temp = tmp_path / "tmp"  # VS Code's folder for it where XDG_RUNTIME_DIR is not set
    temp.mkdir()
    monkeypatch.setenv("TMPDIR", str(temp))
    servers = [
        runtime / "bus",
        runtime / "systemd" / "private",
        runtime / "vscode-ipc-1a2b.sock",
        temp / "vscode-ipc-3c4d.sock",
        tmp_path / "docker.sock",
    ]
    monkeypatch.setenv("DOCKER_HOST", f"unix://{servers[-1]}")
    listening = []
    for path in servers:
        server = socket.socket(socket.AF_UNIX)
        server.bind(str(path))
        server.listen()
        listening.append(server)
    probe = (
        "import socket, sys\n"
        "for path in sys.argv[1:]:\n"
        "    s = socket.socket(socket.AF_UNIX)\n"
        "    try:\n"
        "        s.connect(path); print('reached', path)\n"
        "    except OSError as exc:\n"
        "        print('refused', path, exc.errno)\n"
    )
    try:
        done = run(shlex.join([sys.executable, "-c", probe, *map(str, servers)]), project)
        outside = subprocess.run(
            [sys.executable, "-c", probe, *map(str, servers)], capture_output=True, text=True
        )
    finally:
        for server in listening:
            server.close()
    assert outside.stdout.count("reached") == len(servers)  # the servers really listen
    assert "reached" not in done.stdout and done.stdout.count("refused") == len(servers)


@pytest.mark.parametrize("had_one", [False, True])
def test_gemini_clis_ide_folder_can_be_neither_filled_nor_read(
    project: Path, home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, had_one: bool
) -> None:
    """Gemini CLI 0.61.0 (traced) starts the ``stdio.command`` of a file in
    ``$TMPDIR/gemini/ide`` whose ``workspacePath`` is its folder, outside any boundary;
    the files VS Code's companion writes there hold its token."""
    temp = tmp_path / "tmp"
    ide = temp / "gemini" / "ide"
    monkeypatch.setenv("TMPDIR", str(temp))
    if had_one:
        ide.mkdir(parents=True)
        (ide / "gemini-ide-server-1-2.json").write_text('{"authToken": "t0k3n"}')
    else:
        temp.mkdir()
    server = {"workspacePath": str(project), "stdio": {"command": "touch", "args": ["/tmp/x"]}}
    plant = f"cat {ide}/*; mkdir -p {ide}; echo '{json.dumps(server)}' > {ide}/gemini-ide-server-9-9.json"
    done = run(plant + f"; echo kept > {temp}/other.txt", project)
    assert "t0k3n" not in done.stdout
    assert sorted(p.name for p in ide.iterdir()) == (
        ["gemini-ide-server-1-2.json"] if had_one else []
    )
    assert (temp / "other.txt").read_text() == "kept\n"  # the temp folder stays writable


@pytest.mark.parametrize("host", ["claude-code", "opencode", "pi", "gemini", "hermes"])
def test_the_hosts_missing_settings_folder_cannot_be_made_in_a_contained_command(
    tmp_path: Path, home: Path, host: str
) -> None:
    """A project without the host's settings folder: before, its nearest existing
    folder was the project root, which can't be made read-only, so a contained
    command could create ``.claude/settings.local.json`` with ``disableAllHooks``
    (Claude Code then starts the next session without agentreflex's hooks), or an
    OpenCode plugin that puts the command back as written.  Now the folder is an
    empty read-only one, left behind empty, which git does not list."""
    from agentreflex.core.decision import Decision, Mode, Verdict
    from agentreflex.core.hosts import get_adapter
    from agentreflex.core.hosts.contained import contained_command
    from agentreflex.core.testing import pre_tool

    project = tmp_path / "bare"
    project.mkdir()
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    (folder,) = get_adapter(host).project_settings
    target = f"{folder}/settings.json"
    code = f"import os; os.makedirs('{folder}', exist_ok=True); open('{target}', 'w').write('{{}}')"
    attack = f"{sys.executable} -c {shlex.quote(code)}; touch made.txt"
    event = pre_tool("Bash", {"command": attack}, cwd=str(project), host=host)
    allowed = Decision(verdict=Verdict.ALLOW, proposed=Verdict.ALLOW, mode=Mode.ENFORCED)
    contained = contained_command(event, allowed)
    assert contained is not None and contained[0] != attack, contained
    done = subprocess.run(
        ["bash", "-c", contained[0]], cwd=project, capture_output=True, text=True, timeout=120
    )
    assert "Permission denied" in done.stderr, done.stderr  # the empty folder's mode: 0555
    assert not (project / target).exists()
    assert (project / "made.txt").exists()  # the rest of the project stays writable
    assert (project / folder).is_dir() and not any((project / folder).iterdir())
    # its owner may chmod the empty folder: what it writes then is in memory, and gone
    (project / folder).rmdir()  # (once it exists, it is made read-only as it is)
    chmodded = contained_command(
        pre_tool(
            "Bash",
            {"command": f"chmod 755 {folder} && echo x > {target} && cat {target}"},
            cwd=str(project),
            host=host,
        ),
        allowed,
    )
    assert chmodded is not None
    inside = subprocess.run(
        ["bash", "-c", chmodded[0]], cwd=project, capture_output=True, text=True
    )
    assert inside.stdout == "x\n", inside.stderr
    assert not any((project / folder).iterdir())
    status = subprocess.run(
        ["git", "status", "--short", "--untracked-files=all"],
        cwd=project,
        capture_output=True,
        text=True,
        check=True,
    )
    assert status.stdout.strip() == "?? made.txt"


def test_every_contained_host_names_its_settings_folder_and_the_policy_protects_it(
    tmp_path: Path,
) -> None:
    from agentreflex.core.contain.check import OUR_BOUNDARY
    from agentreflex.core.hosts import get_adapter, host_names

    project = str(tmp_path / "p")
    protected = set(userdirs.protected_paths(project))
    for host in host_names():
        adapter = get_adapter(host)
        ours = OUR_BOUNDARY in (
            getattr(adapter, "containment", ""),
            getattr(adapter, "containment_otherwise", ""),
        )
        folders = getattr(adapter, "project_settings", ())
        assert folders or not ours, host
        for folder in folders:
            path = os.path.join(project, folder)
            assert any(p == path or p.startswith(path + "/") for p in protected), (host, folder)


def test_no_way_out_by_unmounting_or_remounting(project: Path, home: Path) -> None:
    """A command with capabilities in the sandbox can take a read-only mount away.

    bwrap run as root (as CI runs) kept every capability: ``umount`` of the
    mount over ``.agentreflex`` then let the config be written, and ``mount -o
    remount,rw`` did the same for home.  A nested user namespace gets
    capabilities of its own, but over mounts it can't unlock.
    """
    config = project / ".agentreflex" / "config.toml"
    for command in (
        f"umount {project / '.agentreflex'}; echo off > {config}",
        f"umount -l {project / '.agentreflex'}; echo off > {config}",
        f"mount -o remount,rw,bind {home}; touch {home}/remounted",
        f"mount -o remount,rw,bind {project / '.agentreflex'}; echo off > {config}",
        f"unshare -rm sh -c 'umount {project / '.agentreflex'}; echo off > {config}'",
        f"unshare -rm sh -c 'mount -o remount,rw,bind {home}; touch {home}/remounted'",
    ):
        run(command, project)
        assert config.read_text() == "mode = 'enforced'\n", command
        assert not (home / "remounted").exists(), command
    caps = run("grep CapEff /proc/self/status", project)
    assert caps.stdout.split() == ["CapEff:", "0000000000000000"], caps.stdout


def test_no_way_out_by_renaming_the_folder_that_holds_a_protected_mount(
    project: Path, home: Path
) -> None:
    """A mount is attached to its folder, and the folder could be renamed.

    ``mv .git .g && mkdir .git && cp -a .g/. .git`` left a ``.git/config`` no
    mount covered, whose ``core.fsmonitor`` runs at the user's next ``git
    status``; ``mv .claude`` or the project itself did the same for the host's
    settings.  (The project sits in a writable /tmp here, as it does in CI.)
    """
    _repo(project)
    (project / ".claude" / "settings.local.json").write_text("{}\n")
    (project / ".github" / "hooks").mkdir(parents=True)
    (project / ".github" / "hooks" / "hooks.json").write_text("{}\n")
    config = (project / ".git" / "config").read_text()
    for command in (
        "mv .git .g && mkdir .git && cp -a .g/. .git/ && echo '[core]' >> .git/config",
        "mv .claude .c && mkdir .claude && echo '{\"disableAllHooks\": true}' > .claude/settings.json",
        "mv .github .gh && mkdir -p .github/hooks && echo '{\"x\": 1}' > .github/hooks/hooks.json",
        f"cd .. && mv {project.name} gone && mkdir {project.name} .agentreflex 2>/dev/null; "
        f"mkdir -p {project.name}/.agentreflex && echo off > {project.name}/.agentreflex/config.toml",
    ):
        run(command, project)
        assert (project / ".git" / "config").read_text() == config, command
        assert (project / ".claude" / "settings.json").read_text() == "{}\n", command
        assert (project / ".github" / "hooks" / "hooks.json").read_text() == "{}\n", command
        config_toml = project / ".agentreflex" / "config.toml"
        assert config_toml.read_text() == "mode = 'enforced'\n", command
    assert not (project.parent / "gone").exists()
    assert not any((project / moved).exists() for moved in (".g", ".c", ".gh"))
    # the pinned folders are as writable as before
    done = run(
        "git -c user.name=t -c user.email=t@e commit -q --allow-empty -m two && "
        "touch .claude/notes && echo ok",
        project,
    )
    assert done.stdout == "ok\n", done.stderr


def test_the_kernels_settings_are_read_only(project: Path) -> None:
    """Root with no capabilities could still write /proc/sys (a core_pattern runs as root).

    The same value is written back, so the test changes nothing even where it fails.
    """
    done = run(
        "cat /proc/sys/kernel/hostname > /tmp/h.$$ && "
        "cat /tmp/h.$$ > /proc/sys/kernel/hostname; echo rc=$?",
        project,
    )
    assert "rc=1" in done.stdout and "Read-only file system" in done.stderr, done
    # the interrupts' CPU masks too (Flatpak makes /proc/irq and /proc/bus read-only)
    irq = run(
        "v=$(cat /proc/irq/default_smp_affinity) && "
        "echo $v > /proc/irq/default_smp_affinity; echo rc=$?",
        project,
    )
    assert "rc=0" not in irq.stdout, irq


def test_key_cannot_be_read_or_copied(project: Path, home: Path) -> None:
    key = userdirs.key_path()
    done = run(
        f"cp {key} stolen; tar cf k.tar {os.path.dirname(key)}; grep -ra per-user {home}", project
    )
    assert "per-user-key" not in done.stdout
    assert (
        not (project / "stolen").exists() or "per-user-key" not in (project / "stolen").read_text()
    )


_EDITABLE_BACKEND = """
import os, zipfile

def get_requires_for_build_editable(config_settings=None):
    return []

def build_editable(wheel_directory, config_settings=None, metadata_directory=None):
    name = "demo_i28-0.1-py3-none-any.whl"
    info = "demo_i28-0.1.dist-info"
    files = {
        "demo_i28.pth": os.getcwd() + "\\n",
        info + "/METADATA": "Metadata-Version: 2.1\\nName: demo-i28\\nVersion: 0.1\\n",
        info + "/WHEEL": "Wheel-Version: 1.0\\nGenerator: t\\nRoot-Is-Purelib: true\\nTag: py3-none-any\\n",
    }
    with zipfile.ZipFile(os.path.join(wheel_directory, name), "w") as whl:
        for path, text in files.items():
            whl.writestr(path, text)
        whl.writestr(info + "/RECORD", "".join(p + ",,\\n" for p in files) + info + "/RECORD,,\\n")
    return name
"""


# -- real contained commands: what must work as without containment -------------


def test_exit_status_output_stdin_env_and_cwd(project: Path) -> None:
    (project / "sub").mkdir()
    done = run(
        'cd sub && pwd && read line && echo "got $line $MY_VAR" && exit 3',
        project,
        input="hello\n",
        env={**os.environ, "MY_VAR": "v1"},
    )
    assert done.returncode == 3
    assert done.stdout.splitlines() == [f"{project}/sub", "got hello v1"]


def test_cd_sub_and_make(project: Path) -> None:
    if shutil.which("make") is None:
        pytest.fail("make is not installed")
    (project / "sub").mkdir()
    (project / "sub" / "Makefile").write_text("all:\n\techo built > out.txt\n")
    done = run("cd sub && make", project)
    assert done.returncode == 0, done.stderr
    assert (project / "sub" / "out.txt").read_text() == "built\n"


def test_git_commit_works(project: Path) -> None:
    done = run(
        "git init -q && git -c user.name=t -c user.email=t@e add -A && "
        "git -c user.name=t -c user.email=t@e commit -qm first && git log --oneline",
        project,
    )
    assert done.returncode == 0, done.stderr
    assert "first" in done.stdout


def _repo(project: Path) -> Path:
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    subprocess.run(
        [
            "git",
            "-C",
            str(project),
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@e",
            "commit",
            "-q",
            "--allow-empty",
            "-m",
            "first",
        ],
        check=True,
    )
    return project / ".git"


def test_git_settings_and_hooks_that_would_run_outside_cannot_be_written(
    project: Path, home: Path
) -> None:
    """``core.fsmonitor`` and a hook run the next time the user runs git, outside the boundary."""
    git = _repo(project)
    config = (git / "config").read_text()
    for command in (
        "git config core.fsmonitor 'touch ~/fsmonitor-ran'",
        "printf '[core]\\n\\tpager = touch ~/pager-ran\\n' >> .git/config",
        "echo 'touch ~/hook-ran' > .git/hooks/pre-commit && chmod +x .git/hooks/pre-commit",
        "git config core.hooksPath ./myhooks",
    ):
        run(command, project)
        assert (git / "config").read_text() == config, command
    assert not (git / "hooks" / "pre-commit").exists()


def test_a_hooks_folder_git_did_not_make_cannot_be_made(project: Path, home: Path) -> None:
    git = _repo(project)
    shutil.rmtree(git / "hooks")
    done = run("mkdir -p .git/hooks; echo 'touch ~/x' > .git/hooks/post-checkout", project)
    assert done.returncode != 0
    assert not (git / "hooks" / "post-checkout").exists()
    work = run(
        "git -c user.name=t -c user.email=t@e commit -q --allow-empty -m second && git log --oneline",
        project,
    )
    assert work.returncode == 0 and "second" in work.stdout, work.stderr


def test_everyday_git_works_with_its_settings_read_only(project: Path) -> None:
    _repo(project)
    (project / "a.txt").write_text("one\n")
    done = run(
        "git add a.txt && git -c user.name=t -c user.email=t@e commit -qm add && "
        "git checkout -q -b feature && echo two >> a.txt && git stash -q && git stash pop -q && "
        "git tag v1 && git switch -q - && git merge -q --ff-only feature && git log --oneline",
        project,
    )
    assert done.returncode == 0, done.stderr
    assert "add" in done.stdout


def test_pytest_and_pip_install_editable(project: Path, tmp_path: Path) -> None:
    (project / "test_ok.py").write_text("def test_ok():\n    assert 1 + 1 == 2\n")
    done = run(f"{sys.executable} -m pytest -q -p no:cacheprovider test_ok.py", project)
    assert done.returncode == 0 and "1 passed" in done.stdout, done.stdout + done.stderr
    # an in-tree PEP 660 backend: pip install -e runs offline, with no setuptools/wheel needed
    (project / "pyproject.toml").write_text(
        '[project]\nname = "demo-i28"\nversion = "0.1"\n[build-system]\n'
        'requires = []\nbuild-backend = "backend"\nbackend-path = ["."]\n'
    )
    (project / "backend.py").write_text(_EDITABLE_BACKEND)
    (project / "demo_i28.py").write_text("X = 1\n")
    venv = project / ".venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    done = run(f"{venv}/bin/python -m pip install -q --no-index -e .", project)
    assert done.returncode == 0, done.stderr
    assert (
        subprocess.run([f"{venv}/bin/python", "-c", "import demo_i28"], cwd=tmp_path).returncode
        == 0
    )


def test_npm_test_works(project: Path) -> None:
    if shutil.which("npm") is None:
        pytest.fail("npm is not installed")
    (project / "package.json").write_text(
        '{"name":"d","version":"1.0.0","scripts":{"test":"node t.js"}}'
    )
    (project / "t.js").write_text(
        "require('fs').writeFileSync('ran.txt','yes'); console.log('ok')\n"
    )
    done = run("npm test --silent", project)
    assert done.returncode == 0, done.stderr
    assert (project / "ran.txt").read_text() == "yes"


def _poetry_env_name(name: str, folder: Path) -> str:
    """Poetry's name for a project's virtualenv (src/poetry/utils/env/env_manager.py
    generate_env_name, then ``-pyX.Y``), written out here as Poetry has it."""
    real = os.path.normcase(os.path.realpath(folder))
    digest = base64.urlsafe_b64encode(hashlib.sha256(real.encode()).digest()).decode()[:8]
    return f"{name}-{digest}-py3.11"


def test_poetry_installs_in_the_projects_own_environments_but_not_in_others(
    project: Path, home: Path
) -> None:
    """red-team rt83: ~/.cache/pypoetry/virtualenvs holds every Poetry project's environment;
    this project's (and a package's in it) stay writable, another project's is read-only."""
    (project / "pyproject.toml").write_text('[project]\nname = "app"\n')
    (project / "packages" / "api").mkdir(parents=True)
    (project / "packages" / "api" / "pyproject.toml").write_text('[project]\nname = "api"\n')
    envs = home / ".cache" / "pypoetry" / "virtualenvs"
    own = envs / _poetry_env_name("app", project)
    package = envs / _poetry_env_name("api", project / "packages" / "api")
    other = envs / _poetry_env_name("billing", home / "work" / "billing")
    for env in (own, package, other):
        (env / "lib").mkdir(parents=True)
    done = run(f"for e in {own} {package} {other}; do echo x > $e/lib/new.pth; done", project)
    assert (own / "lib" / "new.pth").exists(), done.stderr
    assert (package / "lib" / "new.pth").exists(), done.stderr
    assert not (other / "lib" / "new.pth").exists()
    # a new environment (a new project's first `poetry install`) can still be made
    fresh = envs / _poetry_env_name("fresh", project / "fresh")
    done = run(f"mkdir -p {fresh}/lib && echo x > {fresh}/lib/a.pth", project)
    assert (fresh / "lib" / "a.pth").exists(), done.stderr


def test_background_dev_server_outlives_the_command(project: Path) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    (project / "index.html").write_text("served\n")
    done = run(
        f"nohup {sys.executable} -m http.server {port} --bind 127.0.0.1 > srv.log 2>&1 & echo $! > srv.pid",
        project,
    )
    assert done.returncode == 0
    pid = int((project / "srv.pid").read_text())
    try:
        body = ""
        for _ in range(100):
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=1) as conn:
                    conn.sendall(b"GET /index.html HTTP/1.0\r\n\r\n")
                    body = b"".join(iter(lambda: conn.recv(4096), b"")).decode()
                break
            except OSError:
                time.sleep(0.1)
        assert "served" in body
    finally:
        # its pid is the project's namespace's (contain/pidns.py): stopped from inside
        run(f"kill {pid}", project)


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _get(port: int) -> str:
    """The body of ``/index.html`` on ``port``, "" when nothing answers there."""
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1) as conn:
            conn.sendall(b"GET /index.html HTTP/1.0\r\n\r\n")
            return b"".join(iter(lambda: conn.recv(4096), b"")).decode()
    except OSError:
        return ""


def test_a_dev_server_one_command_starts_is_stopped_by_the_next(project: Path) -> None:
    """Everyday work: `npm run dev &` in one call, a request, then `kill`/`pkill` in a later one."""
    port = _free_port()
    (project / "index.html").write_text("served\n")
    done = run(
        f"nohup {sys.executable} -m http.server {port} --bind 127.0.0.1 > srv.log 2>&1 &"
        " echo $! > srv.pid",
        project,
    )
    assert done.returncode == 0, done.stderr
    try:
        body = ""
        for _ in range(100):
            body = _get(port)
            if body:
                break
            time.sleep(0.1)
        assert "served" in body
        stop = run(
            "kill $(cat srv.pid) && pkill -f 'http[.]server " + str(port) + "'; true", project
        )
        assert stop.returncode == 0, stop.stderr
        for _ in range(100):
            if not _get(port):
                break
            time.sleep(0.1)
        assert not _get(port), "the next command could not stop the server"
    finally:
        run(f"pkill -f 'http[.]server {port}'; true", project)


def test_a_contained_background_process_cannot_signal_the_users_other_processes(
    project: Path,
) -> None:
    """A process a command leaves running can't kill one outside (the hook's own, red-team rt30).

    Gemini CLI and Copilot CLI run a command as written when the hook dies; the process
    here stands for the hook and for the user's other programs.
    """
    outside = subprocess.Popen(["sleep", "60"])
    try:
        victim = outside.pid
        done = run(f"(sleep 0.2; kill -KILL {victim}) >/dev/null 2>&1 & sleep 1; true", project)
        assert done.returncode == 0, done.stderr
        time.sleep(0.5)
        assert outside.poll() is None, "a contained command killed a process outside"
    finally:
        outside.kill()
        outside.wait()


def _joined_pid(line: str) -> int:
    """The holder whose namespaces a contained line joins (contain/pidns.py)."""
    words = shlex.split(line)
    return int(words[words.index("7<") + 1].split("/")[2])


def test_the_projects_namespace_survives_its_commands_and_their_kill_of_pid_1(
    project: Path,
) -> None:
    """pid 1 of the project's namespace ignores what a command sends it (SIGKILL too), and
    its filesystem is no way past the boundary (``/proc/1/root``)."""
    start = run("sleep 60 > /dev/null 2>&1 & echo $! > sleeper.pid", project)
    assert start.returncode == 0, start.stderr
    hit = run("kill -KILL 1; kill -STOP 1; ls /proc/1/root/ 2>&1; true", project)
    assert "Permission denied" in hit.stdout, hit.stdout
    alive = run("kill -0 $(cat sleeper.pid) && echo alive", project)
    assert alive.stdout.strip() == "alive", alive.stderr
    run("kill $(cat sleeper.pid)", project)


def test_a_holder_that_is_gone_or_a_record_that_lies_is_never_joined(
    project: Path, home: Path
) -> None:
    """The record names a process that left, or one outside (the hook's own): a new holder
    is started, and the command still runs inside the boundary."""
    from agentreflex.core.contain import pidns

    first = _joined_pid(contain.rewrite("true", str(project)))
    assert pidns.stop() == 1
    (record,) = Path(userdirs.user_state_dir(), "contain").glob("pidns-*[0-9a-f]")
    second = _joined_pid(contain.rewrite("true", str(project)))
    assert second != first
    own = os.getpid()
    start = Path(f"/proc/{own}/stat").read_bytes().rsplit(b")", 1)[1].split()[19].decode()
    spaces = [str(os.stat(f"/proc/{own}/ns/{n}").st_ino) for n in ("user", "pid")]
    record.write_text(" ".join([str(own), start, *spaces]) + "\n")
    line = contain.rewrite('echo "$$" > inside.txt; ls /proc | grep -c "^[0-9]"', str(project))
    assert _joined_pid(line) not in (own, first)
    done = subprocess.run(["bash", "-c", line], cwd=project, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert int(done.stdout) < 10  # the namespace's processes, not the machine's
    home_write = run("touch ~/x", project)
    assert home_write.returncode != 0 and not (home / "x").exists()


# -- the switch, the status line and the hook's fallback ---------------------------


def test_contain_false_in_user_file_turns_it_off(project: Path) -> None:
    user = Path(contain.user_policy_path())
    user.parent.mkdir(parents=True)
    user.write_text("contain = false\n")
    assert contain.user_disabled()
    contained, why = contain.status()
    assert not contained and "contain = false" in why
    command, note = contain.shell_rewrite("echo hi", str(project))
    assert command == "echo hi" and "not contained" in note


def test_contain_switch_misspelt_keeps_it_on(project: Path) -> None:
    user = Path(contain.user_policy_path())
    user.parent.mkdir(parents=True)
    user.write_text('contain = "no"\n')
    assert not contain.user_disabled()
    _engine()
    assert contain.status()[0]


def test_project_cannot_switch_it_off(project: Path) -> None:
    (project / ".agentreflex" / "contain.toml").write_text("contain = false\n")
    (project / ".agentreflex" / "config.toml").write_text("contain = false\n")
    _engine()
    command, note = contain.shell_rewrite("echo hi", str(project))
    assert command.startswith(contain.engine_path() or "?") and note == ""


def test_fallback_without_engine_says_not_contained(
    monkeypatch: pytest.MonkeyPatch, project: Path
) -> None:
    monkeypatch.setenv("PATH", "/nonexistent")
    contained, why = contain.status()
    assert not contained and "bubblewrap" in why
    assert contain.shell_rewrite("echo hi", str(project)) == ("echo hi", why)


_IN_A_KERNEL_WITHOUT_NAMESPACES = """
import json, sys
from agentreflex.core.contain import boundary
print(json.dumps([boundary.status(), boundary.shell_rewrite("echo hi", sys.argv[1])]))
"""


def test_a_kernel_that_refuses_namespaces_leaves_the_command_to_the_gate_and_says_why(
    project: Path, home: Path
) -> None:
    """A real refusal: inside a user namespace whose ``max_user_namespaces`` is 0.

    bwrap is installed, but every command it wrapped would fail; the command
    is left as written (the gate has judged it) and the note says why.
    """
    _engine()
    unshare = shutil.which("unshare")
    assert unshare is not None, "util-linux's unshare is needed"
    done = subprocess.run(
        [
            unshare,
            "--user",
            "--map-root-user",
            "sh",
            "-c",
            'echo 0 > /proc/sys/user/max_user_namespaces && exec "$@"',
            "sh",
            sys.executable,
            "-c",
            _IN_A_KERNEL_WITHOUT_NAMESPACES,
            str(project),
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    (contained, why), (command, note) = json.loads(done.stdout)
    assert not contained and "cannot start here" in why and "namespace" in why
    assert command == "echo hi" and note == why
    # the refusal is not remembered: outside that namespace bwrap starts again
    assert contain.status()[0]
    assert contain.shell_rewrite("echo hi", str(project))[0] != "echo hi"


def test_a_bwrap_that_started_once_is_not_started_again_to_ask(
    project: Path, home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert contain.status()[0]
    marks = list((Path(userdirs.user_state_dir()) / "contain").glob("works-*"))
    assert len(marks) == 1

    def no_probe(*args: object, **kwargs: object) -> None:
        raise AssertionError("bwrap was started again to ask")

    monkeypatch.setattr(subprocess, "run", no_probe)
    assert contain.status()[0]


def test_fallback_on_broken_policy_and_missing_project(project: Path) -> None:
    _engine()
    assert "no project folder" in contain.shell_rewrite("echo hi", "")[1]
    assert "no project folder" in contain.shell_rewrite("echo hi", "relative/dir")[1]
    user = Path(contain.user_policy_path())
    user.parent.mkdir(parents=True)
    user.write_text("writable = [\n")
    command, note = contain.shell_rewrite("echo hi", str(project))
    assert command == "echo hi" and "not valid TOML" in note


def test_run_argv_runs_inside(project: Path) -> None:
    _engine()
    argv = contain.run_argv(["sh", "-c", "echo x > .agentreflex/config.toml"], str(project))
    assert subprocess.run(argv, cwd=project, capture_output=True).returncode != 0
    assert (project / ".agentreflex" / "config.toml").read_text() == "mode = 'enforced'\n"


# -- doctor and status ------------------------------------------------------------


def test_host_containment_per_host(project: Path) -> None:
    from agentreflex.core.contain.check import host_containment

    _engine()
    rows = {
        host: (ok, detail) for host, ok, detail in host_containment(str(project), enforced=True)
    }
    assert all(rows[host][0] for host in ("opencode", "pi", "gemini", "copilot"))
    assert "gemini's shell commands run" in rows["gemini"][1]
    assert "--allow-all-tools" in rows["copilot"][1]  # where it holds, said
    assert "--allow-all-tools" not in rows["gemini"][1]
    # Claude Code's own sandbox is off: the hook puts its Bash commands in ours
    assert rows["claude-code"][0] and "claude-code's shell commands run" in rows["claude-code"][1]
    assert "Claude Code's sandbox is off" in rows["claude-code"][1]
    assert rows["hermes"][0] and "hermes's shell commands run" in rows["hermes"][1]
    shadow = {host: ok for host, ok, _ in host_containment(str(project), enforced=False)}
    assert not shadow["opencode"] and not shadow["gemini"] and not shadow["copilot"]
    assert not shadow["claude-code"]  # in shadow mode the hook replaces nothing
    (project / ".claude" / "settings.local.json").write_text(
        '{"sandbox": {"enabled": true, "allowUnsandboxedCommands": false}}'
    )
    (project / ".codex").mkdir()
    (project / ".codex" / "config.toml").write_text('sandbox_mode = "workspace-write"\n')
    rows = {
        host: (ok, detail) for host, ok, detail in host_containment(str(project), enforced=True)
    }
    assert rows["claude-code"][0] and rows["codex"][0]
    # Codex's sandbox_mode confines writes only: the line says the key stays readable
    assert "read agentreflex's per-user key" in rows["codex"][1]
    assert "per-user key" not in rows["claude-code"][1]
    # the profile install writes: the key listed as "deny" is unreadable
    from agentreflex.core.state.userdirs import key_path

    (project / ".codex" / "config.toml").write_text(
        'default_permissions = "agentreflex"\n[permissions.agentreflex]\nextends = ":workspace"\n'
        f'[permissions.agentreflex.filesystem]\n"{key_path()}" = "deny"\n'
    )
    rows = {
        host: (ok, detail) for host, ok, detail in host_containment(str(project), enforced=True)
    }
    assert rows["codex"][0] and "per-user key is unreadable" in rows["codex"][1]
    assert "read agentreflex's per-user key" not in rows["codex"][1]
    (project / ".claude" / "settings.local.json").write_text('{"sandbox": {"enabled": true}}')
    (project / ".codex" / "config.toml").write_text('sandbox_mode = "danger-full-access"\n')
    rows = {
        host: (ok, detail) for host, ok, detail in host_containment(str(project), enforced=True)
    }
    # a command retried unsandboxed (dangerouslyDisableSandbox) is put in ours by the hook
    assert rows["claude-code"][0] and "retry unsandboxed" in rows["claude-code"][1]
    assert not rows["codex"][0] and "danger-full-access" in rows["codex"][1]


@pytest.mark.parametrize(
    ("relaxing", "said"),
    [
        ('default_permissions = ":danger-full-access"\n', "danger-full-access"),
        ('[permissions.agentreflex.filesystem]\n"{key}" = "read"\n', "per-user key"),
        (
            'profile = "yolo"\n[profiles.yolo]\nsandbox_mode = "danger-full-access"\n',
            "danger-full-access",
        ),
    ],
    ids=["profile-swapped", "key-made-readable", "config-profile-full-access"],
)
def test_a_projects_codex_config_that_relaxes_the_users_profile_is_not_believed(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, relaxing: str, said: str
) -> None:
    """Codex merges a trusted project's ``.codex/config.toml`` over the user's, table by
    table: a project file that chooses ``:danger-full-access`` or lists the per-user key
    "read" in our profile undoes what ``install codex --user --sandbox`` wrote, and doctor
    must not say "contained, the key unreadable" from the user's file."""
    from agentreflex.core.install.codex_sandbox import codex_contained
    from agentreflex.core.state.userdirs import key_path

    codex_home = tmp_path / "codex-home"
    codex_home.mkdir()
    monkeypatch.setenv("CODEX_HOME", str(codex_home))
    key = key_path()
    (codex_home / "config.toml").write_text(
        'default_permissions = "agentreflex"\n[permissions.agentreflex]\nextends = ":workspace"\n'
        f'[permissions.agentreflex.filesystem]\n"{key}" = "deny"\n'
    )
    contained, why = codex_contained(str(project), dict(os.environ))
    assert contained and "per-user key is unreadable" in why
    (project / ".codex").mkdir()
    (project / ".codex" / "config.toml").write_text(relaxing.replace("{key}", key))
    contained, why = codex_contained(str(project), dict(os.environ))
    assert "per-user key is unreadable" not in why
    assert said in why and (not contained or "read agentreflex's per-user key" in why)
    if "danger" in relaxing:  # a config profile Codex applies over the files: judged too
        assert not contained


def test_doctor_says_when_the_kernel_lets_a_command_type_into_its_terminal(
    tmp_path: Path,
) -> None:
    from agentreflex.core.contain.check import terminal_injection

    switch = tmp_path / "legacy_tiocsti"
    switch.write_text("1\n")
    assert "dev.tty.legacy_tiocsti=0" in terminal_injection(str(switch))
    switch.write_text("0\n")
    assert terminal_injection(str(switch)) == ""
    assert terminal_injection(str(tmp_path / "a kernel before 6.2")) == ""


def test_doctor_and_status_say_containment(project: Path) -> None:
    from agentreflex.core.cli import doctor, status

    report = doctor.diagnose(str(project))
    names = {c["check"]: c["detail"] for c in report["checks"]}
    assert "containment opencode" in names and "containment hermes" in names
    text = status.render(status.collect(str(project)))
    assert "containment pi" in text


def test_doctor_says_what_an_uncontained_agent_can_do_once(project: Path) -> None:
    """In shadow mode no host is contained: each host's line says why, and the risks,
    the same for every host, are said once, not once per host."""
    from agentreflex.core.cli import doctor
    from agentreflex.core.contain.boundary import UNCONTAINED_RISKS

    (project / ".agentreflex").mkdir(exist_ok=True)
    (project / ".agentreflex" / "config.toml").write_text('mode = "shadow"\n')
    report = doctor.diagnose(str(project))
    rows = {c["check"]: c["detail"] for c in report["checks"]}
    hosts = [
        name for name in rows if name.startswith("containment ") and name != "containment risk"
    ]
    assert "containment opencode" in hosts
    assert all("not contained" in rows[name] for name in hosts if name != "containment terminal")
    text = "\n".join(str(c["detail"]) for c in report["checks"])
    assert text.count(UNCONTAINED_RISKS) == 1
    assert UNCONTAINED_RISKS in rows["containment risk"]


def test_claude_sandbox_settings_come_from_the_policy(project: Path, home: Path) -> None:
    from agentreflex.core.install.base import Options
    from agentreflex.core.install.sandbox import claude_sandbox

    settings: dict[str, object] = {"sandbox": {"filesystem": {"denyWrite": ["/mine"]}}}
    log: list[object] = []
    claude_sandbox(
        settings, Options(scope="project", binary="agentreflex", project=str(project)), log
    )  # type: ignore[arg-type]
    sandbox = settings["sandbox"]
    assert isinstance(sandbox, dict)
    assert sandbox["allowUnsandboxedCommands"] is False and sandbox["failIfUnavailable"] is True
    fs = sandbox["filesystem"]
    assert fs["denyWrite"][0] == "/mine"  # merged, the user's entry kept
    assert (
        str(project / ".codex") in fs["denyWrite"] and str(project / ".gemini") in fs["denyWrite"]
    )
    assert userdirs.key_path() in fs["denyRead"] and userdirs.trust_record_path() in fs["denyRead"]
    assert os.path.join(str(home), ".cache", "uv") in fs["allowWrite"]


def test_rewritten_line_is_short_and_its_args_file_out_of_reach(project: Path) -> None:
    _engine()
    line = contain.rewrite("echo hi", str(project))
    assert " --args 9 -- " in line and "--ro-bind" not in line  # what the model sees stays short
    stored = mounts_file(line)
    assert stored.is_relative_to(userdirs.user_state_dir()) and stored.read_bytes().count(b"\0") > 5
    before = stored.read_bytes()
    done = run(f"echo '--bind / /' >> {stored}; rm -f {stored}", project)
    assert done.returncode != 0 and stored.read_bytes() == before


@pytest.mark.parametrize("planted", ["file", "link"])
def test_a_mounts_file_planted_outside_the_boundary_is_not_used(
    project: Path, tmp_path: Path, planted: str
) -> None:
    """A command that once ran uncontained could leave ``--bind / /`` under the file's
    name; the next contained command must not run with it."""
    _engine()
    (tmp_path / "evil.args").write_bytes(b"")
    contain.rewrite("echo hi", str(project))  # the first call makes the state folder it then hides
    stored = mounts_file(contain.rewrite("echo hi", str(project)))
    good = stored.read_bytes()
    bad = b"--bind\0/\0/\0"
    stored.unlink()
    if planted == "file":
        stored.write_bytes(bad)
    else:
        (tmp_path / "evil.args").write_bytes(bad)
        stored.symlink_to(tmp_path / "evil.args")
    line = contain.rewrite("echo hi", str(project))
    assert mounts_file(line) == stored
    assert not stored.is_symlink() and stored.read_bytes() == good
    escaped = run('touch "$HOME/outside"', project)  # home is read-only in the boundary
    assert escaped.returncode != 0 and not (Path(os.environ["HOME"]) / "outside").exists()


def test_unwritable_state_falls_back_to_the_full_line(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _engine()
    monkeypatch.setenv("XDG_STATE_HOME", "/proc/no-such-place")
    line = contain.rewrite("echo hi", str(project))
    assert "--ro-bind" in line
    done = subprocess.run(["bash", "-c", line], cwd=project, capture_output=True, text=True)
    assert done.returncode == 0 and done.stdout == "hi\n"


def test_inner_command_reads_back_what_rewrite_wrapped(project: Path) -> None:
    """Gemini and Copilot report the arguments a tool ran with: ours, when we contained it."""
    _engine()
    for command in ("pytest -q", "echo 'a b' && cd sub && make", "printf '%s' \"$HOME\""):
        line = contain.rewrite(command, str(project))
        assert contain.inner_command(line) == command
    # the form without a mounts file (the state folder could not be written)
    plain = shlex.join([_engine(), "--ro-bind", "/", "/", "--", "/bin/bash", "-c", "make"])
    assert contain.inner_command(plain) == "make"


def test_inner_command_leaves_every_other_line_alone() -> None:
    for line in (
        "pytest -q",
        "echo bwrap",
        "bwrap --ro-bind / / -- make",  # no shell -c and no mounts file: not a line rewrite writes
        "bwrap --args 9 -- 9< f",
        "bwrap 'unclosed",
        "/usr/bin/notbwrap --args 9 -- bash -c make 9< f",
    ):
        assert contain.inner_command(line) is None, line


def test_a_registered_host_says_how_it_is_contained(project: Path) -> None:
    """doctor and status ask each adapter: a new host adds its row by declaring ``containment``."""
    from agentreflex.core.contain.check import OUR_BOUNDARY, host_containment
    from agentreflex.core.hosts import register_host, unregister_host
    from agentreflex.core.hosts.pi import PiAdapter

    class Boxed(PiAdapter):
        containment = OUR_BOUNDARY

    class Open(PiAdapter):
        containment = ""
        not_contained = "not contained: this host runs commands itself"

    _engine()
    register_host("boxed-host", lambda: Boxed("boxed-host"))
    register_host("open-host", lambda: Open("open-host"))
    try:
        rows = {h: (ok, d) for h, ok, d in host_containment(str(project), enforced=True)}
    finally:
        unregister_host("boxed-host")
        unregister_host("open-host")
    assert rows["boxed-host"][0] and "boxed-host's shell commands run" in rows["boxed-host"][1]
    assert not rows["open-host"][0] and "this host runs commands itself" in rows["open-host"][1]


def test_nothing_is_mounted_inside_a_hidden_folder(tmp_path: Path) -> None:
    """The hook's own interpreter lives inside the Claude Code plugin's data folder, which
    is hidden: a read-only mount below it would make bwrap fail to start ("Can't mkdir
    parents ... Read-only file system"), so every contained command would fail."""
    engine = _engine()
    project = tmp_path / "proj"
    project.mkdir()
    data = tmp_path / "plugin-data"
    (data / "envs" / "abc" / "bin").mkdir(parents=True)
    (data / "envs" / "abc" / "secret").write_text("s")
    policy = contain.Policy(
        writable=("{project}",),
        read_only=(str(data / "envs" / "abc"),),
        unreadable=(str(data),),
    )
    found = contain.plan(str(project), policy)
    assert [m.path for m in found.mounts if m.path.startswith(str(data))] == [str(data)]
    argv = [*contain.bwrap_args(found, engine), "--", "sh", "-c", f"ls {data}; echo ok > made"]
    done = subprocess.run(argv, cwd=project, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "" and (project / "made").read_text() == "ok\n"  # hidden: empty


def test_a_path_gone_since_the_plan_is_skipped(tmp_path: Path) -> None:
    engine = _engine()
    project = tmp_path / "proj"
    (project / "gone").mkdir(parents=True)
    policy = contain.Policy(writable=("{project}",), read_only=("{project}/gone",), unreadable=())
    found = contain.plan(str(project), policy)
    (project / "gone").rmdir()  # removed between the hook's answer and the run
    argv = [*contain.bwrap_args(found, engine), "--", "sh", "-c", "echo ok > made"]
    done = subprocess.run(argv, cwd=project, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr


def test_only_mounts_that_change_something_are_bound(tmp_path: Path) -> None:
    """Each bind costs bwrap about 0.1 ms at start-up: a read-only path under a read-only
    one (the whole filesystem is, to begin with) or a writable one under a writable one
    is left out of bwrap's arguments, and each path is still what the plan says."""
    engine = _engine()
    project = tmp_path / "proj"
    (project / ".agentreflex").mkdir(parents=True)
    (project / "sub").mkdir()
    outside = tmp_path / "outside"
    (outside / "inner").mkdir(parents=True)
    policy = contain.Policy(
        writable=("{project}", "{project}/sub"),
        read_only=(str(outside), str(outside / "inner"), "{project}/.agentreflex"),
        unreadable=(str(outside / "inner" / "hidden"),),
    )
    (outside / "inner" / "hidden").write_text("s")
    found = contain.plan(str(project), policy)
    bound = [(m.path, m.kind) for m in contain.needed(found.mounts)]
    real = os.path.realpath
    assert bound == [
        (real(project), "pin"),  # it holds .agentreflex: it must not be renamed
        (real(project / ".agentreflex"), "ro"),
        (real(outside / "inner" / "hidden"), "hide"),
    ]
    assert len(found.mounts) == 6  # doctor still lists every path the policy names
    script = (
        f"echo a > sub/made; echo b > .agentreflex/x 2>/dev/null; "
        f"echo c > {outside}/inner/x 2>/dev/null; cat {outside}/inner/hidden; echo done"
    )
    argv = [*contain.bwrap_args(found, engine), "--", "sh", "-c", script]
    done = subprocess.run(argv, cwd=project, capture_output=True, text=True, check=False)
    assert done.stdout.strip() == "done", done.stderr
    assert (project / "sub" / "made").read_text() == "a\n"
    assert not (project / ".agentreflex" / "x").exists()
    assert not (outside / "inner" / "x").exists()


def test_the_command_sockets_the_sessions_variables_name_are_out_of_reach(
    project: Path, tmp_path: Path
) -> None:
    """Window managers and terminals that start what they are sent (red-team rt26): their
    sockets where the session's variables say, kitty's ``unix:`` form, Hyprland's folder."""
    runtime = tmp_path / "run"
    env = dict(
        os.environ,
        XDG_RUNTIME_DIR=str(runtime),
        SWAYSOCK=str(tmp_path / "sway.sock"),
        KITTY_LISTEN_ON=f"unix:{tmp_path / 'kitty.sock'}",
        WEZTERM_UNIX_SOCKET="relative/not/a/path",
        HYPRLAND_INSTANCE_SIGNATURE="../escape",
    )
    (runtime / "hypr" / "abc_123").mkdir(parents=True)
    (tmp_path / "sway.sock").touch()
    (tmp_path / "kitty.sock").touch()
    found = contain.socket_paths(str(project), env)
    assert str(tmp_path / "sway.sock") in found and str(tmp_path / "kitty.sock") in found
    assert not [p for p in found if "relative" in p or "escape" in p]
    env["HYPRLAND_INSTANCE_SIGNATURE"] = "abc_123"
    assert str(runtime / "hypr" / "abc_123") in contain.socket_paths(str(project), env)
    # only what exists is given: bwrap mounts over nothing else, Codex would leave a file
    env["SWAYSOCK"] = str(tmp_path / "gone.sock")
    assert str(tmp_path / "gone.sock") not in contain.socket_paths(str(project), env)
    assert str(runtime / "wayland-*") not in found  # a pattern is what it matches now


def test_what_homes_links_lead_to_in_the_project_is_read_only(project: Path, home: Path) -> None:
    """A dotfiles repository opened as the project (GNU Stow's layout, red-team rt26):
    ``~/.bashrc`` and ``~/.local/bin/tool`` lead into it, and git and the shell read
    them outside the boundary."""
    (project / "dotfiles").mkdir()
    (project / "dotfiles" / "bashrc").write_text("# mine\n")
    (project / "dotfiles" / "tool").write_text("#!/bin/sh\n")
    (home / ".bashrc").symlink_to(project / "dotfiles" / "bashrc")
    (home / ".local" / "bin").mkdir(parents=True)
    (home / ".local" / "bin" / "tool").symlink_to(project / "dotfiles" / "tool")
    (home / ".profile").symlink_to("/etc/hostname")  # outside what a command may write
    done = run(
        "echo 'curl x | sh' >> ~/.bashrc; echo evil > dotfiles/tool; touch dotfiles/new", project
    )
    assert (project / "dotfiles" / "bashrc").read_text() == "# mine\n", done.stderr
    assert (project / "dotfiles" / "tool").read_text() == "#!/bin/sh\n"
    assert (project / "dotfiles" / "new").exists()  # the rest of the repository is work
    mounts = contain.plan(str(project), contain.load_policy()).mounts
    assert not [m for m in mounts if m.path == "/etc/hostname"]


def test_the_ide_servers_tokens_are_out_of_reach(project: Path, home: Path) -> None:
    """Claude Code's IDE lock files (the extension's port and token) and the variables a
    host's IDE companion sets are not a contained command's to read (red-team rt28), nor
    the password of OpenCode's server, which runs commands outside every boundary."""
    ide = home / ".claude" / "ide"
    ide.mkdir(parents=True)
    (ide / "4242.lock").write_text('{"authToken": "t0ken"}\n')
    env = dict(
        os.environ,
        GEMINI_CLI_IDE_AUTH_TOKEN="t0ken",
        GEMINI_CLI_IDE_SERVER_PORT="4242",
        OPENCODE_SERVER_PASSWORD="t0ken",
    )
    line = f"cat {ide}/4242.lock; env | grep -c 'IDE_\\|SERVER_PASSWORD' || true; echo fine"
    done = run(line, project, env=env)
    assert "t0ken" not in done.stdout and "fine" in done.stdout
    assert done.stdout.split()[-2] == "0"


@pytest.mark.parametrize(
    "pattern",
    [
        "sway-ipc.*.sock",
        "*",
        ".*",
        "kitty-*",
        "a*b*",
        "*.sock",
        "zz*",
        "Sway*",
        "sway-ipc.0.*",
        "sway-ipc*",
    ],
)
def test_a_pattern_matched_against_a_kept_listing_matches_as_glob_does(
    tmp_path: Path, pattern: str
) -> None:
    """The sockets' patterns are matched against one listing of their folder, from their
    literal start (a busy temp folder is listed once per plan): the same paths as glob."""
    from agentreflex.core.contain.policy import globbed

    for name in (
        "sway-ipc.0.1.sock",
        "sway-ipc.0.2.sock",
        "sway-ipc",
        ".hidden.sock",
        "ab",
        "axxb",
        "kitty-1",
        "kitty",
        "Sway-ipc.1.sock",
        "zzz",
        "y.sock",
    ):
        (tmp_path / name).touch()
    listings: dict[str, list[str]] = {}
    path = str(tmp_path / pattern)
    assert globbed([path], listings) == sorted(glob.glob(path))
    assert globbed([path], listings) == sorted(glob.glob(path))  # from the kept listing


def test_the_daemons_socket_put_elsewhere_is_out_of_reach_too(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``AGENTREFLEX_SOCKET`` puts the daemon's socket outside its folder: the policy's
    ``{daemon}`` hides it there too (red-team rt33 reached it and had a record sealed)."""
    folder = tmp_path / "run"
    folder.mkdir()
    sock = folder / "daemon.sock"
    server = socket.socket(socket.AF_UNIX)
    server.bind(str(sock))
    server.listen(1)
    monkeypatch.setenv("AGENTREFLEX_SOCKET", str(sock))
    try:
        probe = (
            f'{sys.executable} -c "import socket; s = socket.socket(socket.AF_UNIX); '
            f"s.connect('{sock}'); print('reached')\""
        )
        done = run(probe, project)
    finally:
        server.close()
    assert "reached" not in done.stdout, done.stderr


def _needed_by_scan(mounts: list[contain.Mount]) -> list[contain.Mount]:
    """needed() as it was: each mount against every one kept before it (quadratic)."""
    from agentreflex.core.contain import engine

    kept: list[contain.Mount] = []
    for mount in mounts:
        above = next((m.kind for m in reversed(kept) if engine.inside(mount.path, m.path)), None)
        if above is None:
            above = next(k for base, k in engine._BASE if engine.inside(mount.path, base))
        if mount.kind in engine._ALWAYS or mount.kind != engine._KIND_OF.get(above, above):
            kept.append(mount)
    return kept


_PARTS = st.sampled_from(["a", "b", "proc", "dev", "tmp", "x.y"])


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.lists(_PARTS, min_size=0, max_size=4),
            st.sampled_from(["rw", "ro", "hide", "pin", "shadow"]),
        ),
        max_size=30,
    )
)
def test_the_mounts_kept_are_found_by_a_walk_up_as_by_the_scan_they_replace(
    drawn: list[tuple[list[str], str]],
) -> None:
    """needed() finds the deepest kept mount holding each path by walking up its folders
    (rt82: the scan of every kept mount was a tenth of a plan, asked twice per command):
    the same mounts kept, for any plan-ordered list (parents first, each path once)."""
    chosen = {"/" + "/".join(parts): kind for parts, kind in drawn}
    ordered = sorted(chosen.items(), key=lambda item: (item[0].count("/"), item[0]))
    mounts = [contain.Mount(path, kind) for path, kind in ordered]
    assert contain.needed(mounts) == _needed_by_scan(mounts)


def test_a_folders_listing_is_kept_between_plans_only_while_it_is_settled_and_unchanged(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The servers' socket patterns (``{tmp}/sway-ipc.*.sock``...) are matched against
    their folder's listing: a busy /tmp listed on every command was a tenth of a plan.
    A warm daemon keeps the listing while the folder's (device, inode, mtime, ctime) is
    the same, and only for a folder last changed more than a second before it was
    listed: a socket made in the same clock tick as the listing would otherwise leave
    the mtime as it was, and the socket unhidden."""
    from agentreflex.core.contain import policy

    monkeypatch.setattr(policy, "_SETTLED_NS", 200_000_000)  # a fifth of a second here
    folder = tmp_path / "run"
    folder.mkdir()
    (folder / "sway-ipc.1.sock").write_text("")
    time.sleep(0.3)
    listed: list[str] = []
    real = os.listdir

    def counted(path: str) -> list[str]:
        listed.append(path)
        return real(path)

    monkeypatch.setattr(os, "listdir", counted)
    pattern = [str(folder / "sway-ipc.*.sock")]
    one = [str(folder / "sway-ipc.1.sock")]
    assert policy.globbed(pattern, {}) == one
    assert policy.globbed(pattern, {}) == one
    assert len(listed) == 1  # the second plan read the first one's listing
    (folder / "sway-ipc.2.sock").write_text("")  # the folder changes: listed again
    both = [*one, str(folder / "sway-ipc.2.sock")]
    assert policy.globbed(pattern, {}) == both
    assert policy.globbed(pattern, {}) == both
    assert len(listed) == 3  # changed just now: not kept until it has settled
    time.sleep(0.3)
    assert policy.globbed(pattern, {}) == both
    assert policy.globbed(pattern, {}) == both
    assert len(listed) == 4
    stat = os.stat(folder)
    (folder / "sway-ipc.1.sock").unlink()
    os.utime(folder, ns=(stat.st_atime_ns, stat.st_mtime_ns))  # its mtime set back: ctime says
    assert policy.globbed(pattern, {}) == both[1:]


def test_a_policy_entry_is_expanded_by_the_placeholder_it_starts_with_and_no_other() -> None:
    """expand_entry looks the entry's leading ``{name}`` up instead of trying each of the
    placeholders in turn (rt82: some 120 entries a plan): a placeholder stands for its
    paths only as the whole entry or followed by ``/``; anything else is a path of its own
    or an error, as before."""
    from agentreflex.core.contain import policy

    values = {"{tmp}": ["/t1", "/t2"], "{project}": ["/p"], "{user}": ["u"]}
    expand = policy.expand_entry
    assert expand("{tmp}", values, "/h") == ["/t1", "/t2"]
    assert expand("{tmp}/a/b", values, "/h") == ["/t1/a/b", "/t2/a/b"]
    assert expand("{tmp}/", values, "/h") == ["/t1/", "/t2/"]
    assert expand("{project}/x-{user}", values, "/h") == ["/p/x-u"]
    assert expand("~/.x", values, "/h") == ["/h/.x"]
    assert expand("/abs/{tmp}", values, "/h") == ["/abs/{tmp}"]
    for entry in ("{tmp}x", "{tmp}{project}", "{nope}/x", "{tmp"):
        with pytest.raises(policy.PolicyError):
            expand(entry, values, "/h")


# A client of the X protocol with MIT-MAGIC-COOKIE-1 (what xdotool and every X client do
# first): the cookie read from an Xauthority file (the first MIT-MAGIC-COOKIE-1 entry), the
# connection setup sent, the first byte of the server's answer printed (1: accepted).
_X_PROBE = """
import socket, struct, sys
def cookie(path):
    try:
        data = open(path, "rb").read()
    except OSError:
        return b""
    at = 0
    while at + 2 <= len(data):
        fields = []
        at += 2
        for _ in range(4):
            (size,) = struct.unpack(">H", data[at:at + 2])
            fields.append(data[at + 2:at + 2 + size])
            at += 2 + size
        if fields[2] == b"MIT-MAGIC-COOKIE-1":
            return fields[3]
    return b""
def pad(b):
    return b + b"\\0" * (-len(b) % 4)
secret = cookie(sys.argv[1])
name = b"MIT-MAGIC-COOKIE-1" if secret else b""
setup = struct.pack("<BxHHHHxx", 0x6C, 11, 0, len(name), len(secret)) + pad(name) + pad(secret)
held = []  # each client kept: a server resets when its last client leaves
for where in sys.argv[2:]:
    s = socket.socket(socket.AF_UNIX)
    held.append(s)
    try:
        s.connect(where.replace("@", "\\0", 1))
        s.sendall(setup)
        print(where, "answer", s.recv(1)[:1].hex() or "none")
    except OSError as exc:
        print(where, "refused", exc.errno)
"""


@pytest.fixture
def users_display(
    home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[tuple[int, Path]]:
    """A real X server of the user's (Xvfb), started outside the boundary, that takes only
    clients with its cookie, kept where X sessions keep it: ``~/.Xauthority``, and the file
    ``XAUTHORITY`` names (GNOME's Xwayland keeps it in the runtime folder)."""
    xvfb, xauth = shutil.which("Xvfb"), shutil.which("xauth")
    if xvfb is None or xauth is None:
        pytest.fail("Xvfb and xauth are not installed: `apt-get install -y xvfb xauth`")
    named = tmp_path / "run" / ".mutter-Xwaylandauth.AB12"
    named.parent.mkdir()
    read, write = os.pipe()
    server = subprocess.Popen(
        [xvfb, "-displayfd", str(write), "-nolisten", "tcp", "-auth", str(named)],
        pass_fds=(write,),
        stderr=subprocess.DEVNULL,
    )
    os.close(write)
    try:
        with os.fdopen(read) as answer:
            display = int(answer.readline())
        cookie = os.urandom(16).hex()
        for path in (named, home / ".Xauthority"):
            subprocess.run(
                [xauth, "-f", str(path), "add", f":{display}", ".", cookie],
                check=True,
                capture_output=True,
                timeout=30,
            )
        monkeypatch.setenv("DISPLAY", f":{display}")  # the host's session, as the hook sees it
        monkeypatch.setenv("XAUTHORITY", str(named))
        yield display, named
    finally:
        server.terminate()
        server.wait(timeout=30)


def test_the_users_x_server_takes_no_contained_client(
    project: Path, home: Path, users_display: tuple[int, Path]
) -> None:
    """An X client of the user's display types into any window, the user's terminal included
    (xdotool, XTest), whose shell runs it outside the boundary.  The server listens on
    ``/tmp/.X11-unix/X<n>`` and on the abstract ``@/tmp/.X11-unix/X<n>``, which no mount
    hides while the network is shared: its cookie is what keeps a contained client out."""
    display, named = users_display
    sockets = [f"/tmp/.X11-unix/X{display}", f"@/tmp/.X11-unix/X{display}"]
    for cookies in (str(named), str(home / ".Xauthority")):
        probe = shlex.join([sys.executable, "-c", _X_PROBE, cookies, *sockets])
        outside = subprocess.run(["bash", "-c", probe], capture_output=True, text=True)
        assert outside.stdout.count("answer 01") == 2, outside  # the cookie lets a client in
        done = run(probe, project)
        assert "answer 01" not in done.stdout, (cookies, done.stdout, done.stderr)
    # the folder stays the command's: an X server of its own (xvfb-run's) can start there
    own = run("xvfb-run -a sh -c 'echo $DISPLAY'", project)
    assert own.returncode == 0 and own.stdout.startswith(":"), own.stderr


@pytest.mark.parametrize(
    "where",
    [
        "{runtime}/.mutter-Xwaylandauth.AB12",  # GNOME's Xwayland (mutter)
        "{runtime}/gdm/Xauthority",  # GDM's X11 session
        "{runtime}/xauth_Q1w2E3",  # SDDM's X11 session, KWin's Xwayland
        "~/.serverauth.4242",  # startx's copy for the server (xinit's xserverauthfile)
    ],
)
def test_the_users_x_cookie_is_unreadable_where_the_session_keeps_it_unnamed(
    project: Path,
    home: Path,
    users_display: tuple[int, Path],
    monkeypatch: pytest.MonkeyPatch,
    where: str,
) -> None:
    """A host started where the desktop's ``XAUTHORITY`` is not set (a tmux server or an
    ssh session on the user's own desktop, a systemd user service) still shares the
    loopback network with the X server's abstract socket, and the cookie is where the
    session keeps it, at a path known or globbed: ``$XDG_RUNTIME_DIR/.mutter-Xwaylandauth.*``
    (Fedora's GNOME), GDM's, SDDM's and KWin's ``xauth_*``, startx's ``~/.serverauth.*``
    (red-team rt99)."""
    display, named = users_display
    # (the server's own file stays: a server reads it again at each reset, and without it
    # takes any client)
    runtime = named.parent if "mutter" in where else named.parent.with_name("session")
    cookies = Path(where.replace("{runtime}", str(runtime)).replace("~", str(home)))
    cookies.parent.mkdir(parents=True, exist_ok=True)
    if cookies != named:
        shutil.copy(named, cookies)
    (home / ".Xauthority").unlink()
    monkeypatch.delenv("XAUTHORITY")
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(runtime))
    sockets = [f"/tmp/.X11-unix/X{display}", f"@/tmp/.X11-unix/X{display}"]
    probe = shlex.join([sys.executable, "-c", _X_PROBE, str(cookies), *sockets])
    outside = subprocess.run(["bash", "-c", probe], capture_output=True, text=True)
    assert outside.stdout.count("answer 01") == 2, outside  # the cookie lets a client in
    done = run(probe, project)
    assert "answer 01" not in done.stdout, (done.stdout, done.stderr)


@pytest.fixture
def users_a11y_bus(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A real D-Bus daemon where the user's accessibility bus listens (at-spi2-core's
    launcher: ``$XDG_RUNTIME_DIR/at-spi/bus_<display>``), started outside the boundary."""
    daemon = shutil.which("dbus-daemon")
    if daemon is None:
        pytest.fail("dbus-daemon is not installed: `apt-get install -y dbus-daemon`")
    runtime = tmp_path / "run"
    (runtime / "at-spi").mkdir(parents=True)
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(runtime))
    path = runtime / "at-spi" / "bus_0"
    server = subprocess.Popen(
        [daemon, "--session", f"--address=unix:path={path}", "--nofork", "--print-address=1"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    try:
        assert server.stdout is not None and server.stdout.readline().startswith(b"unix:")
        yield path
    finally:
        server.terminate()
        server.wait(timeout=30)
        if server.stdout is not None:
            server.stdout.close()


def test_the_users_accessibility_bus_is_out_of_reach(project: Path, users_a11y_bus: Path) -> None:
    """The accessibility bus takes any client of the user's uid (D-Bus EXTERNAL, which the
    kernel answers with the user's own uid from inside the boundary too), and its registry
    types keys into the focused window (DeviceEventController.GenerateKeyboardEvent), the
    user's terminal included: red-team rt97.  Its address is found by path, with the session
    bus out of reach."""
    send = shutil.which("dbus-send")
    if send is None:
        pytest.fail("dbus-send is not installed: `apt-get install -y dbus-bin`")
    call = ["/org/freedesktop/DBus", "org.freedesktop.DBus.ListNames"]
    bus = f"--bus=unix:path={users_a11y_bus}"
    line = shlex.join([send, bus, "--print-reply", "--dest=org.freedesktop.DBus", *call])
    outside = subprocess.run(["bash", "-c", line], capture_output=True, text=True, timeout=60)
    assert "org.freedesktop.DBus" in outside.stdout, outside  # the bus takes the user's client
    done = run(line, project)
    assert "org.freedesktop.DBus" not in done.stdout and done.returncode != 0, done


def test_the_users_other_terminals_take_nothing_a_command_writes(project: Path) -> None:
    """A terminal the user has open (another window, the host's own) shows what is written
    to its device, and acts on some of it: kitty with ``allow_remote_control yes`` runs the
    remote-control command an escape code carries (``launch`` a shell), and OSC 52 sets the
    clipboard the user pastes into a shell.  The device is the user's, so its mode lets any
    process of the user's write it (red-team rt97): inside the boundary each terminal open
    when the command starts is an empty device."""
    import pty
    import select

    users, users_side = pty.openpty()  # the terminal emulator's end, and the shell's
    name = os.ttyname(users_side)
    try:
        # by its name, and through the holder of the project's namespaces (/proc/1/root)
        code = "printf '\\033P@kitty-cmd{}\\033\\\\'"
        line = contain.rewrite(f"{code} > {name}; {code} > /proc/1/root{name}", str(project))
        # the command's own terminal: one the host opens for it after the hook answered
        own, own_side = pty.openpty()
        try:
            done = subprocess.run(
                ["bash", "-c", line + "; tty; echo mine"],
                cwd=project,
                stdin=own_side,
                stdout=own_side,
                stderr=subprocess.DEVNULL,
                timeout=120,
            )
            assert done.returncode == 0
            assert select.select([own], [], [], 5)[0] and b"mine" in os.read(own, 4096)
        finally:
            os.close(own)
            os.close(own_side)
        assert not select.select([users], [], [], 1)[0], os.read(users, 4096)
    finally:
        os.close(users)
        os.close(users_side)


def test_a_servers_socket_in_a_linked_folder_is_hidden_and_commands_still_run(
    project: Path, home: Path, tmp_path: Path
) -> None:
    """``~/.pm2`` a link to a folder elsewhere (a dotfiles manager's, a larger disk): the
    socket's path through the link was mounted as spelled, and bubblewrap, which reads an
    absolute link from its own root while it sets up, failed every contained command
    ("Can't create file at ~/.pm2/rpc.sock"); it is hidden where the link leads (rt99)."""
    moved = tmp_path / "pm2"
    moved.mkdir()
    (home / ".pm2").symlink_to(moved)
    server = socket.socket(socket.AF_UNIX)
    server.bind(str(moved / "rpc.sock"))
    server.listen(1)
    try:
        reach = f"import socket; socket.socket(socket.AF_UNIX).connect({str(home / '.pm2' / 'rpc.sock')!r})"
        outside = subprocess.run([sys.executable, "-c", reach], capture_output=True, text=True)
        assert outside.returncode == 0, outside.stderr  # the daemon takes the user's client
        done = run(f"echo ran; {shlex.join([sys.executable, '-c', reach])}", project)
        assert done.stdout == "ran\n", done.stderr
        assert done.returncode != 0, done
    finally:
        server.close()


def test_a_servers_socket_is_where_the_hosts_variable_puts_it(
    project: Path, tmp_path: Path
) -> None:
    """``{env:PM2_HOME}/rpc.sock``: PM2's daemon where the host's environment moved it, read
    from the environment the plan is for (the daemon plans for a host whose variables it
    was sent, not its own): red-team rt97."""
    moved = tmp_path / "pm2"
    moved.mkdir()
    server = socket.socket(socket.AF_UNIX)
    server.bind(str(moved / "rpc.sock"))
    try:
        env = dict(os.environ, PM2_HOME=str(moved))
        assert "PM2_HOME" not in os.environ
        assert str(moved / "rpc.sock") in contain.socket_paths(str(project), env)
        hidden = contain.plan(str(project), contain.load_policy(env), env).mounts
        assert contain.Mount(str(moved / "rpc.sock"), "hide") in hidden
    finally:
        server.close()


@pytest.mark.parametrize("where", [".config/pm2", ".local/bin/pm2", ".ssh/pm2"])
def test_a_servers_socket_in_a_held_folder_is_hidden_too(
    project: Path, home: Path, where: str
) -> None:
    """``PM2_HOME=~/.config/pm2``: a socket entry hides what it names wherever the variable
    puts it.  The rule that keeps a variable's value from making a folder writable (a value
    in a held or runs_later folder moves nothing) is for writable entries; applied to a
    socket entry it left the daemon reachable exactly where home is held."""
    moved = home / where
    moved.mkdir(parents=True)
    server = socket.socket(socket.AF_UNIX)
    server.bind(str(moved / "rpc.sock"))
    try:
        env = dict(os.environ, PM2_HOME=str(moved))
        env["PATH"] = f"{home / '.local' / 'bin'}:{env.get('PATH', '')}"
        assert str(moved / "rpc.sock") in contain.socket_paths(str(project), env)
        hidden = contain.plan(str(project), contain.load_policy(env), env).mounts
        assert contain.Mount(str(moved / "rpc.sock"), "hide") in hidden
    finally:
        server.close()
