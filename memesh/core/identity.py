"""Project identity: `<readable label>~<32 lowercase hex>`, hashing a password-free remote locator or a real path.

Two repositories with the same folder name must not share memories, so the id hashes where the code lives: the
`origin` remote when there is one (GitHub's HTTPS and SSH spellings converge on `github.com/<owner>/<repo>`; any
other SSH remote keeps its login, absolute-versus-home-relative path and a literal `.git`), otherwise the real path
of the working tree. Credentials in a remote URL never reach the locator.
"""

from __future__ import annotations

import posixpath
import re
import unicodedata

from memesh.core.lazy_pattern import LazyPattern

LABEL_MAX = 167
HASH_HEX = 32
_URL = LazyPattern(r"^[A-Za-z][A-Za-z0-9+.-]*://")
_SCP = LazyPattern(r"^(?:([^@]+)@)?(\[[^\]]+\]|[^:/]+):(.+)$")
_WINDOWS_DRIVE = LazyPattern(r"^[A-Za-z]:[\\/]")
_DEFAULT_PORTS = {"http": "80", "https": "443", "ssh": "22", "git+ssh": "22"}
_SSH = ("ssh", "git+ssh")
_ID_SUFFIX = LazyPattern(r"~[0-9a-f]{32}$")
# Characters the WHATWG URL path serializer leaves as they are.
_PATH_SAFE = "/%:@!$&'()*+,;=-._~"


def project_identity(label: str, locator: str) -> str:
    """`<label>~<first 32 hex of sha256(locator)>`, the label NFC-normalised and at most 167 characters."""
    shown = unicodedata.normalize("NFC", label)[:LABEL_MAX] or "project"
    return f"{shown}~{_sha256_hex(locator.encode())[:HASH_HEX]}"


def _sha256_hex(data: bytes) -> str:
    """SHA-256 from the interpreter's own implementation when it has one: the same digest as `hashlib.sha256`, which
    loads OpenSSL first (~10 M instructions, in every CLI briefing) for one short hash."""
    try:
        from _sha256 import sha256  # type: ignore[import-not-found,unused-ignore]  # CPython 3.11
    except ImportError:
        try:
            from _sha2 import sha256  # type: ignore[import-not-found,no-redef,unused-ignore]  # CPython 3.12 and later
        except ImportError:
            from hashlib import sha256  # type: ignore[assignment,unused-ignore]
    digest: str = sha256(data).hexdigest()
    return digest


def project_label(project_id: str) -> str:
    """The readable part of a project id (the whole id when it has no hash suffix)."""
    return _ID_SUFFIX.sub("", project_id) or project_id


def canonical_remote_locator(remote: str) -> str | None:
    """The remote as a credential-free locator, or None when it is a local path or unreadable."""
    remote = remote.strip()
    if (
        not remote
        or remote.startswith(("/", "\\"))
        or _WINDOWS_DRIVE.match(remote)
        or remote.lower().startswith("file:")
    ):
        return None
    if _URL.match(remote):
        from urllib.parse import quote, urlsplit  # here: urllib.parse loads ipaddress and more

        parts = urlsplit(remote)
        scheme = parts.scheme.lower()
        try:
            host = (parts.hostname or "").lower()
            port = str(parts.port) if parts.port is not None else ""
        except ValueError:
            return None
        if not host:
            return None
        if ":" in host:
            host = f"[{host}]"
        if port == _DEFAULT_PORTS.get(scheme):
            port = ""
        user = parts.username or ""
        path = quote(parts.path, safe=_PATH_SAFE)
        transport = "ssh-absolute" if scheme in _SSH else scheme
    else:
        scp = _SCP.match(remote)
        if not scp:
            return None
        user, host, path = scp.group(1) or "", scp.group(2).lower(), scp.group(3)
        port = ""
        transport = "ssh-absolute" if path.startswith("/") else "ssh-relative"
    path = path.strip("/")
    if not path:
        return None
    is_ssh = transport.startswith("ssh-")
    if host == "github.com" and not port and (transport == "https" or (is_ssh and user == "git")):
        return "github.com/" + re.sub(r"\.git$", "", path, flags=re.IGNORECASE)
    login = f"{user}@" if is_ssh and user else ""
    return f"{transport}://{login}{host}{f':{port}' if port else ''}/{path}"


def identity_from_remote(remote: str) -> str | None:
    """The project id for a repository with this `origin` remote, or None when the remote cannot be used."""
    locator = canonical_remote_locator(remote)
    if locator is None:
        return None
    label = re.sub(r"\.git$", "", posixpath.basename(locator), flags=re.IGNORECASE)
    return project_identity(label, locator)


def identity_from_path(real_path: str) -> str:
    """The project id for a working tree (or folder) without a usable remote."""
    return project_identity(posixpath.basename(real_path.rstrip("/")) or real_path, real_path)
