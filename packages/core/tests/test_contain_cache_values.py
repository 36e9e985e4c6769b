"""A cache variable's value that is a folder something runs from later moves nothing.

Red-team rt92: rt90 refused values at or above home or the project, but one inside home
that is a sensitive folder passed (``PRE_COMMIT_HOME=~/.ssh``, ``npm_config_cache=
~/.local/bin``, ``GOCACHE=~/.config``).  A project's ``.envrc`` or a dotenv the host loads
can set such a value before the session starts; the boundary's plan (and what ``install
--sandbox`` writes into Claude Code's ``allowWrite``) then made that folder writable.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from agentreflex.core.contain import boundary as contain
from agentreflex.core.contain.policy import inside, unmoved_reason
from agentreflex.core.state import userdirs
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st


def _world(tmp_path: Path) -> tuple[str, str, dict[str, str]]:
    home, project = tmp_path / "home", tmp_path / "proj"
    project.mkdir(parents=True, exist_ok=True)
    home.mkdir(exist_ok=True)
    path = f"{home}/.cargo/bin:/usr/bin:/bin"
    return str(home), str(project), {"HOME": str(home), "PATH": path}


# what a value may not be at, above or inside: the folders something runs from later, the
# guard's files; and (at or above only) a folder on the session's PATH, and (at or inside
# only) the guard's cache, whose folder follows the cache base the tools use too
DEEP = [".ssh", ".gnupg", ".config", ".local/bin", ".local/share/applications", "bin"]
DEEP += [".claude", ".codex", ".local/state/agentreflex"]
ON_PATH = [".cargo/bin"]
REBUILT = [".cache/agentreflex"]
# and some of their neighbours, each refused
NEAR = [".ssh/authorized_keys", ".config/autostart", ".config/systemd/user", ".local"]
NEAR += [".claude/hooks", ".cargo", ".cache/agentreflex/shadow"]
SENSITIVE = DEEP + ON_PATH + REBUILT + NEAR
ORDINARY = [".cache/x", ".npm", "go/pkg/mod", ".cache/pre-commit", ".cache", "new-folder"]


@pytest.mark.parametrize("where", SENSITIVE)
def test_a_sensitive_folder_in_home_is_not_a_cache(tmp_path: Path, where: str) -> None:
    home, project, env = _world(tmp_path)
    value = os.path.join(home, where)
    env.update(PRE_COMMIT_HOME=value, GOCACHE=value, npm_config_cache=value)
    assert unmoved_reason(value, home, [project], env) is not None
    assert contain.expand(["{env:PRE_COMMIT_HOME}", "{env:GOCACHE}"], project, env) == []
    assert contain.expand(["{env:npm_config_cache}/_npx"], project, env) == []


def test_the_plan_makes_none_of_them_writable(tmp_path: Path) -> None:
    """Our own boundary: no writable or shadowed mount at, above or in such a folder."""
    home, project, env = _world(tmp_path)
    for where in (".ssh", ".config", ".local/bin"):
        os.makedirs(os.path.join(home, where))
    env.update(
        PRE_COMMIT_HOME=os.path.join(home, ".ssh"),
        GOCACHE=os.path.join(home, ".config"),
        npm_config_cache=os.path.join(home, ".local/bin"),
        PIP_CACHE_DIR=os.path.join(home, ".gnupg"),
    )
    result = contain.plan(project, contain.load_policy(), env)
    for mount in result.mounts:
        if mount.kind in ("rw", "shadow", "pin"):
            for where in (".ssh", ".config", ".local/bin", ".gnupg"):
                assert not inside(mount.path, os.path.join(home, where)), mount


def test_ordinary_caches_stay_writable(tmp_path: Path) -> None:
    home, project, env = _world(tmp_path)
    for where in ORDINARY:
        value = os.path.join(home, where)
        env["GOCACHE"] = value
        assert unmoved_reason(value, home, [project], env) is None, where
        assert contain.expand(["{env:GOCACHE}"], project, env) == [value]
    for value in (str(tmp_path / "t" / "go"), os.path.join(project, ".gocache")):
        env["GOCACHE"] = value
        assert contain.expand(["{env:GOCACHE}"], project, env) == [value]
    # a cache base under /tmp (red-team rt80) still moves the tools' caches, though the
    # guard's own cache folder follows it there
    env["XDG_CACHE_HOME"] = str(tmp_path / "xdg")
    assert contain.expand(["{cache}/pip"], project, env)[0] == str(tmp_path / "xdg" / "pip")


def test_a_link_to_a_sensitive_folder_is_read_where_it_leads(tmp_path: Path) -> None:
    home, project, env = _world(tmp_path)
    os.makedirs(os.path.join(home, ".ssh"))
    (tmp_path / "innocent").symlink_to(os.path.join(home, ".ssh"))
    env["GOCACHE"] = str(tmp_path / "innocent")
    assert contain.expand(["{env:GOCACHE}"], project, env) == []


def _refused(home: str, value: str) -> bool:
    """What the rule says of ``value`` (normalised), written out from its definition."""
    if value == home or not inside(value, home):
        return True  # rt90's: home, above it, elsewhere outside (/usr/bin...); none here

    def at(names: list[str]) -> list[str]:
        return [os.path.join(home, n) for n in names]

    return (
        any(inside(value, s) or inside(s, value) for s in at(DEEP))
        or any(inside(s, value) for s in at(ON_PATH))
        or any(inside(value, s) for s in at(REBUILT))
    )


@settings(
    max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    base=st.sampled_from(SENSITIVE + ORDINARY),
    tail=st.sampled_from(["", "/", "/x", "/..", "/./", "/a/b", "x", "/../.."]),
)
def test_neighbours_of_the_sensitive_folders(tmp_path: Path, base: str, tail: str) -> None:
    """A value is refused exactly when the rule says (at, above or inside a held folder, at
    or above one on PATH), however spelled; a folder beside one (``~/.sshx``) stays a cache."""
    home, project, env = _world(tmp_path)
    value = os.path.join(home, base) + tail
    norm = os.path.normpath(value)
    if inside(norm, project) or inside(norm, "/usr"):
        return
    why = unmoved_reason(value, home, [project], env)
    assert (why is not None) == _refused(home, norm), (value, why)


def test_the_folders_follow_the_variables_that_move_them(tmp_path: Path) -> None:
    """``runs_later``'s ``{config_home}``, ``{claude_home}``: where XDG_CONFIG_HOME and
    CLAUDE_CONFIG_DIR put them, outside home too."""
    _, project, env = _world(tmp_path)
    env.update(XDG_CONFIG_HOME=str(tmp_path / "cfg"), CLAUDE_CONFIG_DIR=str(tmp_path / "cl"))
    for value in (tmp_path / "cfg" / "autostart", tmp_path / "cl" / "commands", tmp_path):
        env["GOCACHE"] = str(value)
        assert contain.expand(["{env:GOCACHE}"], project, env) == [], value
    env["GOCACHE"] = str(tmp_path / "cfgx")
    assert contain.expand(["{env:GOCACHE}"], project, env) == [str(tmp_path / "cfgx")]


def test_the_guard_state_folder_follows_its_variable(tmp_path: Path) -> None:
    home, project, env = _world(tmp_path)
    env["XDG_STATE_HOME"] = str(tmp_path / "state")
    state = userdirs.user_state_dir(env)
    assert unmoved_reason(state, home, [project], env) is not None
    assert unmoved_reason(str(tmp_path / "state"), home, [project], env) is not None
