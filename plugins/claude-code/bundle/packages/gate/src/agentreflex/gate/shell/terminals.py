"""Command lines handed to a terminal server: what runs there runs in another shell.

``tmux new-window 'rm -rf ~/.claude'``, ``tmux send-keys 'rm -rf ~' Enter``,
``screen -S main -X stuff 'rm -rf ~^M'``, ``zellij run -- rm -rf ~``,
``kitty @ launch rm -rf ~``: the outer command only talks to a server, and the
server starts the command (or types it into a shell) on its own.  That server
is the user's, outside any boundary the agent's command runs in, so its
command line is judged here as the shell command it becomes.  Contained
commands can't reach the user's servers at all (``contain.toml``'s
``sockets``); this is what explains them, and what holds where nothing is
contained.

Each function returns the shell text a server would run, and the folder it
would run in when the command says (``-c DIR``); None for "the server's own
folder", which the gate cannot know.
"""

from __future__ import annotations

import shlex

__all__ = ["PROGRAMS", "Handed", "handed"]

Handed = tuple[str, str | None]  # (shell text, folder or None)

PROGRAMS = frozenset({"tmux", "screen", "zellij", "kitty", "kitten", "wezterm"})

# tmux's own options before its command: tmux [-2CDlNuVv] [-c shell-command] [-f file]
# [-L socket-name] [-S socket-path] [-T features]
_TMUX_GLOBAL = frozenset("cfLST")
# tmux command -> (canonical name, letters that take a value); aliases included
_TMUX: dict[str, tuple[str, frozenset[str]]] = {}
for _names, _valued in (
    (("new-session", "new"), "cefFnstxy"),
    (("new-window", "neww"), "ceFnt"),
    (("split-window", "splitw"), "celtFp"),
    (("respawn-pane", "respawnp"), "cet"),
    (("respawn-window", "respawnw"), "cet"),
    (("run-shell", "run"), "dtc"),
    (("pipe-pane", "pipep"), "t"),
    (("display-popup", "popup"), "bcdehsStTwxy"),
    (("if-shell", "if"), "t"),
    (("send-keys", "send"), "cNt"),
    (("bind-key", "bind"), "NT"),
    (("set-hook",), "t"),
):
    for _name in _names:
        _TMUX[_name] = (_names[0], frozenset(_valued))

# send-keys key names: those that end a line, those that throw the typed line away
_ENTER = frozenset({"Enter", "C-m", "KPEnter", "C-j", "^M", "^J"})
_DISCARD = frozenset({"C-c", "C-u", "^C", "^U", "Escape"})
_TYPED = {"Space": " ", "Tab": "\t", "C-i": "\t"}


def _getopt(words: list[str], valued: frozenset[str]) -> tuple[dict[str, str], list[str]]:
    """(flags and their values, the words after them), the way tmux's getopt reads them."""
    flags: dict[str, str] = {}
    i = 0
    while i < len(words):
        word = words[i]
        if word == "--":
            return flags, words[i + 1 :]
        if not word.startswith("-") or word == "-":
            break
        for k, letter in enumerate(word[1:], 1):
            if letter in valued:
                value = word[k + 1 :]
                if not value and i + 1 < len(words):
                    i += 1
                    value = words[i]
                flags[letter] = value
                break
            flags[letter] = ""
        i += 1
    return flags, words[i:]


def _split_commands(words: list[str]) -> list[list[str]]:
    """tmux commands separated by ``;`` (``\\;`` in the shell)."""
    commands: list[list[str]] = [[]]
    for word in words:
        if word == ";":
            commands.append([])
        elif word.endswith(";") and not word.endswith("\\;") and len(word) > 1:
            commands[-1].append(word[:-1])
            commands.append([])
        else:
            commands[-1].append(word)
    return [c for c in commands if c]


def _command_text(words: list[str]) -> str:
    """One word is a shell command line; several are a program and its arguments."""
    return words[0] if len(words) == 1 else shlex.join(words)


