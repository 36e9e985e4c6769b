"""Commands run somewhere else: over ssh, in containers, in pods.

``ssh prod 'rm -rf /var/www'``, ``docker run -v /:/host alpine rm -rf
/host/etc`` and ``kubectl exec db-0 -- psql -c 'DROP DATABASE app'`` run
their command like ``sh -c`` does; the walker judges that command with the
ordinary rules.  This module only finds it, and says where it runs:

- ssh joins its words with spaces and the remote shell parses them, in the
  remote user's home directory;
- ``docker/podman/nerdctl run`` (and ``compose run``) start a *fresh*
  container: its own filesystem is disposable, so absolute paths are mapped
  back through the bind mounts (``-v /:/host`` makes ``/host/etc`` the host's
  ``/etc``) and paths outside every mount count as temporary;
- ``exec`` into a running container or pod touches its live state, whose
  working directory is unknown unless ``-w`` says it.
"""

from __future__ import annotations

import posixpath

from agentreflex.core.util.record import field, record
from agentreflex.gate.model import UNKNOWN, has_marker
from agentreflex.gate.shell.paths import Where, resolve

# A fresh container's own filesystem: as disposable as a temp directory.
CONTAINER_PRIVATE = "/tmp/.container"

SSH_VALUED = frozenset("BbcDEeFIiJLlmOopQRSWw")
# docker's global options that take a value (docker --help): ``-H ssh://prod`` is no subcommand
DOCKER_GLOBAL_VALUED = frozenset(
    {
        "-H",
        "--host",
        "-c",
        "--context",
        "--config",
        "-l",
        "--log-level",
        "--tlscacert",
        "--tlscert",
        "--tlskey",
    }
)
_COMPOSE_GLOBAL_VALUED = frozenset(
    {"-f", "--file", "-p", "--project-name", "--profile", "--project-directory", "--env-file"}
)
_RUN_VALUED = frozenset(
    {
        "-v",
        "--volume",
        "--mount",
        "-e",
        "--env",
        "--env-file",
        "-w",
        "--workdir",
        "-p",
        "--publish",
        "--name",
        "--network",
        "--net",
        "-u",
        "--user",
        "--entrypoint",
        "-l",
        "--label",
        "--label-file",
        "-h",
        "--hostname",
        "--cpus",
        "-m",
        "--memory",
        "--restart",
        "--platform",
        "--pull",
        "--add-host",
        "--device",
        "--dns",
        "--cap-add",
        "--cap-drop",
        "--security-opt",
        "--tmpfs",
        "--ulimit",
        "--log-driver",
        "--log-opt",
        "--gpus",
        "--ipc",
        "--pid",
        "--runtime",
        "--shm-size",
        "--stop-signal",
        "--stop-timeout",
        "--userns",
        "--uts",
        "--volumes-from",
        "--link",
        "--expose",
        "--cidfile",
        "--detach-keys",
        "--group-add",
        "--health-cmd",
        "--ip",
        "--mac-address",
        "--memory-swap",
        "--cgroupns",
        "--cpuset-cpus",
        "--cpu-shares",
        "-c",
    }
)
_KUBE_VALUED = frozenset({"-n", "--namespace", "-c", "--container", "--context", "--kubeconfig"})
# https://docs.openshift.com/container-platform/4.14/cli_reference/openshift_cli/developer-cli-commands.html#oc-rsh
_RSH_VALUED = _KUBE_VALUED | {"--shell", "-f", "--filename", "--timeout"}


@record
class Elsewhere:
    """A command that runs on another host or in a container, and its context."""

    how: str  # "ssh", "docker run", "kubectl exec"...
    argv: list[str] = field(default_factory=list)  # exec'd directly (containers, pods)
    script: str | None = None  # parsed by a remote shell (ssh)
    cwd: str = UNKNOWN
    mounts: list[tuple[str, str]] = field(default_factory=list)  # (container dst, host src)
    fresh: bool = False

    def host_path(self, word: str) -> str:
        """Where an absolute container path really is on this machine."""
        if not word.startswith("/") or (not self.fresh and not self.mounts):
            return word
        best: tuple[str, str] | None = None
        for dst, src in self.mounts:
            d = dst.rstrip("/") or "/"
            if (word == d or word.startswith(d.rstrip("/") + "/")) and (
                best is None or len(d) > len(best[0])
            ):
                best = (d, src)
        if best is not None:
            rest = word[len(best[0]) :] if best[0] != "/" else word
            mapped = best[1].rstrip("/") + ("/" + rest.lstrip("/") if rest.strip("/") else "")
            return mapped or "/"
        return CONTAINER_PRIVATE + word if self.fresh else word


