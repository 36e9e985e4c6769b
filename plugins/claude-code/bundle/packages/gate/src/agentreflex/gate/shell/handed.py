"""Commands a tool is handed to run on another machine or in an environment of its own.

``gcloud compute ssh vm --command 'redis-cli FLUSHALL'``, ``fly ssh console -C CMD``,
``heroku run CMD``, ``vagrant ssh -c CMD``, ``multipass exec vm -- CMD`` run CMD on a
VM, a dyno or a container, as ``ssh host CMD`` does; ``nix develop -c CMD``,
``nix-shell --run CMD`` and ``toolbox run CMD`` run it here, in a shell with other
packages.  Each tool's own spelling (from its documentation) is data below; the walker
judges what is found as it judges ssh's command or a shell's ``-c`` string (red-team
rt100: all of these were allowed, whatever they ran).  No rule lives here.
"""

from __future__ import annotations

from agentreflex.core.util.record import field, record


@record
class Handed:
    """What a tool runs: a shell string (``script``) or words (``argv``), and where."""

    how: str
    script: str | None = None
    argv: list[str] = field(default_factory=list)
    remote: bool = True  # on another machine or in a VM: its home and folders, not ours


# per program: (leading words, options whose value is a shell string, options taking a
# value, how the command follows: "script" only by option, "argv" the words after the
# target, "dashdash" the words after ``--``, "rest" the words after the leading ones)
Spec = tuple[tuple[tuple[str, ...], ...], frozenset[str], frozenset[str], str]
_SPECS: dict[str, Spec] = {
    # https://cloud.google.com/sdk/gcloud/reference/compute/ssh: --command, or ssh's
    # own arguments after --; cloud-shell ssh and tpu-vm ssh take the same
    "gcloud": (
        (
            *(("compute", "ssh"), ("alpha", "compute", "ssh"), ("beta", "compute", "ssh")),
            *(("cloud-shell", "ssh"), ("compute", "tpus", "tpu-vm", "ssh")),
            *(("alpha", "compute", "tpus", "tpu-vm", "ssh"),),
        ),
        frozenset({"--command"}),
        frozenset({"--zone", "--project", "--ssh-key-file", "--ssh-flag", "--container"}),
        "sshargs",
    ),
    # https://fly.io/docs/flyctl/ssh-console/
    "fly": (
        (("ssh", "console"),),
        frozenset({"-C", "--command"}),
        frozenset({"-a", "--app", "-s", "--select", "-u", "--user", "-r", "--region"}),
        "script",
    ),
    # https://devcenter.heroku.com/articles/one-off-dynos
    "heroku": (
        (("run",), ("run:detached",)),
        frozenset(),
        frozenset({"-a", "--app", "-r", "--remote", "-s", "--size", "-e", "--env", "--type"}),
        "rest",
    ),
    # https://developer.hashicorp.com/vagrant/docs/cli/ssh
    "vagrant": ((("ssh",),), frozenset({"-c", "--command"}), frozenset(), "script"),
    # https://docs.digitalocean.com/reference/doctl/reference/compute/ssh/
    "doctl": (
        (("compute", "ssh"),),
        frozenset({"--ssh-command"}),
        frozenset({"--ssh-key-path", "--ssh-port", "--ssh-user", "-t", "--access-token"}),
        "script",
    ),
    # https://learn.microsoft.com/en-us/cli/azure/vm/run-command#az-vm-run-command-invoke,
    # https://learn.microsoft.com/en-us/cli/azure/container#az-container-exec
    "az": (
        (("vm", "run-command", "invoke"), ("container", "exec")),
        frozenset({"--scripts", "--exec-command"}),
        frozenset(),
        "script",
    ),
    # https://docs.aws.amazon.com/cli/latest/reference/ecs/execute-command.html
    "aws": ((("ecs", "execute-command"),), frozenset({"--command"}), frozenset(), "script"),
    # https://docs.aws.amazon.com/elasticbeanstalk/latest/dg/eb3-ssh.html
    "eb": ((("ssh",),), frozenset({"-c", "--command"}), frozenset(), "script"),
    # https://docs.cloudfoundry.org/devguide/deploy-apps/ssh-apps.html: cf ssh APP -c CMD
    "cf": ((("ssh",),), frozenset({"-c", "--command"}), frozenset(), "script"),
    # https://multipass.run/docs/exec-command, https://linuxcontainers.org/incus/docs/main/
    "multipass": ((("exec",),), frozenset(), frozenset(), "dashdash"),
    "lxc": ((("exec",),), frozenset(), frozenset(), "dashdash"),
    "incus": ((("exec",),), frozenset(), frozenset(), "dashdash"),
    # https://minikube.sigs.k8s.io/docs/commands/ssh/
    "minikube": ((("ssh",),), frozenset(), frozenset({"-p", "--profile", "-n", "--node"}), "rest"),
    # https://docs.docker.com/machine/reference/ssh/ (the machine's name, then the command)
    "docker-machine": ((("ssh",),), frozenset(), frozenset(), "argv"),
    # https://lima-vm.io/docs/reference/limactl_shell/
    "limactl": ((("shell",),), frozenset(), frozenset({"--workdir", "--shell"}), "argv"),
    # https://mosh.org/#usage: mosh [options] host -- command
    "mosh": (((),), frozenset(), frozenset({"-p", "--port", "--ssh", "--server"}), "dashdash"),
    # https://goteleport.com/docs/reference/cli/tsh/#tsh-ssh: tsh ssh [user@]host CMD
    "tsh": (
        (("ssh",),),
        frozenset(),
        frozenset({"-l", "--login", "-p", "--port", "--proxy", "--user", "--cluster", "-L"}),
        "argv",
    ),
    # https://docs.orbstack.dev/machines/commands: orb [-m MACHINE] [-u USER] CMD
    "orb": (((),), frozenset(), frozenset({"-m", "--machine", "-u", "--user", "-w"}), "rest"),
    # https://nix.dev/manual/nix/2.18/command-ref/new-cli/nix3-develop: -c CMD ARGS...
    "nix": ((("develop",), ("shell",)), frozenset(), frozenset(), "nixc"),
    # https://nix.dev/manual/nix/2.18/command-ref/nix-shell: --run / --command SCRIPT
    "nix-shell": (((),), frozenset({"--run", "--command"}), frozenset(), "script"),
    # https://www.jetify.com/docs/devbox/cli_reference/devbox_run: devbox run CMD (a
    # devbox.json script's name, or any command)
    "devbox": (
        (("run",),),
        frozenset(),
        frozenset({"-c", "--config", "-e", "--env", "--env-file", "--environment"}),
        "rest",
    ),
    # https://devenv.sh/reference/cli/: devenv shell [CMD]... runs CMD in the environment
    "devenv": ((("shell",),), frozenset(), frozenset(), "rest"),
    # https://containertoolbx.org/: toolbox run [-c NAME] CMD...
    "toolbox": (
        (("run",),),
        frozenset(),
        frozenset({"-c", "--container", "-d", "--distro"}),
        "rest",
    ),
}
# A second spelling of the same tool: https://fly.io/docs/flyctl/machine-exec/ (the
# machine's id, then the command as one word)
_SECOND: dict[str, Spec] = {
    "fly": ((("machine", "exec"), ("m", "exec")), frozenset(), frozenset({"-a", "--app"}), "argv"),
    # https://devcenter.heroku.com/articles/heroku-cli-commands#heroku-run-inside-dyno-command:
    # heroku run:inside DYNO COMMAND runs COMMAND in a running dyno (rt104)
    "heroku": (
        (("run:inside",),),
        frozenset(),
        frozenset({"-a", "--app", "-r", "--remote"}),
        "argv",
    ),
}
_ALIASES = {"flyctl": "fly"}
_LOCAL = frozenset({"nix", "nix-shell", "toolbox", "devbox", "devenv"})
# Tools that exec the words themselves rather than hand them to a shell (``lxc exec c --
# sh -c 'X'`` keeps its quoting); the others join them for a remote shell, as ssh does.
_EXECS = frozenset({"lxc", "incus", "multipass", "toolbox", "nix"})
# Tools that read their own options anywhere before ``--`` (oclif: ``heroku run bash -a
# app``), so those are not the command's.
_FLAGS_ANYWHERE = frozenset({"heroku", "devbox"})
PROGRAMS = frozenset({*_SPECS, *_ALIASES})


