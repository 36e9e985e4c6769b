"""Commands that run other code: the walk follows them into that code.

``sh -c``/``bash script``, ``eval``, ``source``, ``ssh host CMD``, ``docker
exec``/``kubectl exec``, awk's ``system()`` and pipes, ``git`` shell aliases,
interpreter one-liners and scripts, code fed on stdin (with static decoding of
``base64 -d``/``rev``/``xxd -r`` pipes), and scripts written earlier in the
same command.  Each is a way for a harmless-looking command to run a harmful
one, so each is kept together here, apart from the plain tree walk.
"""

from __future__ import annotations

import contextlib
import re

from agentreflex.core.util.lazyre import LazyPattern
from agentreflex.gate.code import interp
from agentreflex.gate.model import (
    DATA,
    DESTRUCTIVE,
    P_BLOCK,
    P_WARN,
    REMOTE,
    SECRET,
    UNKNOWN,
    Cmd,
    has_marker,
)
from agentreflex.gate.rules.programs import python_entry
from agentreflex.gate.shell import pipes
from agentreflex.gate.shell.paths import resolve
from agentreflex.gate.shell.walkstate import WalkerBase
from agentreflex.gate.shell.words import SETUP, quote, setup_snippet

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator

# awk's own ways to run shell: `"cmd" | getline`, `print "cmd" | "sh"` and
# `print ... | "cmd"` (the quoted command runs, fed what is printed); gawk's
# two-way `|&` runs its command the same way, as a coprocess
# (https://www.gnu.org/software/gawk/manual/html_node/Two_002dway-I_002fO.html)
_AWK_PIPES = LazyPattern(
    r'"((?:[^"\\]|\\.)*)"\s*\|&?\s*getline|print\s+"((?:[^"\\]|\\.)*)"\s*\|&?\s*"(?:ba|da|z)?sh"'
    r'|printf?\b[^|;}\n]*\|&?\s*"((?:[^"\\]|\\.)*)"'
)
# system() or a pipe fed a computed command ($0, a field, a variable)
_AWK_DYNAMIC = LazyPattern(
    r'\bsystem\s*\((?:\s*[^"\s)]|[^)]*\$)|[\w$)\]]\s*\|&?\s*getline'
    r"|printf?\b[^|;}\n]*\|&\s*[A-Za-z_]"  # print ... |& cmd: a coprocess named by a variable
    r'|printf?\b[^|;}\n]*\$[^|;}\n]*\|\s*"(?:/bin/)?(?:ba|da|z)?sh"'
    r'|\bprint\s*\|\s*"(?:/bin/)?(?:ba|da|z)?sh"',  # bare print: the input line itself
    hints="system getline sh print",
)
# gawk's network special files, /net-type/protocol/local-port/remote-host/remote-port
# (https://www.gnu.org/software/gawk/manual/html_node/TCP_002fIP-Networking.html): a
# `|&` to one is a socket, not a command
_AWK_SOCKET = LazyPattern(r'"/inet[46]?/(?:tcp|udp)/[^"/]*/([^"/]*)/([^"/]*)"', hints="/inet")
_AWK_SOCKET_VAR = LazyPattern(r'\b([A-Za-z_]\w*)\s*=\s*"/inet[46]?/(?:tcp|udp)/', hints="/inet")
# a file awk reads itself (`getline line < "f"`) or writes (`print > "f"`, `>> "f"`)
_AWK_READ = LazyPattern(r'\bgetline\b[^<;{}|\n]*<\s*"([^"]+)"', hints="getline")
_AWK_WRITE = LazyPattern(r'\bprintf?\b[^;{}|>\n]*(>>?)\s*"([^"]+)"', hints="print")
_AWK_ESCAPE = LazyPattern(r"\\(x[0-9a-fA-F]{1,2}|[0-7]{1,3})")

# The names of a process's own standard input.
_STDIN_FILES = ("/dev/stdin", "/proc/self/fd/0", "/dev/fd/0")


def _awk_unescape(program: str) -> str:
    """awk string escapes (``\\x20``, ``\\040``) decoded, as awk decodes them."""
    if "\\" not in program:
        return program

    def sub(m: re.Match[str]) -> str:
        code = m.group(1)
        return chr(int(code[1:], 16) if code[0] == "x" else int(code, 8))

    return _AWK_ESCAPE.sub(sub, program)


# Shells that source $ENV when interactive.
_POSIX_SHELLS = frozenset({"sh", "ksh", "mksh", "dash", "ash"})


# A database client's own commands that hand a line to the shell: psql's \! and
# \o |CMD, \g |CMD, \copy ... program 'CMD'; mysql's system and \!; sqlite3's and
# duckdb's .shell, .system, .once |CMD, .output |CMD, .read |CMD.
DB_SHELL_ESCAPES = frozenset({"psql", "mysql", "mariadb", "sqlite3", "duckdb"})
_DB_ESCAPE = {
    "psql": LazyPattern(
        # \copy runs its program here, COPY on the server: either is a shell command
        r"^\s*(?:\\!\s*(.*)|\\[og]\s*\|\s*(.*)|\\?copy\b.*?\bprogram\s+'((?:[^']|'')*)')",
        re.IGNORECASE | re.MULTILINE,
    ),
    "mysql": LazyPattern(r"^\s*(?:\\!|system\b)\s*(.*)", re.IGNORECASE | re.MULTILINE),
    "sqlite3": LazyPattern(
        r"^\s*(?:\.(?:shell|system)\s+(.*)|\.(?:once|output|read)\s+['\"]?\|\s*(.*?)['\"]?\s*$)",
        re.MULTILINE,
    ),
}
_DB_ESCAPE["mariadb"] = _DB_ESCAPE["mysql"]
_DB_ESCAPE["duckdb"] = _DB_ESCAPE["sqlite3"]