def ssh_command(args: list[str]) -> str | None:
    """The remote command of ``ssh [options] host command...`` (None: a login shell)."""
    i = 0
    while i < len(args):
        a = args[i]
        if a == "--":
            i += 1
            break
        if not a.startswith("-") or len(a) < 2:
            break
        for k, ch in enumerate(a[1:]):
            if ch in SSH_VALUED:
                if k == len(a) - 2:
                    i += 1  # the value is the next word
                break
        i += 1
    rest = args[i + 1 :]
    return " ".join(rest) if rest else None


def _skip(args: list[str], valued: frozenset[str]) -> int:
    i = 0
    while i < len(args):
        a = args[i]
        if a == "--":
            return i + 1
        if not a.startswith("-") or a == "-":
            return i
        i += 2 if a in valued else 1
    return i


def container_command(name: str, args: list[str], where: Where, cwd: str) -> Elsewhere | None:
    """What ``docker run/exec``, ``compose run/exec``, ``kubectl exec/run`` execute inside."""
    if name in ("kubectl", "oc", "k"):
        k = _skip(args, _KUBE_VALUED)
        verb = args[k] if k < len(args) else ""
        if name == "oc" and verb == "rsh":  # oc rsh [options] POD [COMMAND...] (rt100)
            rest = args[k + 1 :]
            i = _skip(rest, _RSH_VALUED)
            inner = rest[i + 1 :]
            return Elsewhere("oc rsh", argv=inner, cwd=UNKNOWN) if inner else None
        # kubectl debug POD|node/N --image=I -- CMD runs CMD in a container added to a
        # running pod, or on a node with its root at /host (rt104; https://kubernetes.io/
        # docs/reference/kubectl/generated/kubectl_debug/): not a fresh one
        if verb not in ("exec", "run", "debug") or "--" not in args[k:]:
            return None
        inner = args[args.index("--", k) + 1 :]
        if not inner:
            return None
        return Elsewhere(f"{name} {verb}", argv=inner, fresh=verb == "run", cwd=UNKNOWN)
    if name not in ("docker", "podman", "nerdctl", "docker-compose"):
        return None
    k = _skip(args, DOCKER_GLOBAL_VALUED)
    compose = name == "docker-compose"
    if not compose and args[k : k + 1] == ["compose"]:
        compose = True
        k += 1 + _skip(args[k + 1 :], _COMPOSE_GLOBAL_VALUED)
    elif compose:
        k = _skip(args, _COMPOSE_GLOBAL_VALUED)
    if not compose and args[k : k + 1] == ["container"]:
        k += 1
    verb = args[k] if k < len(args) else ""
    if verb not in ("run", "exec"):
        return None
    rest = args[k + 1 :]
    # a fresh container from `docker run`; compose services may mount anything
    found = Elsewhere(f"{name} {verb}", fresh=verb == "run" and not compose)
    entrypoint = ""
    i = 0
    while i < len(rest):
        a = rest[i]
        if a == "--":
            i += 1
            break
        if not a.startswith("-") or a == "-":
            break
        opt, value, used = _run_option(a, rest[i + 1] if i + 1 < len(rest) else "")
        if opt:
            _option(found, opt, value, where, cwd)
            if opt == "--entrypoint":
                entrypoint = value
        i += used
    if i >= len(rest):
        return None
    inner = rest[i + 1 :]  # after the image / container / service
    if not entrypoint and verb == "run" and not compose:
        entrypoint = _CLI_IMAGES.get(_image_name(rest[i]), "")
    if entrypoint:
        inner = [entrypoint, *inner]
    if not inner:
        return None
    found.argv = [found.host_path(w) for w in inner]
    if found.cwd == UNKNOWN and found.fresh:
        found.cwd = CONTAINER_PRIVATE
    return found