def _typed(keys: list[str], literal: bool) -> list[Handed]:
    """What ``send-keys`` types into a shell, as one script (a ``cd`` typed first carries on).

    Each line is ended by Enter, or left at the prompt, where a later Enter runs it.
    """
    lines: list[str] = []
    line = ""
    for key in keys:
        if not literal and key in _ENTER:
            lines.append(line)
            line = ""
        elif not literal and key in _DISCARD:
            line = ""
        elif not literal and key in _TYPED:
            line += _TYPED[key]
        else:
            parts = key.replace("\r", "\n").split("\n")
            lines.extend(line + p if n == 0 else p for n, p in enumerate(parts[:-1]))
            line = (line if len(parts) == 1 else "") + parts[-1]
    lines.append(line)
    script = "\n".join(text for text in lines if text.strip())
    return [(script, None)] if script else []


def _tmux_string(text: str, depth: int) -> list[Handed]:
    """A tmux command given as one string (if-shell's, bind-key's, set-hook's)."""
    try:
        words = shlex.split(text)
    except ValueError:
        return [(text, None)]  # unreadable: judged as shell, which fails closed on markers
    return _tmux_commands(words, depth + 1)


def _tmux_commands(words: list[str], depth: int = 0) -> list[Handed]:
    if depth > 4:
        return []
    found: list[Handed] = []
    for command in _split_commands(words):
        name, valued = _TMUX.get(command[0], ("", frozenset()))
        if not name:
            continue
        flags, rest = _getopt(command[1:], valued)
        folder = flags.get("d" if name == "display-popup" else "c")
        if name == "new-session" and not folder:
            folder = "."  # a new session starts where the tmux client was started
        if name == "send-keys":
            found += _typed(rest, "l" in flags)
        elif name == "run-shell" and "C" in flags:
            found += _tmux_commands(rest, depth + 1)
        elif name == "if-shell":  # with -F the first word is a format, not shell
            found += [(text, None) for text in rest[:1] if "F" not in flags]
            for text in rest[1:]:
                found += _tmux_string(text, depth)
        elif name == "bind-key":
            found += _tmux_commands(rest[1:], depth + 1)
        elif name == "set-hook":
            for text in rest[1:]:
                found += _tmux_string(text, depth)
        elif rest:
            found.append((_command_text(rest), folder or None))
    return found


def _tmux(args: list[str]) -> list[Handed]:
    flags, rest = _getopt(args, _TMUX_GLOBAL)
    found: list[Handed] = [(flags["c"], None)] if flags.get("c") else []
    return found + _tmux_commands(rest)


# screen's options that take a value (as the next word)
_SCREEN_VALUED = frozenset({"-c", "-e", "-h", "-p", "-S", "-s", "-t", "-T", "-Logfile", "-X", "-P"})
_SCREEN_ATTACH = frozenset({"-r", "-R", "-x", "-d", "-D", "-ls", "-list", "-wipe", "-RR", "-Q"})


def _stuffed(text: str) -> str:
    """screen's ``stuff`` string: ``^M``, ``\\n``, ``\\r`` and ``\\015`` end a line."""
    for ending in ("^M", "^J", "\\n", "\\r", "\\015", "\\012"):
        text = text.replace(ending, "\n")
    return text


def _screen_command(words: list[str]) -> list[Handed]:
    """A screen command sent with ``-X`` (or inside ``eval``)."""
    if not words:
        return []
    verb, rest = words[0], words[1:]
    if verb == "stuff":
        return _typed([_stuffed(" ".join(rest))], True)
    if verb == "exec":
        rest = rest[1:] if rest and set(rest[0]) <= set(".|!:") else rest
        return [(_command_text(rest), None)] if rest else []
    if verb == "screen":
        rest = _skip_screen_options(rest)
        return [(_command_text(rest), None)] if rest else []
    if verb == "eval":
        found: list[Handed] = []
        for text in rest:
            try:
                found += _screen_command(shlex.split(text))
            except ValueError:
                found.append((text, None))
        return found
    return []


def _skip_screen_options(words: list[str]) -> list[str]:
    i = 0
    while i < len(words) and words[i].startswith("-"):
        i += 2 if words[i] in _SCREEN_VALUED or words[i] in ("-S", "-t") else 1
    return words[i:]