class RunnersMixin(WalkerBase):
    """Follows code-running commands into the code they run."""

    def db_client(self, cmd: Cmd, depth: int) -> None:
        """The shell commands a database client's input runs through its own
        meta-commands (``psql -c '\\! rm -rf ~'``), judged as shell."""
        from agentreflex.gate.rules.infra import client_text  # database clients only

        text = client_text(cmd, self.where, self.state.written)
        if (
            "!" not in text
            and "|" not in text
            and "system" not in text.lower()
            and ("shell" not in text and "program" not in text.lower())
        ):
            return
        for m in _DB_ESCAPE[cmd.name].finditer(text):
            line = next((g for g in m.groups() if g), "").replace("''", "'").strip()
            if line:
                self.run(line, depth + 1, via=f"{cmd.name} shell escape")

    def shell(self, cmd: Cmd, depth: int) -> None:
        args = cmd.args
        if cmd.name in ("busybox", "toybox"):
            return  # its applet was peeled off as a wrapper's command (wrappers.peel): --list, --install
        i = 0
        script_flag = stdin_flag = interactive = False
        startup: list[str] = []
        while i < len(args):
            a = args[i]
            if a in ("-o", "-O", "+o", "+O", "--rcfile", "--init-file"):
                if a in ("--rcfile", "--init-file") and i + 1 < len(args):
                    startup.append(args[i + 1])
                i += 2
                continue
            if a[:2] in ("-o", "-O", "+o", "+O") and len(a) > 2:
                i += 1  # -Oextglob, -ocorrect: an option name, not flags
                continue
            if a.startswith("-") and not a.startswith("--") and "n" in a[1:]:
                return  # -n (noexec): bash reads the commands and runs none
            if a.startswith("-") and not a.startswith("--") and "c" in a[1:]:
                script_flag = True
                i += 1
                if i < len(args) and args[i] == "--":
                    i += 1
                break
            if a == "--":
                i += 1
                break
            if not (a.startswith("-") or a.startswith("+")):
                break
            # -s: commands come from stdin, the remaining words are "$@"
            stdin_flag = stdin_flag or (not a.startswith("--") and "s" in a[1:])
            interactive = interactive or (not a.startswith("--") and "i" in a[1:])
            i += 1
        rest = args[i:]
        self._startup_files(cmd, startup, depth, interactive)
        saved = self._bodies
        if not self._functions_exported:
            self._bodies = {}  # a new shell: this one's functions are not defined there
        try:
            self._new_shell(cmd, rest, depth, script_flag, stdin_flag)
        finally:
            self._bodies = saved

    def _new_shell(
        self, cmd: Cmd, rest: list[str], depth: int, script_flag: bool, stdin_flag: bool
    ) -> None:
        if script_flag:
            with self._fed_by(cmd):
                self._shell_string(rest[0] if rest else "", rest[1:], cmd, depth, f"{cmd.name} -c")
            return
        if rest and rest[0] != "-" and not stdin_flag:
            self._script(resolve(rest[0], self.where, cmd.cwd), cmd, depth, rest[0])
            return
        self._stdin_code(cmd, depth, shell=True)

    def _startup_files(self, cmd: Cmd, rcfiles: list[str], depth: int, interactive: bool) -> None:
        """The file a shell sources before anything else, where it really reads one:
        ``BASH_ENV`` for a non-interactive bash, ``ENV`` for an interactive POSIX
        shell, ``--rcfile``/``--init-file`` for an interactive bash."""
        files = [(f, "--rcfile") for f in rcfiles] if interactive else []
        if cmd.name in ("bash", "rbash") and not interactive:
            files.append(
                (cmd.assigns.get("BASH_ENV", self.state.vars.get("BASH_ENV", "")), "BASH_ENV")
            )
        if cmd.name in _POSIX_SHELLS and interactive:
            files.append((cmd.assigns.get("ENV", self.state.vars.get("ENV", "")), "ENV"))
        for path, setting in files:
            if not path:
                continue
            if REMOTE in path:
                self._rce(cmd)
            elif has_marker(path):
                self._ask(
                    "GATE-DYNAMIC-SCRIPT",
                    cmd.text,
                    "The shell sources a startup file (BASH_ENV, ENV, --rcfile) whose name "
                    "is only known at run time. Name the file, or leave it out.",
                )
            elif self._hidden_program(path if "/" in path else "./" + path, cmd, setting):
                self._script(resolve(path, self.where, cmd.cwd), cmd, depth, path)

    def ssh(self, cmd: Cmd, depth: int) -> None:
        """``ssh host CMD``: the remote shell parses CMD in the remote home directory."""
        from agentreflex.gate.shell import remote  # only for ssh and container commands

        script = remote.ssh_command(cmd.args)
        if script is None and "-N" not in cmd.args:
            script = "sh"  # no command: the login shell reads the input (ssh prod < job.sh)
        if script is None:
            return
        saved = self.state.cwd
        self.state.cwd = self.where.home
        try:
            with self._fed_by(cmd):
                self._shell_string(script, [], cmd, depth, "ssh")
        finally:
            self.state.cwd = saved

    def handed(self, cmd: Cmd, depth: int) -> None:
        """``gcloud compute ssh vm --command CMD``, ``heroku run CMD``, ``nix develop -c
        CMD``...: what the tool runs on another machine (judged as ``ssh host CMD`` is, in
        the remote home) or here in an environment of its own (``shell/handed.py``)."""
        from agentreflex.gate.shell import handed  # only for these tools

        found = handed.handed(cmd.name, cmd.args)
        if found is None:
            return
        saved = self.state.cwd
        if found.remote:
            self.state.cwd = self.where.home
        try:
            if found.script is not None:
                with self._fed_by(cmd):
                    self._shell_string(found.script, [], cmd, depth, found.how)
            else:
                self.execute(found.argv, cmd.text, depth + 1, via=found.how)
        finally:
            self.state.cwd = saved

    @contextlib.contextmanager
    def _fed_by(self, cmd: Cmd) -> Iterator[None]:
        """While the shell string of ``cmd`` is walked, its commands that have no input of
        their own read ``cmd``'s: ``ssh host 'bash -s' < destroy.sh`` runs destroy.sh
        there, ``bash -c psql < drop.sql`` sends drop.sql to psql.  A ``<`` file is named
        by its full local path, as the local shell opens it."""
        saved = self._inherited
        fed = [(op, resolve(t, self.where, cmd.cwd)) for op, t in cmd.redirects if op == "<"]
        if fed or cmd.stdin_text is not None or cmd.stdin_from is not None:
            self._inherited = Cmd(
                [":"],
                cmd.text,
                cmd.cwd,
                redirects=fed,
                stdin_text=cmd.stdin_text,
                stdin_from=cmd.stdin_from,
            )
        try:
            yield
        finally:
            self._inherited = saved

    def ansible(self, cmd: Cmd, depth: int) -> None:
        """``ansible HOSTS [-m shell|command|raw] -a CMD``: each host runs CMD, judged as
        ``ssh host CMD`` is (``command``, the default module, takes the same text)."""
        script = _ansible_command(cmd.args)
        if script is None:
            return
        saved = self.state.cwd
        self.state.cwd = self.where.home
        try:
            self._shell_string(script, [], cmd, depth, "ansible")
        finally:
            self.state.cwd = saved

    def terminal(self, cmd: Cmd, depth: int) -> None:
        """``tmux new-window CMD``, ``tmux send-keys``, ``screen -X stuff``: a server runs it.

        The folder is the one the command names, else unknown (the server's
        session, or whatever the pane's shell is in): a relative path there
        is not the project's.
        """
        from agentreflex.gate.shell import terminals  # only for terminal servers' commands

        saved = self.state.cwd
        for text, folder in terminals.handed(cmd.name, cmd.args):
            self.state.cwd = resolve(folder, self.where, cmd.cwd) if folder else UNKNOWN
            try:
                self._shell_string(text, [], cmd, depth, cmd.name)
            finally:
                self.state.cwd = saved

    def container(self, cmd: Cmd, depth: int) -> None:
        """``docker run/exec``, ``compose run/exec``, ``kubectl exec/run``: the command inside."""
        from agentreflex.gate.shell import remote  # only for ssh and container commands

        found = remote.container_command(cmd.name, cmd.args, self.where, cmd.cwd)
        if found is None:
            return
        saved = self.state.cwd
        self.state.cwd = found.cwd
        try:
            self.execute(
                remote.program_inside(found),
                cmd.text,
                depth + 1,
                # the local shell opens a ``<`` file, in the folder it is in
                redirects=[
                    (op, resolve(t, self.where, cmd.cwd)) for op, t in cmd.redirects if op == "<"
                ],
                stdin_text=cmd.stdin_text,
                stdin_from=cmd.stdin_from,
                via=found.how,
            )
        finally:
            self.state.cwd = saved

    def awk(self, cmd: Cmd, depth: int) -> None:
        """An awk program is code: ``system("...")`` and ``"cmd" | getline`` run shell."""
        args = cmd.args
        program: str | None = None
        i = 0
        while i < len(args):
            a = args[i]
            if a == "--":
                i += 1
                break
            if a in ("-f", "--file"):
                path = args[i + 1] if i + 1 < len(args) else ""
                program = self.state.written.get(resolve(path, self.where, cmd.cwd), "")
                i += 1  # the operands follow the script's path
                break
            if a in ("-F", "-v", "--assign", "--field-separator", "-i", "--include"):
                i += 2
                continue
            if not a.startswith("-") or a == "-":
                break
            i += 1
        if program is None:
            program = args[i] if i < len(args) else ""
        if program and DATA in program:
            self._ask(
                "GATE-DYNAMIC-SCRIPT",
                cmd.text,
                "The awk program is only known at run time, and awk can run commands "
                "(system()). Write the program out.",
            )
        elif program and not has_marker(program):
            program = _awk_unescape(program)
            program = self._awk_io(program, cmd, args[i + 1 :], depth)
            if program is None:
                return
            if _AWK_DYNAMIC.search(program):
                self._ask(
                    "GATE-DYNAMIC-SCRIPT",
                    cmd.text,
                    "The awk program runs commands built from its input or variables "
                    "(system($0), a computed pipe), which cannot be checked. Run the "
                    "commands themselves.",
                )
            self._code(program, cmd, depth, "awk")
            for m in _AWK_PIPES.finditer(program):
                body = next((g for g in m.groups() if g is not None), "")
                if body in ("sh", "bash", "dash", "zsh", "cat", "sort", "uniq", "/inet"):
                    continue
                if body:
                    self.run(body.replace('\\"', '"'), depth + 1, via="awk pipe")

    def _awk_io(self, program: str, cmd: Cmd, operands: list[str], depth: int) -> str | None:
        """The files and sockets an awk program opens itself, judged as the shell's
        reads, writes and ``/dev/tcp`` connections; returns the program with its
        sockets taken out (a ``|&`` to a socket runs nothing), or ``None`` when it
        is a shell served to the network (gawk's ``/inet/tcp`` reverse shell,
        https://gtfobins.github.io/gtfobins/gawk/#reverse-shell)."""
        via = "awk code"
        for m in _AWK_READ.finditer(program):
            if not m.group(1).startswith("/inet") and m.group(1) != "-":
                self.execute(["cat", m.group(1)], cmd.text, depth + 1, via=via)
        for m in _AWK_WRITE.finditer(program):
            path = m.group(2)
            if not path.startswith(("/inet", "/dev/std")):
                self.execute([":"], cmd.text, depth + 1, redirects=[(m.group(1), path)], via=via)
        sockets = list(_AWK_SOCKET.finditer(program))
        if not sockets:
            return program
        names = {m.group(1) for m in _AWK_SOCKET_VAR.finditer(program)}
        plain = _AWK_SOCKET.sub('"/inet"', program)
        for name in names:
            plain = re.sub(rf"\b{name}\s*\|&\s*getline", '"/inet" |& getline', plain)
            plain = re.sub(rf"\|&\s*{name}\b", '|& "/inet"', plain)
        if _AWK_DYNAMIC.search(plain):
            from agentreflex.gate.rules.system import REMOTE_SHELL

            self._hit("GATE-REMOTE-SHELL", DESTRUCTIVE, P_BLOCK, cmd.text, REMOTE_SHELL)
            return None
        if re.search(r'\|&\s*"/inet"', plain):  # what it prints goes to the connection
            host, port = sockets[0].group(1), sockets[0].group(2)
            read = [m.group(1) for m in _AWK_READ.finditer(program)]
            files = [a for a in operands if "=" not in a] + read
            self.execute(
                ["cat", *files],
                cmd.text,
                depth + 1,
                redirects=[(">", f"/dev/tcp/{host}/{port}")],
                stdin_from=cmd.stdin_from,
                via=via,
            )
        return plain

    def git_alias(self, cmd: Cmd, depth: int) -> None:
        """Programs git runs from its settings: ``!`` aliases, ssh/pager/fsmonitor commands.

        Settings come from ``-c key=value``, ``GIT_CONFIG_COUNT``/``_KEY_n``/
        ``_VALUE_n``, ``GIT_CONFIG_PARAMETERS`` and ``GIT_SSH_COMMAND``-style
        variables; ``git config KEY VALUE`` stores one for later runs.  Each
        program is judged as the shell command git would hand to ``sh -c``.
        """
        from agentreflex.gate.rules import (
            git as rules_git,  # imported with the git rules, for git commands
        )

        env = {**self.state.vars, **cmd.assigns}
        sub, rest, aliases = rules_git.split(cmd.args, env)
        expansion = aliases.get(sub, "")
        if expansion.startswith("!"):
            script = " ".join([expansion[1:], *(quote(a) for a in rest)])
            self._shell_string(script, [], cmd, depth, "git alias")
        if sub == "submodule":
            self._submodule_foreach(rest, cmd, depth)
        remote = rules_git.contacts_remote(sub, rest)
        for key, program in rules_git.programs(cmd.args, env, sub, rest):
            if program.startswith("!"):
                program = program[1:]
            seen = len(self.cmds)
            self._shell_string(program, [], cmd, depth, f"git {key}")
            if rules_git.is_credential_helper(key):
                self._credential_helper(self.cmds[seen:], cmd, key)
            if remote or not rules_git.is_ssh_setting(key):
                words = program.split()
                self._hidden_program(words[0] if words else "", cmd, key)
        problem = rules_git.config_env_problem(env)
        if problem:
            self._ask(
                "GATE-GIT-CONFIG-ENV",
                cmd.text,
                f"git reads settings from the environment that the gate cannot all read "
                f"({problem}); a setting there can run any program. Pass settings with "
                "git -c KEY=VALUE instead.",
            )

    def _credential_helper(self, ran: list[Cmd], cmd: Cmd, key: str) -> None:
        """A credential helper that writes away what git hands it: git gives a helper
        the username and password on its input (``store``), so a helper that reads its
        input and writes a file or talks to the network keeps or sends every password
        (https://git-scm.com/docs/gitcredentials#_custom_helpers)."""
        from agentreflex.gate.rules import git as rules_git  # imported with the git rules

        for c in ran:  # what a helper prints goes to git through a pipe, not to the transcript
            if c.via != "substitution" and not any(op[:1] == ">" for op, _ in c.redirects):
                c.pipes_out = True
        if rules_git.helper_keeps_input(ran):
            self._hit(
                "GATE-EXFIL-SECRET",
                SECRET,
                P_BLOCK,
                cmd.text,
                f"{key} hands this helper the username and password of every git "
                "login, and it writes what it reads to a file or the network, so every "
                "password would be kept or sent. Use a helper that stores them safely "
                "(git credential-cache, osxkeychain, libsecret, gh auth setup-git), or "
                "one that only prints a token (echo password=...).",
            )

    def _submodule_foreach(self, rest: list[str], cmd: Cmd, depth: int) -> None:
        """``git submodule [--quiet] foreach [--recursive] CMD``: CMD runs in every submodule.

        git hands one word to ``sh -c`` and several words to the shell as a command
        line (builtin/submodule--helper.c), so the body is judged as shell either way
        (issue 30: ``git submodule foreach 'git reset --hard'`` discards the work of
        every submodule).
        """
        words = [w for w in rest if w not in ("-q", "--quiet")]
        if words[:1] != ["foreach"]:
            return
        body = [w for w in words[1:] if w != "--recursive"]
        if body[:1] == ["--"]:
            body = body[1:]
        if not body:
            return
        script = body[0] if len(body) == 1 else " ".join(quote(a) for a in body)
        self._shell_string(script, [], cmd, depth, "git submodule foreach")

    def _hidden_program(self, program: str, cmd: Cmd, setting: str) -> bool:
        """A program a setting runs (git's ssh command, a shell's startup file):
        the user sees only the outer command, so a file the gate cannot read is asked
        about rather than trusted."""
        from agentreflex.gate.code import scripts  # only for commands with such a setting

        if "/" not in program or has_marker(program):
            return True  # a program on PATH is judged as the command it is
        path = resolve(program, self.where, cmd.cwd)
        content = self.state.written.get(path)
        if content is None:
            content = scripts.read(path)
        if content is None or content == scripts.UNREADABLE or has_marker(content):
            self._ask(
                "GATE-HIDDEN-PROGRAM",
                cmd.text,
                f"{setting} makes this run {program}, whose content the gate cannot read. "
                "Show the file first, or run it directly.",
            )
            return False
        return True

    def exec_options(self, cmd: Cmd, depth: int) -> None:
        """Commands a tool runs through its own options (tar --to-command, sed e, vim -c '!')."""
        from agentreflex.gate.shell import execopts  # only for the tools it lists

        for script in execopts.commands(cmd.name, cmd.args):
            self._shell_string(script, [], cmd, depth, f"{cmd.name} option")

    def at(self, cmd: Cmd, depth: int) -> None:
        """``at``/``batch``: the commands on stdin (or ``-f FILE``) run later."""
        if any(a in ("-l", "-r", "-d", "-c", "-V") for a in cmd.args) or cmd.name == "atq":
            return
        if "-f" in cmd.args:
            k = cmd.args.index("-f")
            path = cmd.args[k + 1] if k + 1 < len(cmd.args) else ""
            self._script(resolve(path, self.where, cmd.cwd), cmd, depth, path)
            return
        self._stdin_code(cmd, depth, shell=True)

    def crontab(self, cmd: Cmd, depth: int) -> None:
        """``crontab FILE`` / ``... | crontab -``: every entry installed will run."""
        from agentreflex.gate.shell import execopts

        words = [a for a in cmd.args if not a.startswith("-") or a == "-"]
        if any(a in ("-l", "-r", "-e") for a in cmd.args):
            return
        if words and words[0] != "-":
            text = self.state.written.get(resolve(words[0], self.where, cmd.cwd))
        else:
            text = cmd.stdin_text
            if text is None:
                text = pipes.output_text(cmd.stdin_from, self.state.written)
        if text is None or has_marker(text):
            # the old table (``crontab -l``) or another unreadable part: the entries the
            # readable parts add are installed all the same
            if text is None and not (words and words[0] != "-"):
                known = pipes.known_parts(cmd.stdin_from, self.state.written)
            else:
                known = pipes.known_lines(text or "")
            text = "\n".join(known)
        for entry in execopts.cron_entries(text):
            self.run(entry, depth + 1, via="crontab entry")

    def trap(self, cmd: Cmd, depth: int) -> None:
        """``trap 'CMD' EXIT``: CMD runs when the signal comes (or the shell exits)."""
        args = cmd.args[1:] if cmd.args[:1] == ["--"] else cmd.args
        if len(args) >= 2 and args[0] not in ("-", "") and not args[0].startswith("-"):
            if args[0] == SETUP:
                self._generated(cmd)  # trap "$(tool ...)": generated code, not a set-up
                return
            self._shell_string(args[0], [], cmd, depth, "trap")

    def _shell_string(self, script: str, params: list[str], cmd: Cmd, depth: int, via: str) -> None:
        if REMOTE in script:
            # bash -c "$(curl URL)" (or eval/trap of it): the whole script is the
            # download, run here and now by a shell, judged as curl URL | bash is (a
            # listed vendor installer warns; anything else blocks). Sent to another
            # host (ssh) or kept to run later (a git alias, a tool's option) blocks.
            now = via.endswith(" -c") or via in ("eval", "trap")
            self._rce(cmd, script if now and script[:1] == REMOTE else "")
        elif script == SETUP:
            return
        elif has_marker(script):
            self._ask(
                "GATE-DYNAMIC-SCRIPT",
                cmd.text,
                "The script to run is computed at run time and cannot be checked. "
                "Write it out literally.",
            )
        else:
            names = [str(k) for k in range(10)]
            if len(params) > 1 and ("$@" in script or "${@}" in script):
                # "$@" is each parameter as its own word: "$1" "$2" ...
                each = " ".join(f'"${{{k}}}"' for k in range(1, min(len(params), 10)))
                script = script.replace('"$@"', each).replace('"${@}"', each)
            saved = {k: self.state.vars.get(k) for k in [*names, "@", "#"]}
            # bash -c, ssh, a git alias: another process, whose variables end with it
            # (bash -c 'd=x' leaves d: rt103); eval and a trap run in this shell
            child = dict(self.state.vars) if via not in ("eval", "trap") else None
            for k, v in zip(names, params, strict=False):
                self.state.vars[k] = v
            if len(params) > 1:
                self.state.vars["@"] = " ".join(params[1:])
                self.state.vars["#"] = str(len(params) - 1)
            try:
                self.run(script, depth + 1, via=via)
            finally:
                for k, old in saved.items():
                    if old is None:
                        self.state.vars.pop(k, None)
                    else:
                        self.state.vars[k] = old
                if child is not None:
                    self.restore_vars(child)

    def _stdin_code(self, cmd: Cmd, depth: int, shell: bool, lang: str = "") -> None:
        text = cmd.stdin_text
        if text is None:
            text = pipes.output_text(cmd.stdin_from, self.state.written)
            if cmd.stdin_from is None and not any(op == "<" for op, _ in cmd.redirects):
                return  # interactive shell / REPL: nothing to check
            on_disk = pipes.catted(cmd.stdin_from, self.where)  # cat job.sh | sh
            for op, target in cmd.redirects:  # a redirect wins over a pipe
                if op == "<":
                    on_disk = resolve(target, self.where, cmd.cwd)
                    text = self.state.written.get(on_disk)
                    text = REMOTE if text is None and REMOTE in target else text
            if text is None and on_disk and self._input_on_disk(on_disk, cmd, depth):
                return
        if text is not None and REMOTE in text:
            self._rce(cmd)
        elif text is None or has_marker(text):
            if shell and cmd.stdin_text is None:  # what the readable parts of a group say
                for part in pipes.known_parts(cmd.stdin_from, self.state.written):
                    self.run(part, depth + 1, via=f"stdin of {cmd.name}")
            self._ask(
                "GATE-PIPE-TO-SHELL",
                cmd.text,
                "Code of unknown content is piped into an interpreter. "
                "Write it to a file and show it first.",
            )
        elif shell:
            if _decoded(cmd.stdin_from):
                self._hit(
                    "GATE-OBFUSCATED-EXEC",
                    DESTRUCTIVE,
                    0.8,
                    cmd.text,
                    "This decodes a hidden payload and runs it. Run the plain command "
                    "instead so it can be checked.",
                )
            self.run(text, depth + 1, via=f"stdin of {cmd.name}")
        else:
            self._code(text, cmd, depth, lang)

    def _rce(self, cmd: Cmd, downloaded: str = "", unpinned: str = "") -> None:
        from agentreflex.gate.shell.installers import vendor_installer

        why = f" It is checked, but {unpinned}." if unpinned else ""

        url = vendor_installer(cmd, downloaded)
        if url:
            self._hit(
                "GATE-RCE-DOWNLOAD",
                DESTRUCTIVE,
                P_WARN,
                cmd.text,
                f"This runs the vendor's install script {url} unread. It is the documented "
                "install line; to review it first, download it with curl -o install.sh and "
                "read it." + why,
            )
            return
        self._hit(
            "GATE-RCE-DOWNLOAD",
            DESTRUCTIVE,
            P_BLOCK,
            cmd.text,
            "This runs code downloaded from the network without review. Download it to "
            "a file, read it, then run it if it is safe, or check it against a digest "
            "written in the command (echo 'SHA256  FILE' | sha256sum -c - && sh FILE)." + why,
        )

    def _script(self, path: str, cmd: Cmd, depth: int, shown: str = "") -> None:
        content = pipes.file_text(self.state.written, path)
        if content is None and path not in self._reviewed:
            # a file a nameless download (curl -OJ, wget -r) may have written is one
            content = self.state.written.get(self._holder(path))
        via = "script written in the same command"
        if content is None:
            if REMOTE in (shown or path):
                self._rce(cmd)
            elif has_marker(shown or path):
                self._ask(
                    "GATE-DYNAMIC-SCRIPT",
                    cmd.text,
                    "The file to run is named only at run time (a variable or piped input), "
                    "so what it does cannot be checked. Name the file.",
                )
            else:
                self._script_on_disk(path, cmd, depth)
            return
        if REMOTE in content:
            self._rce(cmd, content, self._unpinned.get(path) or self._unpinned.get("*", ""))
        elif content == UNKNOWN and _is_file(self._copies.get(path, "")):
            # cp a.sh b.sh && sh b.sh runs what sh a.sh would: the source on disk (one
            # that is not there yet is text that can't be read, asked about below)
            self._script_on_disk(self._copies[path], cmd, depth)
        elif not has_marker(content):
            self._judge_script(content, cmd, depth, via)
        else:
            # a file written here with unknown parts still runs its known lines
            # (echo CMD > f; cat x >> f; sh f: red-team rt86)
            known = "\n".join(pipes.known_lines(content))
            if known:
                self._judge_script(known, cmd, depth, via)
            if path.startswith("/dev/fd/"):
                # bash <(tool ...): what another program prints, run as a script, is the
                # pipe form tool ... | bash with the same unseen code
                self._ask(
                    "GATE-PIPE-TO-SHELL",
                    cmd.text,
                    "Code of unknown content (what the <(...) prints) is run by an "
                    "interpreter. Write it to a file and show it first.",
                )
            elif path not in self._messages:
                # cat x > j.sh; sh j.sh: text passed on from outside the command (a file, a
                # copy, a program's output), run, is the pipe form cat x | sh (rt89);
                # a program's own messages (curl URL 2> log) are not such text
                self._ask(
                    "GATE-PIPE-TO-SHELL",
                    cmd.text,
                    "A file written in this command with text that can't be read here (a "
                    "copy, a program's output) is run. Write it, show it, then run it in "
                    "a separate command.",
                )

    def _judge_script(self, content: str, cmd: Cmd, depth: int, via: str) -> None:
        lang = interp.interpreter_name(cmd.name) or _shebang_language(content)
        if lang:
            self._code(content, cmd, depth, lang)
        elif cmd.name in ("source", "."):
            self.run(content, depth + 1, via=via)
        else:  # sh j.sh, ./j.sh: another process, whose variables end with it (rt103)
            child = dict(self.state.vars)
            try:
                self.run(content, depth + 1, via=via)
            finally:
                self.restore_vars(child)

    def _script_on_disk(self, path: str, cmd: Cmd, depth: int) -> None:
        """A file written earlier (by another tool call, or by anyone): read it, bounded."""
        from agentreflex.gate.code import scripts  # only for commands that run a local file

        if path in self._reading:
            return  # a script that runs itself: judged once
        content = scripts.read(path)
        if content is None or (content == scripts.UNREADABLE and os_program(path)):
            return  # /bin/ls: the system's own binary, judged by its name (rt77)
        self._read_file(path, content, cmd, depth, "script")

    def _input_on_disk(self, path: str, cmd: Cmd, depth: int) -> bool:
        """``sh < destroy.sh``, ``python < job.py``: a file of the work tree fed to an
        interpreter is judged as running it by name is (``sh destroy.sh``).  ``False``
        when there is nothing to read (missing, too large, binary, a FIFO or a device, a
        folder known only at run time) or the file, links followed, is outside the
        project (the user's own files, a key a link points at): unknown input, asked."""
        import os

        from agentreflex.gate.code import scripts  # only for input read from a file

        if has_marker(path) or not self.where.project:
            return False
        project = os.path.realpath(self.where.project)
        if not os.path.realpath(path).startswith(project.rstrip("/") + "/"):
            return False
        content = scripts.read(path)
        if content is None or content == scripts.UNREADABLE:
            return False
        if path not in self._reading:
            self._read_file(path, content, cmd, depth, "input")
        return True

    def _read_file(self, path: str, content: str, cmd: Cmd, depth: int, what: str) -> None:
        from agentreflex.gate.code import scripts

        if content == scripts.UNREADABLE:
            self._hit(
                "GATE-SCRIPT-UNREADABLE",
                DESTRUCTIVE,
                P_WARN,
                cmd.text,
                f"The {what} this runs ({path}) could not be read (too large, binary or "
                "not readable), so only the command itself was checked.",
            )
            return
        self._reading.add(path)
        before = len(self.hits)
        try:
            self._judge_script(content, cmd, depth, f"{what} {path}")
        finally:
            self._reading.discard(path)
        self._settle_unknowns(before, path, cmd, what)

    def make(self, cmd: Cmd, depth: int) -> None:
        """``make [target]``: the recipes it runs, read from the Makefile."""
        from agentreflex.gate.code import scripts

        written = {p: c for p, c in self.state.written.items() if not has_marker(c)}
        if cmd.stdin_text is not None:
            # ``make -f - <<EOF`` / ``make -f /dev/stdin <<< "all:; ..."``: the
            # Makefile is the heredoc, wherever -C points
            for arg in ("-", *_STDIN_FILES):
                written[scripts.makefile_path(cmd.args, cmd.cwd, arg)] = cmd.stdin_text
        text, path = scripts.make_recipes(cmd.args, cmd.cwd, written)
        if text:
            self._read_recipes(path, text, cmd, depth, "Makefile recipe")
        elif text == scripts.UNREADABLE:
            self._read_file(path, text, cmd, depth, "Makefile")

    def package_script(self, cmd: Cmd, depth: int) -> None:
        """``npm test`` / ``npm|pnpm|yarn|bun run X``: the package.json script it runs."""
        from agentreflex.gate.code import scripts

        written = {p: c for p, c in self.state.written.items() if not has_marker(c)}
        text, path = scripts.package_script(cmd.name, cmd.args, cmd.cwd, written)
        if text:
            self._read_recipes(path, text, cmd, depth, "package.json script")
        elif text == scripts.UNREADABLE:
            self._read_file(path, text, cmd, depth, "package.json")
        else:
            self._package_bin(cmd, depth)

    def prisma_seed(self, cmd: Cmd, depth: int) -> None:
        """``prisma db seed``: the seed command it runs, as ``npm run seed`` runs a script,
        so the seed is judged the same whichever of the two starts it."""
        from agentreflex.gate.code import scripts

        written = {p: c for p, c in self.state.written.items() if not has_marker(c)}
        text, path = scripts.prisma_seed(cmd.args, cmd.cwd, written)
        if text:
            self._read_recipes(path, text, cmd, depth, "Prisma seed command")
        elif text == scripts.UNREADABLE:
            self._read_file(path, text, cmd, depth, "Prisma seed configuration")

    def _package_bin(self, cmd: Cmd, depth: int) -> None:
        """``yarn|pnpm|bun [run] NAME ARGS`` with no script NAME: the program NAME runs."""
        from agentreflex.gate.shell import pkgrunners

        run = pkgrunners.bin_of(cmd.name, cmd.args)
        if run is None:
            return
        saved = self.state.cwd
        if run.chdir:
            self.state.cwd = resolve(run.chdir, self.where, cmd.cwd)
        try:
            self.execute(run.argv, cmd.text, depth + 1, via=cmd.name)
        finally:
            self.state.cwd = saved

    def python_files(self, cmd: Cmd, depth: int) -> None:
        """``pytest`` (its conftest.py files) and ``pip install .`` (setup.py):
        the Python a project file runs, judged as interpreter code."""
        from agentreflex.gate.code import scripts

        entry = python_entry(cmd.argv)
        if entry is None:
            return
        tool, args = entry
        if tool == "pip":
            paths, what = scripts.setup_files(args, cmd.cwd), "setup.py"
        else:
            paths, what = scripts.conftest_files(args, cmd.cwd), "conftest.py"
        for path in paths:
            content = self.state.written.get(path)
            if content is None:
                content = scripts.read(path)
            if content is None or path in self._reading or has_marker(content):
                continue
            if content == scripts.UNREADABLE:
                self._read_file(path, content, cmd, depth, what)
                continue
            self._reading.add(path)
            before = len(self.hits)
            try:
                self._code(content, cmd, depth, "python")
            finally:
                self._reading.discard(path)
            self._settle_unknowns(before, path, cmd, what)

    def _read_recipes(self, path: str, text: str, cmd: Cmd, depth: int, what: str) -> None:
        if path in self._reading:
            return  # a recipe that runs make again: judged once
        self._reading.add(path)
        before = len(self.hits)
        saved, self.inherited_env = self.inherited_env, {**self.inherited_env, **cmd.assigns}
        try:
            self.run(text, depth + 1, via=f"{what} ({path})")
        finally:
            self._reading.discard(path)
            self.inherited_env = saved
        self._settle_unknowns(before, path, cmd, what)

    def _settle_unknowns(self, before: int, path: str, cmd: Cmd, what: str) -> None:
        """A file on disk is judged by what it is known to do: the parts it computes
        at run time (``exec "$JAVACMD"``, ``eval "set -- $(...)"`` in ``./gradlew``)
        do not ask, they are said (one warning); what it plainly does still counts."""
        asks = [h for h in self.hits[before:] if h.category == "ask"]
        if not asks:
            return
        self.hits[before:] = [h for h in self.hits[before:] if h.category != "ask"]
        self._hit(
            "GATE-SCRIPT-PARTLY-CHECKED",
            DESTRUCTIVE,
            P_WARN,
            cmd.text,
            f"Parts of the {what} this runs ({path}) are computed at run time and could "
            "not be checked; the rest was.",
        )

    def eval(self, cmd: Cmd, depth: int) -> None:
        if cmd.args == [SETUP] and not _plain_carrier(cmd, ("eval",)):
            self._generated(cmd)
            return
        self._shell_string(" ".join(cmd.args), [], cmd, depth, "eval")

    def _generated(self, cmd: Cmd) -> None:
        self._ask(
            "GATE-GENERATED-CODE",
            cmd.text,
            "This runs code another program prints at run time, which cannot be checked "
            '(only the plain eval "$(ssh-agent -s)" / source <(tool completion bash) forms '
            "are known set-up snippets). Run the plain form, or save the output and show it.",
        )

    def source(self, cmd: Cmd, depth: int) -> None:
        args = cmd.args
        search = ""
        if args[:1] == ["-p"] and len(args) > 1:  # bash 5.3: search PATH-like DIRS
            search, args = args[1], args[2:]
        elif args[:1] == ["--"]:
            args = args[1:]
        if not args:
            return
        target = args[0]
        if target in _STDIN_FILES:
            # some-tool | source /dev/stdin (or <<< TEXT) runs what its input carries,
            # as source <(some-tool) and some-tool | bash do; a set-up tool's plain
            # snippet (kubectl completion bash | source /dev/stdin) is what it is for
            src = cmd.stdin_from
            if cmd.stdin_text is not None or src is None or not setup_snippet(src, [src], True):
                self._stdin_code(cmd, depth, shell=True)
        elif REMOTE in target:
            self._rce(cmd)
        elif SETUP in target:
            if len(args) > 1 or not _plain_carrier(cmd, ("source", ".")):
                self._generated(cmd)
        elif target.startswith("/dev/fd/"):
            content = self.state.written.get(target)  # what the <(...) printed, if known
            if content is None or has_marker(content):
                self._generated(cmd)  # <(...) whose output is not a known set-up snippet
            else:
                self._script(target, cmd, depth)
        elif search and "/" not in target:
            self._ask(
                "GATE-DYNAMIC-SCRIPT",
                cmd.text,
                f"source -p looks the file up in {search!r}, so which file runs is not "
                "known. Give its path.",
            )
            return
        elif has_marker(target):
            self._script(target, cmd, depth, target)
        else:
            self._script(resolve(target, self.where, cmd.cwd), cmd, depth)

    def interpreter(self, cmd: Cmd, lang: str, depth: int) -> None:
        if _checks_syntax_only(lang, cmd.args):
            return  # php -l FILE, node --check FILE, ruby -c FILE: parsed, never run
        code, rest = interp.code_argument(lang, cmd.args)
        if code is not None:
            if REMOTE in code:
                self._rce(cmd)
            elif has_marker(code):
                self._ask(
                    "GATE-DYNAMIC-SCRIPT",
                    cmd.text,
                    "The code to run is only known at run time, so what it does cannot be "
                    "checked. Write the code out literally.",
                )
            else:
                self._code(code, cmd, depth, lang)
            return
        if rest and rest[0] == "-m":
            unpacked = _module_unpack(rest[1:])
            if unpacked:  # ``python3 -m zipfile -e a.zip ~/.claude``: judged as the unpacker
                self.execute(unpacked, cmd.text, depth + 1, via=f"{lang} -m")
            return
        if rest and rest[0] != "-":
            self._script(resolve(rest[0], self.where, cmd.cwd), cmd, depth, rest[0])
            return
        self._stdin_code(cmd, depth, shell=False, lang=lang)

    def _code(self, code: str, cmd: Cmd, depth: int, lang: str) -> None:
        via = f"{lang} code"
        from agentreflex.gate.rules import selfguard  # interpreter code is rare; imported for it

        found = selfguard.code_hit(code, self.where, cmd.cwd, cmd.text, lang) or (
            selfguard.code_arguments_hit(code, lang, cmd.args, self.where, cmd.cwd, cmd.text)
        )
        if found is not None:
            self.hits.append(found)
        read = selfguard.code_key_hit(code, self.where, cmd.text)
        if read is not None:
            self.hits.append(read)
        saved = self.state.cwd
        self.state.cwd = cmd.cwd  # the code's own working directory, for its relative paths
        try:
            for effect in interp.effects(code, lang):
                if effect.kind == "chdir":  # the process's, not the shell's: undone below
                    unknown = has_marker(effect.value) or self.state.cwd == UNKNOWN
                    self.state.cwd = (
                        UNKNOWN if unknown else resolve(effect.value, self.where, self.state.cwd)
                    )
                else:
                    self._effect(effect, cmd, depth, via)
        finally:
            self.state.cwd = saved

    def _effect(self, effect: interp.Effect, cmd: Cmd, depth: int, via: str) -> None:
        """One effect of interpreter code, judged as the shell command it amounts to."""
        if effect.kind == "shell":
            self.run(effect.value, depth + 1, via=via)
        elif effect.kind == "argv":
            self.execute(list(effect.words), cmd.text, depth + 1, via=via)
        elif effect.kind == "delete-recursive":
            self.execute(["rm", "-r", effect.value], cmd.text, depth + 1, via=via)
        elif effect.kind == "delete":
            self.execute(["rm", effect.value], cmd.text, depth + 1, via=via)
        elif effect.kind in ("write", "append"):
            op = ">" if effect.kind == "write" else ">>"
            self.execute([":"], cmd.text, depth + 1, redirects=[(op, effect.value)], via=via)
        elif effect.kind == "read":
            self.execute(["cat", effect.value], cmd.text, depth + 1, via=via)
        elif effect.kind == "remote-shell":
            from agentreflex.gate.rules.system import REMOTE_SHELL

            self._hit("GATE-REMOTE-SHELL", DESTRUCTIVE, P_BLOCK, cmd.text, REMOTE_SHELL)
        elif effect.kind == "unresolved":
            self._ask(
                "GATE-INTERP-UNRESOLVED",
                cmd.text,
                f"This code runs or deletes something the gate cannot resolve: "
                f"{effect.value}. Write the command or path out literally, or check it first.",
            )
        elif effect.kind == "orm":
            from agentreflex.gate.rules.infra import orm_every_row  # only for such code

            self.hits.append(orm_every_row(cmd, effect.value))
        elif effect.kind == "sdk":
            self._hit(
                "GATE-INTERP-SDK-DESTRUCTIVE",
                DESTRUCTIVE,
                P_BLOCK,
                cmd.text,
                f"This code calls {effect.value}, which cannot be undone. Delete only "
                "what you mean to, by name, and ask the user first.",
            )
        elif effect.kind == "fork-bomb":
            self._hit(
                "GATE-FORK-BOMB",
                DESTRUCTIVE,
                P_BLOCK,
                cmd.text,
                "This code forks without end and exhausts the machine.",
            )
        elif effect.kind == "exfil":
            self._hit(
                "GATE-EXFIL-SECRET",
                SECRET,
                0.9,
                cmd.text,
                f"This code sends {effect.value} (which holds credentials) to the "
                "network. Never send secrets off the machine; send only the fields "
                "the service needs.",
            )
        elif effect.kind == "dynamic-delete":
            self._hit(
                "GATE-INTERP-DYNAMIC-DELETE",
                DESTRUCTIVE,
                P_WARN,
                cmd.text,
                "This code deletes a directory tree whose path is computed at run "
                "time. Check the path points inside the project.",
            )


