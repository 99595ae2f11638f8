"""`memesh serve`: the bind rules, the remote token, TLS, then the HTTP API under granian.

Loopback is the default and needs no auth. A non-loopback bind must be opted into, and then requires a bearer token
that exists before the socket listens. With --tls-cert and --tls-key granian serves HTTPS (TLS 1.3, its default); the
pair is loaded here first, so a file that cannot be read or used is refused before anything listens. A remote
listener without TLS is allowed, as before, with a warning: its bearer crosses the network in clear unless a TLS
proxy fronts it. Heavy imports (granian, the app) happen only once those checks pass.
"""

from __future__ import annotations

import errno
import os
import socket
import sys
from functools import partial
from pathlib import Path

from memesh.transports.http.boundary import is_loopback
from memesh.transports.http.token import MIN_TOKEN_CHARS, TOKEN_ENV, Token, TokenError, provision

TYPE_CHECKING = False
if TYPE_CHECKING:
    from memesh.settings import Settings

ALLOW_REMOTE_ENV = "MEMESH_HTTP_ALLOW_REMOTE"
TRUTHY = frozenset({"1", "true", "yes"})


def _say(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


MAX_PORT = 65535
PLAIN_REMOTE_WARNING = (
    "MeMesh HTTP: warning: this remote listener speaks plain HTTP, so the bearer token and every memory cross the "
    "network in clear; serve HTTPS with --tls-cert FILE --tls-key FILE, or put a TLS proxy in front."
)


def remote_opted_in(allow_remote: bool) -> bool:
    """--allow-remote, or MEMESH_HTTP_ALLOW_REMOTE set to 1/true/yes (any case)."""
    return allow_remote or os.environ.get(ALLOW_REMOTE_ENV, "").strip().lower() in TRUTHY


def _announce(token: Token) -> None:
    if token.created:
        _say(
            "MeMesh HTTP: bearer token generated for remote access.\n"
            f"  Token file: {token.source} (mode 600)\n"
            "  Use header: Authorization: Bearer <token>\n"
            f"  Rotate by deleting {token.source} and restarting.\n"
            f"  Override: set {TOKEN_ENV}."
        )
    else:
        _say(f"MeMesh HTTP: remote bind requires Authorization: Bearer <token>. Token loaded from {token.source}.")


def url_host(host: str) -> str:
    """The host as it goes in a URL: an IPv6 literal in brackets."""
    return f"[{host}]" if ":" in host and not host.startswith("[") else host


def bind(host: str, port: int) -> socket.socket:
    """A listening TCP socket on host:port (first address the name resolves to); OSError when that fails."""
    bare = host[1:-1] if host.startswith("[") and host.endswith("]") else host
    family, kind, proto, _, address = socket.getaddrinfo(
        bare, port, socket.AF_UNSPEC, socket.SOCK_STREAM, 0, socket.AI_PASSIVE
    )[0]
    listener = socket.socket(family, kind, proto)
    try:
        # REUSEADDR only lets us rebind past TIME_WAIT; without REUSEPORT a live listener still makes bind fail.
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(address)
        listener.listen(1024)
    except OSError:
        listener.close()
        raise
    return listener


def tls_pair(cert: str | None, key: str | None) -> tuple[Path, Path] | str | None:
    """The certificate and key to serve HTTPS with, checked by loading them as the server will; None for plain
    HTTP; the reason to refuse, for this machine's operator, when only one is given or they cannot be used."""
    if cert is None and key is None:
        return None
    if cert is None or key is None:
        return "--tls-cert and --tls-key go together: give both (HTTPS) or neither (plain HTTP)."
    import ssl

    def no_passphrase(*_: object) -> str:
        # An encrypted key would make OpenSSL prompt on the terminal, and granian's worker cannot answer.
        raise ValueError("the key is encrypted")

    pair = Path(cert).expanduser(), Path(key).expanduser()
    try:
        ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER).load_cert_chain(pair[0], pair[1], password=no_passphrase)
    except OSError as exc:
        if isinstance(exc, ssl.SSLError):
            return (
                "the TLS certificate and key cannot be used together (each must be PEM, the key not encrypted, "
                "and the key the certificate's)."
            )
        return f"cannot read the TLS certificate or key: {exc.strerror or exc}."
    except ValueError:
        return "the TLS key is encrypted: give a key without a passphrase (readable by this user only)."
    return pair


def serving_app(*, remote: bool, token: str | None, settings: Settings | None = None) -> object:
    """The app as `memesh serve` runs it (built in granian's worker, forked with the command's `settings`): with
    everything its requests would import or read on first use already loaded, so a storm that takes every descriptor
    cannot fail one (issue 35)."""
    from memesh.transports.http.app import create_app, preload

    app = create_app(remote=remote, token=token, settings=settings)
    preload(app)
    return app


def serve(
    host: str = "127.0.0.1",
    port: int = 3737,
    allow_remote: bool = False,
    tls_cert: str | None = None,
    tls_key: str | None = None,
    *,
    settings: Settings | None = None,
) -> int:
    """Serve the HTTP API on host:port until SIGINT/SIGTERM; returns the process exit code (1 if it cannot start).
    `settings`: the command's (with its --database), handed to the app; None: the app reads them on first use."""
    if not 0 <= port <= MAX_PORT:
        _say(f"MeMesh: cannot start — {port} is not a TCP port (0 to {MAX_PORT}).")
        return 1
    tls = tls_pair(tls_cert, tls_key)
    if isinstance(tls, str):
        _say(f"MeMesh: cannot start — {tls}")
        return 1
    remote = not is_loopback(host)
    if remote and not remote_opted_in(allow_remote):
        _say(
            f'MeMesh: Refusing to bind MeMesh HTTP server to non-loopback host "{host}" without explicit remote '
            "access opt-in. Use --allow-remote or MEMESH_HTTP_ALLOW_REMOTE=true."
        )
        return 1
    if remote_opted_in(allow_remote) and not remote:
        flag = "--allow-remote" if allow_remote else f"{ALLOW_REMOTE_ENV}=true"
        _say(
            f'MeMesh HTTP: {flag} has no effect on loopback host "{host}" — the server stays local and no '
            "bearer token is generated. Add --host <address> to bind somewhere reachable."
        )
    token: Token | None = None
    if remote:
        configured = os.environ.get(TOKEN_ENV, "").strip()
        if configured and len(configured) < MIN_TOKEN_CHARS:
            _say(f"MeMesh HTTP: {TOKEN_ENV} is shorter than 16 characters; ignoring it.")
        try:
            token = provision()
        except TokenError as exc:
            _say(f"MeMesh: {exc}")
            return 1
        _announce(token)
        if tls is None:
            _say(PLAIN_REMOTE_WARNING)
    try:
        listener = bind(host, port)
    except OSError as exc:
        if exc.errno == errno.EADDRINUSE:
            _say(f"MeMesh: cannot start — {host}:{port} is already in use.")
            _say("MeMesh: stop whatever is listening there, or pick another port with --port <n>.")
        else:
            _say(f"MeMesh: cannot start — cannot listen on {host}:{port}: {exc.strerror or exc}")
        return 1

    from memesh.transports.http import server

    scheme = "https" if tls is not None else "http"
    base = f"{scheme}://{url_host(host)}:{listener.getsockname()[1]}"
    print(f"MeMesh HTTP server running at {base}", flush=True)
    print(f"MeMesh dashboard: {base}/dashboard", flush=True)
    app_factory = partial(serving_app, remote=remote, token=token.value if token else None, settings=settings)
    return server.run(listener, app_factory, tls=tls)