def handed(name: str, args: list[str]) -> Handed | None:
    """What ``name args`` runs elsewhere or in its own environment (``None``: nothing)."""
    name = _ALIASES.get(name, name)
    for spec in (_SPECS.get(name), _SECOND.get(name)):
        found = _from_spec(name, spec, args) if spec else None
        if found is not None:
            return found
    return None


def _from_spec(name: str, spec: Spec, args: list[str]) -> Handed | None:
    """What ``name args`` runs when it is spelt as ``spec`` says."""
    leads, script_opts, valued, form = spec
    words = [a for a in args if not a.startswith("-")]
    lead = next((lead for lead in leads if tuple(words[: len(lead)]) == lead), None)
    if lead is None:
        return None
    how, remote = f"{name} {' '.join(lead)}".strip(), name not in _LOCAL
    scripts = _option_values(args, script_opts)
    if scripts:  # each a script of its own (az's --scripts "a" "b")
        return Handed(how, script="\n".join(scripts), remote=remote)
    rest = _after_lead(args, lead, valued | script_opts)
    if name in _FLAGS_ANYWHERE:
        rest = _drop_options(rest, valued)
    if form == "dashdash" and "--" in args:
        rest = args[args.index("--") + 1 :]
    elif form == "dashdash":
        return None
    if form == "sshargs" and "--" in args:  # ssh's options, then the command it runs
        after = args[args.index("--") + 1 :]
        script = _ssh_command(after)
        return Handed(how, script=script, remote=remote) if script else None
    if form == "nixc":
        for k, a in enumerate(args):
            if a in ("-c", "--command") and args[k + 1 :]:
                return Handed(how, argv=args[k + 1 :], remote=False)
        return None
    if form == "argv":
        rest = rest[1:]  # the machine or instance named first
    if not rest:
        return None
    if name in _EXECS:
        return Handed(how, argv=rest, remote=remote)
    return Handed(how, script=" ".join(rest), remote=remote)


