"""The plugin's first-run setup works behind TLS re-signed by a local authority.

A real HTTPS package index on 127.0.0.1 whose certificate comes from a CA made here,
trusted only through ``SSL_CERT_FILE`` (what a corporate network's users set). The
bootstrap, with an empty uv cache, installs ``agentreflex-core`` from it and reaches
"ready"; without ``SSL_CERT_FILE`` the same setup fails, so the CA is what made it work.
"""

from __future__ import annotations

import hashlib
import http.server
import importlib.metadata
import json
import shutil
import ssl
import subprocess
import sys
import threading
import time
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import ClassVar

import pytest

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "tests"))

from machine_env import scrubbed_env, workspace_uv  # noqa: E402

THIRD_PARTY = ("pydantic", "pydantic-core", "annotated-types", "typing-extensions")
THIRD_PARTY += ("typing-inspection",)


def _openssl(*args: str, cwd: Path) -> None:
    subprocess.run(["openssl", *args], cwd=cwd, check=True, capture_output=True)


def make_ca_and_server_cert(where: Path) -> tuple[Path, Path, Path]:
    """A CA of our own and a server certificate for 127.0.0.1 signed by it."""
    _openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj",
             "/CN=agentreflex test CA", "-keyout", "ca.key", "-out", "ca.pem",
             "-addext", "basicConstraints=critical,CA:TRUE",
             "-addext", "keyUsage=critical,keyCertSign,cRLSign", cwd=where)  # fmt: skip
    _openssl("req", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=127.0.0.1",
             "-keyout", "server.key", "-out", "server.csr", cwd=where)  # fmt: skip
    (where / "ext.cnf").write_text(
        "subjectAltName=IP:127.0.0.1\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n"
    )
    _openssl("x509", "-req", "-in", "server.csr", "-CA", "ca.pem", "-CAkey", "ca.key",
             "-CAcreateserial", "-days", "2", "-extfile", "ext.cnf", "-out", "server.pem",
             cwd=where)  # fmt: skip
    return where / "ca.pem", where / "server.pem", where / "server.key"


def wheel_of_installed(name: str, out: Path) -> Path:
    """Zip an installed distribution back into a wheel (the files its RECORD lists)."""
    dist = importlib.metadata.distribution(name)
    wheel_meta = dist.read_text("WHEEL") or ""
    tag = next(
        line.split(":", 1)[1].strip() for line in wheel_meta.splitlines() if line.startswith("Tag:")
    )
    project = dist.metadata["Name"].replace("-", "_")
    target = out / f"{project}-{dist.version}-{tag}.whl"
    with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as zf:
        for file in dist.files or []:
            if file.suffix == ".pyc" or file.name in ("INSTALLER", "REQUESTED", "direct_url.json"):
                continue
            located = Path(str(dist.locate_file(file)))
            if located.is_file():
                zf.write(located, str(file))
    return target


