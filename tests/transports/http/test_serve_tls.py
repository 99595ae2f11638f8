"""`memesh serve --tls-cert FILE --tls-key FILE`: HTTPS from granian, the pair checked before anything listens, and a
warning for a remote listener that speaks plain HTTP. Certificates are made here with the openssl CLI."""

from __future__ import annotations

import os
import queue
import re
import shutil
import ssl
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from memesh.transports.http.serve import PLAIN_REMOTE_WARNING, serve
from tests.transports.http.test_serve import STARTUP_TIMEOUT, clean_env, no_listen

__all__ = ["clean_env", "no_listen"]  # fixtures of test_serve, used here too

MEMESH = Path(sys.executable).parent / "memesh"
RUNNING = re.compile(r"^MeMesh HTTP server running at (?P<url>https?://[^ ]+)$")

pytestmark = [
    pytest.mark.skipif(shutil.which("openssl") is None, reason="needs the openssl CLI"),
    pytest.mark.one_engine("flags, certificates and the listener: no store is reached"),
]


def _openssl(folder: Path, *args: str) -> None:
    subprocess.run(["openssl", *args], cwd=folder, check=True, capture_output=True)


@pytest.fixture(scope="module")
def pki(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder with a self-signed certificate for 127.0.0.1 (cert.pem, key.pem), another key (other.pem) and the
    same key encrypted with a passphrase (encrypted.pem)."""
    folder = tmp_path_factory.mktemp("pki")
    curve = ("-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1")
    _openssl(
        folder, "req", "-x509", *curve, "-nodes", "-keyout", "key.pem", "-out", "cert.pem", "-days", "2",
        "-subj", "/CN=memesh-test", "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost",
    )  # fmt: skip
    _openssl(folder, "genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-out", "other.pem")
    _openssl(folder, "pkey", "-in", "key.pem", "-aes256", "-passout", "pass:secret", "-out", "encrypted.pem")
    (folder / "not-pem.pem").write_text("not a certificate\n")
    return folder


@pytest.mark.parametrize("given", ["cert", "key"])
def test_one_of_the_pair_alone_is_refused_before_listening(
    pki: Path, clean_env: Path, no_listen: list[tuple[str, int]], given: str
) -> None:
    cert = str(pki / "cert.pem") if given == "cert" else None
    key = str(pki / "key.pem") if given == "key" else None
    assert serve(host="127.0.0.1", port=3737, tls_cert=cert, tls_key=key) == 1
    assert no_listen == []


@pytest.mark.parametrize(
    ("cert", "key"),
    [
        ("missing.pem", "key.pem"),  # cannot be read
        ("cert.pem", "missing.pem"),
        ("not-pem.pem", "key.pem"),  # not a certificate
        ("cert.pem", "other.pem"),  # a key that is not the certificate's
        ("cert.pem", "encrypted.pem"),  # would prompt for a passphrase no one can type into the worker
    ],
)
def test_a_pair_that_cannot_be_used_is_refused_before_listening_or_making_a_token(
    pki: Path, clean_env: Path, no_listen: list[tuple[str, int]], cert: str, key: str
) -> None:
    code = serve(host="0.0.0.0", port=3737, allow_remote=True, tls_cert=str(pki / cert), tls_key=str(pki / key))
    assert code == 1
    assert no_listen == []
    assert not clean_env.exists()


def test_a_remote_listener_without_tls_warns_once_on_stderr(
    clean_env: Path, no_listen: list[tuple[str, int]], capsys: pytest.CaptureFixture[str]
) -> None:
    serve(host="0.0.0.0", port=3737, allow_remote=True)
    err = capsys.readouterr().err
    assert err.count(PLAIN_REMOTE_WARNING) == 1
    assert len(PLAIN_REMOTE_WARNING.splitlines()) == 1
    assert no_listen == [("0.0.0.0", 3737)]


@pytest.mark.parametrize("host", ["127.0.0.1", "0.0.0.0"])
def test_no_warning_for_a_loopback_listener_or_one_with_tls(
    pki: Path,
    clean_env: Path,
    no_listen: list[tuple[str, int]],
    capsys: pytest.CaptureFixture[str],
    host: str,
) -> None:
    remote = host != "127.0.0.1"
    cert, key = (str(pki / "cert.pem"), str(pki / "key.pem")) if remote else (None, None)
    serve(host=host, port=3737, allow_remote=remote, tls_cert=cert, tls_key=key)
    assert PLAIN_REMOTE_WARNING not in capsys.readouterr().err
    assert no_listen == [(host, 3737)]


class Server:
    """`memesh serve …` as a user types it, on a port of its own."""

    def __init__(self, args: list[str], home: Path) -> None:
        env = {k: v for k, v in os.environ.items() if k not in ("MEMESH_REMOTE_TOKEN", "MEMESH_HTTP_ALLOW_REMOTE")}
        env.update(HOME=str(home), MEMESH_DIR=str(home / ".memesh"), MEMESH_DB_PATH=str(home / ".memesh" / "kg.db"))
        self.proc = subprocess.Popen(
            [str(MEMESH), "serve", "--port", "0", *args],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        lines: queue.Queue[str] = queue.Queue()
        threading.Thread(
            target=lambda: lines.put(self.proc.stdout.readline() if self.proc.stdout else ""), daemon=True
        ).start()
        match = RUNNING.match(lines.get(timeout=STARTUP_TIMEOUT).strip())
        assert match, self.proc.stderr.read() if self.proc.stderr else ""
        self.url = match["url"]
        self.port = int(self.url.rsplit(":", 1)[1])

    def stop(self) -> str:
        self.proc.terminate()
        _, err = self.proc.communicate(timeout=STARTUP_TIMEOUT)
        return err


@pytest.fixture
def started(tmp_path: Path) -> Iterator[list[Server]]:
    servers: list[Server] = []
    yield servers
    for server in servers:
        if server.proc.poll() is None:
            server.proc.kill()
            server.proc.wait()


def _trusting(pki: Path) -> ssl.SSLContext:
    return ssl.create_default_context(cafile=str(pki / "cert.pem"))


def test_the_real_server_speaks_https_that_verifies_against_its_certificate(
    pki: Path, tmp_path: Path, started: list[Server]
) -> None:
    server = Server(["--tls-cert", str(pki / "cert.pem"), "--tls-key", str(pki / "key.pem")], tmp_path / "home")
    started.append(server)
    assert server.url.startswith("https://127.0.0.1:")
    with httpx.Client(verify=_trusting(pki), timeout=STARTUP_TIMEOUT) as client:
        response = client.get(f"{server.url}/v1/health")
    assert (response.status_code, response.json()["data"]["status"]) == (200, "ok")
    with pytest.raises(httpx.HTTPError):  # nothing answers plain HTTP on a TLS port
        httpx.get(f"http://127.0.0.1:{server.port}/v1/health", timeout=5)
    with pytest.raises(httpx.ConnectError):  # a client that does not trust the certificate stops at the handshake
        httpx.get(f"{server.url}/v1/health", timeout=5)


def test_a_remote_listener_with_tls_asks_for_the_bearer_over_https_and_does_not_warn(
    pki: Path, tmp_path: Path, started: list[Server]
) -> None:
    home = tmp_path / "home"
    args = ["--host", "0.0.0.0", "--allow-remote", "--tls-cert", str(pki / "cert.pem"), "--tls-key"]
    server = Server([*args, str(pki / "key.pem")], home)
    started.append(server)
    token = (home / ".memesh" / "remote-token").read_text().strip()
    local = f"https://127.0.0.1:{server.port}"
    with httpx.Client(base_url=local, verify=_trusting(pki), timeout=STARTUP_TIMEOUT) as client:
        assert client.get("/v1/health").json()["errorCode"] == "auth.missing-bearer"
        assert client.get("/v1/health", headers={"Authorization": f"Bearer {token}"}).status_code == 200
    err = server.stop()
    assert PLAIN_REMOTE_WARNING not in err
    assert token not in err