def _plain_carrier(cmd: Cmd, names: tuple[str, ...]) -> bool:
    """``eval``/``source`` called by name, with no prefix assignment or redirect."""
    first = cmd.text.split()[:1]
    return not cmd.assigns and not cmd.redirects and bool(first) and first[0] in names


def _shebang_language(content: str) -> str:
    """The interpreter a script names on its ``#!`` line ("" for a shell or none)."""
    if not content.startswith("#!"):
        return ""
    words = content[2:].split("\n", 1)[0].split()
    if words and words[0].endswith("/env"):
        words = [w for w in words[1:] if not w.startswith("-")]
    name = words[0].rsplit("/", 1)[-1] if words else ""
    return interp.interpreter_name(name) or ""


def _decoded(cmd: Cmd | None) -> bool:
    """Whether a pipe passes through a decoder (base64 -d, rev, xxd -r) on its way."""
    for _ in range(16):
        if cmd is None:
            return False
        if cmd.name in ("base64", "rev", "xxd", "openssl", "gunzip", "zcat", "tr", "uudecode"):
            return True
        cmd = cmd.stdin_from
    return False


def _module_unpack(words: list[str]) -> list[str]:
    """``-m zipfile -e SRC DEST`` / ``-m tarfile -e SRC [DEST]`` as ``unzip`` / ``tar -x``;
    ``-m zipfile|tarfile -c OUT FILES`` as ``tar -cf OUT FILES`` (OUT is written)."""
    if len(words) < 3 or words[0] not in ("zipfile", "tarfile"):
        return []
    if words[1] in ("-c", "--create"):
        return ["tar", "-cf", words[2], "--", *words[3:]]
    if words[1] not in ("-e", "--extract"):
        return []
    src, dest = words[2], (words[3] if len(words) > 3 else ".")
    if words[0] == "zipfile":
        return ["unzip", "-o", src, "-d", dest]
    return ["tar", "-xf", src, "-C", dest]