def _screen(args: list[str]) -> list[Handed]:
    i, detached, attaching = 0, False, False
    while i < len(args) and args[i].startswith("-"):
        word = args[i]
        if word == "-X":
            return _screen_command(args[i + 1 :])
        if word in _SCREEN_ATTACH:
            attaching = True
        elif not word.startswith("--") and "m" in word[1:] and word not in _SCREEN_VALUED:
            detached = True  # -m, -dm, -dmS NAME
        combined_name = len(word) > 2 and not word.startswith("--") and word.endswith("S")
        if word in _SCREEN_VALUED or combined_name:
            i += 1  # -S NAME, -dmS NAME: the name is the next word
        i += 1
    rest = args[i:]
    if not rest or (attaching and not detached):
        return []
    return [(_command_text(rest), None)]


def _after_dashes(words: list[str]) -> list[str]:
    return words[words.index("--") + 1 :] if "--" in words else []


def _zellij(args: list[str]) -> list[Handed]:
    """``zellij run -- CMD``, ``zellij action new-pane -- CMD``, ``... write-chars TEXT``."""
    words = args[args.index("action") :] if "action" in args else args
    if "run" in args and "action" not in args:
        rest = _after_dashes(args)
        return [(_command_text(rest), None)] if rest else []
    if words[1:2] == ["new-pane"]:
        rest = _after_dashes(words)
        return [(_command_text(rest), None)] if rest else []
    if words[1:2] == ["write-chars"] and len(words) > 2:
        return _typed([" ".join(words[2:])], True)
    return []


# kitty's launch options that take a value (as the next word)
_KITTY_VALUED = frozenset(
    {
        "--title",
        "--window-title",
        "--tab-title",
        "--type",
        "--cwd",
        "--env",
        "--var",
        "--location",
        "--match",
        "-m",
        "--next-to",
        "--bias",
        "--stdin-source",
        "--marker",
        "--os-window-class",
        "--os-window-name",
        "--os-window-title",
        "--logo",
        "--color",
        "--spacing",
        "--watcher",
        "--source-window",
        "--to",
        "--password",
    }
)


def _kitty(args: list[str]) -> list[Handed]:
    """``kitty @ launch CMD``, ``kitten @ run CMD``, ``kitty @ send-text TEXT``."""
    if args[:1] != ["@"]:
        return []
    words = args[1:]
    while words and words[0].startswith("-"):  # kitty @ --to unix:... launch
        words = words[2:] if words[0] in _KITTY_VALUED and "=" not in words[0] else words[1:]
    verb, rest = (words[0], words[1:]) if words else ("", [])
    if verb in ("launch", "run"):
        i = 0
        while i < len(rest) and rest[i].startswith("-"):
            if rest[i] == "--":
                i += 1
                break
            i += 2 if rest[i] in _KITTY_VALUED and "=" not in rest[i] else 1
        command = rest[i:]
        return [(_command_text(command), None)] if command else []
    if verb == "send-text":
        text = [w for w in rest if not w.startswith("-")]
        return _typed([_stuffed(" ".join(text))], True)
    return []


def _wezterm(args: list[str]) -> list[Handed]:
    """``wezterm cli spawn|split-pane -- CMD``, ``wezterm cli send-text TEXT``."""
    if args[:1] != ["cli"] or len(args) < 2:
        return []
    verb = args[1]
    if verb in ("spawn", "split-pane"):
        rest = _after_dashes(args)
        return [(_command_text(rest), None)] if rest else []
    if verb == "send-text":
        text = [w for w in args[2:] if not w.startswith("-")]
        return _typed([_stuffed(" ".join(text))], True)
    return []


def handed(name: str, args: list[str]) -> list[Handed]:
    """The command lines ``name args`` hands to a terminal server to run or type."""
    if name == "tmux":
        return _tmux(args)
    if name == "screen":
        return _screen(args)
    if name == "zellij":
        return _zellij(args)
    if name in ("kitty", "kitten"):
        return _kitty(args)
    if name == "wezterm":
        return _wezterm(args)
    return []