def _drop_options(words: list[str], valued: frozenset[str]) -> list[str]:
    """``words`` without the tool's own options and their values, up to ``--``."""
    out: list[str] = []
    k = 0
    while k < len(words):
        a = words[k]
        if a == "--":
            return [*out, *words[k + 1 :]]
        if a in valued:
            k += 2
            continue
        if not (a.startswith("--") and a.partition("=")[0] in valued):
            out.append(a)
        k += 1
    return out


def _option_values(args: list[str], options: frozenset[str]) -> list[str]:
    """The values of ``options`` (``--command X``, ``--command=X``, ``-CX``); az's
    ``--scripts`` takes every word up to the next option."""
    out: list[str] = []
    for k, a in enumerate(args):
        name, eq, value = a.partition("=")
        if eq and name in options:
            out.append(value)
        elif a in options and k + 1 < len(args):
            if a == "--scripts":
                following = args[k + 1 :]
                end = next((i for i, w in enumerate(following) if w.startswith("-")), None)
                out.extend(following[:end])
            else:
                out.append(args[k + 1])
        elif len(a) > 2 and a[:2] in options and not a.startswith("--"):
            out.append(a[2:])
    return out


def _after_lead(args: list[str], lead: tuple[str, ...], valued: frozenset[str]) -> list[str]:
    """The words after the leading ones, the tool's options (and their values) left out
    up to the first other word; from there every word is the command's."""
    k, seen = 0, 0
    while k < len(args) and seen < len(lead):
        if args[k] == lead[seen]:
            seen += 1
        k += 1
    while k < len(args):
        a = args[k]
        if a == "--":
            return args[k + 1 :]
        if not a.startswith("-"):
            return args[k:]
        k += 2 if a in valued else 1
    return []


def _ssh_command(args: list[str]) -> str:
    """The command among ssh's arguments when the host is already given (gcloud's ``--
    SSH_ARGS``): the words after ssh's options; ``-L 80:localhost:80`` alone runs none."""
    from agentreflex.gate.shell.remote import SSH_VALUED

    k = 0
    while k < len(args):
        a = args[k]
        if a == "--":
            k += 1
            break
        if not a.startswith("-") or len(a) < 2:
            break
        for n, ch in enumerate(a[1:]):  # a cluster: a valued letter takes the rest
            if ch in SSH_VALUED:
                k += n == len(a) - 2  # or, last, the next word
                break
        k += 1
    return " ".join(args[k:])