def build_wheelhouse(out: Path) -> list[Path]:
    out.mkdir()
    done = subprocess.run(
        [*workspace_uv(), "build", "--wheel", "--package", "agentreflex-core", "--out-dir",
         str(out), "--quiet"],
        cwd=REPO, capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    for name in THIRD_PARTY:
        wheel_of_installed(name, out)
    return sorted(out.glob("*.whl"))


def _normal(name: str) -> str:
    return name.lower().replace("_", "-").replace(".", "-")


class _Index(http.server.BaseHTTPRequestHandler):
    wheels: ClassVar[dict[str, list[Path]]] = {}
    requests: ClassVar[list[str]] = []

    def log_message(self, *args: object) -> None:
        pass

    head_only = False

    def do_HEAD(self) -> None:
        self.head_only = True
        self.do_GET()

    def do_GET(self) -> None:
        self.requests.append(self.path)
        parts = [p for p in self.path.split("/") if p]
        if len(parts) == 2 and parts[0] == "simple" and parts[1] in self.wheels:
            links = "".join(
                f'<a href="/files/{w.name}#sha256={hashlib.sha256(w.read_bytes()).hexdigest()}">'
                f"{w.name}</a>\n"
                for w in self.wheels[parts[1]]
            )
            self._send(200, "text/html", f"<html><body>{links}</body></html>".encode())
            return
        if len(parts) == 2 and parts[0] == "files":
            for group in self.wheels.values():
                for wheel in group:
                    if wheel.name == parts[1]:
                        self._send(200, "application/octet-stream", wheel.read_bytes())
                        return
        self._send(404, "text/plain", b"not here")

    def _send(self, code: int, kind: str, body: bytes) -> None:
        self.send_response(code)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if not self.head_only:
            self.wfile.write(body)


@pytest.fixture(scope="module")
def tls_index(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    base = tmp_path_factory.mktemp("tls-index")
    ca, cert, key = make_ca_and_server_cert(base)
    wheels: dict[str, list[Path]] = {}
    for wheel in build_wheelhouse(base / "wheels"):
        wheels.setdefault(_normal(wheel.name.split("-")[0]), []).append(wheel)
    handler = type("Index", (_Index,), {"wheels": wheels, "requests": []})
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    server.socket = context.wrap_socket(server.socket, server_side=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"https://127.0.0.1:{server.server_address[1]}/simple", ca
    finally:
        server.shutdown()
        server.server_close()


def _plugin(tmp: Path) -> tuple[Path, Path, dict[str, str]]:
    """The plugin's bundle asking for agentreflex-core from the index, and a clean env."""
    root = tmp / "plugin"
    shutil.copytree(
        REPO / "plugins" / "claude-code", root, ignore=shutil.ignore_patterns("__pycache__")
    )
    bundle = root / "bundle"
    shutil.copy(REPO / "plugins" / "shared" / "bootstrap.py", bundle / "bootstrap.py")
    (bundle / "requirements.txt").write_text("# from the index\n")
    (bundle / "packages.txt").write_text("agentreflex-core\n")
    bindir = tmp / "bin"
    bindir.mkdir()
    (bindir / "uv").symlink_to(shutil.which(workspace_uv()[0]) or workspace_uv()[0])
    (tmp / "home").mkdir()
    env = {
        "PATH": f"{bindir}:/usr/bin:/bin",
        "HOME": str(tmp / "home"),
        "UV_CACHE_DIR": str(tmp / "empty-uv-cache"),
        "UV_PYTHON_DOWNLOADS": "never",
        "LANG": "C.UTF-8",
    }
    return bundle, tmp / "data", env


def _bootstrap(bundle: Path, data: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    argv = [
        sys.executable,
        str(bundle / "bootstrap.py"),
        "setup",
        "--bundle",
        str(bundle),
        "--data",
        str(data),
    ]
    return subprocess.run(argv, env=env, capture_output=True, text=True, timeout=300, check=False)


def test_setup_reaches_ready_through_an_index_trusted_only_by_ssl_cert_file(
    tls_index: tuple[str, Path], tmp_path: Path
) -> None:
    url, ca = tls_index
    bundle, data, base = _plugin(tmp_path)
    machine = {"https_proxy": "http://user:secret@proxy.invalid:3128", "no_proxy": "127.0.0.1"}
    env = scrubbed_env(
        {**base, "UV_DEFAULT_INDEX": url, "UV_INDEX_URL": url, "SSL_CERT_FILE": str(ca)},
        source=machine,
    )
    done = _bootstrap(bundle, data, env)
    log = (data / "setup.log").read_text() if (data / "setup.log").exists() else ""
    assert done.returncode == 0, (done.stdout, done.stderr, log)
    state = json.loads((data / "setup.json").read_text())
    assert state["state"] == "ready"
    assert state["network"]["certificates"] == {"SSL_CERT_FILE": str(ca)}
    assert state["network"]["system_trust_store"] is True
    assert state["network"]["proxies"] == ["https_proxy", "no_proxy"]
    assert "secret" not in (data / "setup.json").read_text()
    ident = (bundle / "id").read_text().strip()
    agentreflex = data / "envs" / ident / "bin" / "agentreflex"
    assert (
        subprocess.run([str(agentreflex), "--help"], capture_output=True, check=False).returncode
        == 0
    )


def test_without_the_ca_the_same_setup_fails(tls_index: tuple[str, Path], tmp_path: Path) -> None:
    url, _ = tls_index
    bundle, data, base = _plugin(tmp_path)
    env = {**base, "UV_DEFAULT_INDEX": url, "UV_INDEX_URL": url, "UV_HTTP_RETRIES": "0"}
    done = _bootstrap(bundle, data, env)
    assert done.returncode == 1
    state = json.loads((data / "setup.json").read_text())
    assert state["state"] == "failed"
    log = (data / "setup.log").read_text().lower()
    assert "issuer" in log or "certificate" in log, log[-2000:]


def test_a_cold_cache_first_session_start_says_how_long_instead_of_waiting(
    tls_index: tuple[str, Path], tmp_path: Path
) -> None:
    """An empty uv cache: the setup goes to the index, so SessionStart does not hold the
    session for its whole timeout; it says the setup is under way and for how long."""
    url, ca = tls_index
    bundle, data, base = _plugin(tmp_path)
    env = {**base, "UV_DEFAULT_INDEX": url, "UV_INDEX_URL": url, "SSL_CERT_FILE": str(ca)}
    argv = [sys.executable, str(bundle / "bootstrap.py"), "ensure", "--bundle", str(bundle)]
    argv += ["--data", str(data), "--event", "SessionStart"]
    started = time.monotonic()
    done = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=60, check=False)
    waited = time.monotonic() - started
    assert done.returncode == 0, done.stderr
    said = json.loads(done.stdout)["systemMessage"]
    assert "setting itself up" in said and "s more" in said, said
    assert waited < 20, waited  # it stopped waiting when the setup went online
    deadline = time.monotonic() + 120
    while json.loads((data / "setup.json").read_text()).get("state") == "running":
        assert time.monotonic() < deadline
        time.sleep(0.2)
    assert json.loads((data / "setup.json").read_text())["state"] == "ready"