# Official images whose ENTRYPOINT is a cloud CLI (each image's Dockerfile): the words
# after the image are that CLI's arguments (docker run amazon/aws-cli s3 rb ...)
_CLI_IMAGES = {
    "amazon/aws-cli": "aws",
    "public.ecr.aws/aws-cli/aws-cli": "aws",
    "hashicorp/terraform": "terraform",
    "ghcr.io/opentofu/opentofu": "tofu",
    "bitnami/kubectl": "kubectl",
    "alpine/helm": "helm",
    "digitalocean/doctl": "doctl",
    "rclone/rclone": "rclone",
    "minio/mc": "mc",
}


def _image_name(image: str) -> str:
    """``docker.io/hashicorp/terraform:1.9@sha256:...`` -> ``hashicorp/terraform``."""
    name = image.partition("@")[0]
    if ":" in name.rpartition("/")[2]:
        name = name.rpartition(":")[0]
    return name.removeprefix("docker.io/").removeprefix("index.docker.io/")


def _run_option(arg: str, following: str) -> tuple[str, str, int]:
    """``(option, value, words used)`` of one ``docker run`` option word ("" when it takes none).

    The docker CLI reads options as pflag does: ``--volume=V`` and ``--volume V``,
    ``-v V``, ``-v=V`` and ``-vV``, and short flags clustered with the valued one
    last (``-itv V``).
    """
    if arg.startswith("--"):
        opt, eq, inline = arg.partition("=")
        if opt not in _RUN_VALUED:
            return "", "", 1
        return (opt, inline, 1) if eq else (opt, following, 2)
    for k, ch in enumerate(arg[1:], start=1):
        if f"-{ch}" in _RUN_VALUED:
            attached = arg[k + 1 :]
            if attached:
                return f"-{ch}", attached.removeprefix("="), 1
            return f"-{ch}", following, 2
    return "", "", 1


def _option(found: Elsewhere, opt: str, value: str, where: Where, cwd: str) -> None:
    if opt in ("-v", "--volume"):
        parts = value.split(":")
        if len(parts) < 2 or not parts[1].startswith("/"):
            return
        if parts[0][:1] in ("/", ".", "~", UNKNOWN):
            found.mounts.append((parts[1], resolve(parts[0], where, cwd)))
        else:  # a named volume keeps data across containers: judge the path as it is
            found.mounts.append((parts[1], parts[1]))
    elif opt == "--mount":
        fields = dict(p.partition("=")[::2] for p in value.split(","))
        src = fields.get("source") or fields.get("src") or ""
        dst = fields.get("target") or fields.get("destination") or fields.get("dst") or ""
        if src and dst.startswith("/"):
            bind = fields.get("type", "volume") == "bind"
            found.mounts.append((dst, resolve(src, where, cwd) if bind else dst))
    elif opt in ("-w", "--workdir") and value:
        found.cwd = found.host_path(value) if value.startswith("/") else UNKNOWN


def program_inside(found: Elsewhere) -> list[str]:
    """``found.argv`` with a program named by a relative path (``kubectl exec pod --
    ./cockroach sql``, ``compose exec web ./bin/rails db:migrate``) placed in the
    container's own filesystem.

    The folder it runs from is the container's, unknown here, so the path names the
    container's file, never one of this project's; read from an unknown folder it
    would be asked as a file "named only at run time", which it is not (an absolute
    program path, ``/app/manage.py``, was already judged as the container's).  The
    arguments keep the unknown folder: ``rm -rf ./data`` in a pod is still unresolved.
    """
    argv = found.argv
    first = argv[0] if argv else ""
    if found.cwd != UNKNOWN or "/" not in first or first.startswith(("/", "~", "$")):
        return argv
    if has_marker(first):
        return argv
    return [CONTAINER_PRIVATE + "/" + posixpath.normpath(first).lstrip("./"), *argv[1:]]