# An interpreter's syntax-check flag, and the flags that would still hand it code to run.
# perl -c is not here: it runs the file's BEGIN and use blocks.
_SYNTAX_CHECKS = {
    "php": (("-l", "--syntax-check"), ("-r", "-R", "-B", "-E", "-F")),
    "node": (("-c", "--check"), ("-e", "--eval", "-p", "--print", "-r", "--require", "--import")),
    "ruby": (("-c",), ("-e", "-r", "-n", "-p")),
}


def _checks_syntax_only(lang: str, args: list[str]) -> bool:
    """``php -l``, ``node --check``, ``ruby -c``: the file is parsed for errors and none of
    it runs, as ``bash -n`` (a code argument or a preloaded module still runs)."""
    flags = _SYNTAX_CHECKS.get("node" if lang == "nodejs" else lang)
    if flags is None:
        return False
    check, runs = flags
    return any(a in check for a in args) and not any(
        a in runs or a.startswith(tuple(f + "=" for f in runs if f.startswith("--"))) for a in args
    )


# ansible's modules that run their -a text as a command (ansible-doc -l; builtin names)
_ANSIBLE_RUNNERS = frozenset({"command", "shell", "raw"})


def _ansible_command(args: list[str]) -> str | None:
    """The command an ad-hoc ``ansible`` run gives its hosts (``None`` when its module
    runs none): ``-a``/``--args`` of the shell, command or raw module, or of no ``-m``."""
    module, text = "command", None
    for i, a in enumerate(args):
        name, eq, value = a.partition("=")
        if not eq:
            value = args[i + 1] if i + 1 < len(args) else ""
        if name in ("-m", "--module-name"):
            module = value
        elif name in ("-a", "--args"):
            text = value
        elif a.startswith("-m") and len(a) > 2:
            module = a[2:]
        elif a.startswith("-a") and len(a) > 2 and not a.startswith("--"):
            text = a[2:]
    if text is None or module.rsplit(".", 1)[-1] not in _ANSIBLE_RUNNERS:
        return None
    return text


_OS_PROGRAM_DIRS = ("/bin/", "/sbin/", "/usr/bin/", "/usr/sbin/")


def os_program(path: str) -> bool:
    """A program of the operating system's own folders (``/bin/ls``, ``/usr/bin/true``):
    root's, installed with the system, and no script to read; ``/usr/local/bin`` is left
    out, since a session may have installed into it."""
    return path.startswith(_OS_PROGRAM_DIRS)


def _is_file(path: str) -> bool:
    """Whether ``path`` is a file on disk now (``""``: none)."""
    import os

    return bool(path) and os.path.isfile(path)
