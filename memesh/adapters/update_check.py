"""The update check's contact with the world: the package index, the cache file, and how this copy was installed.

The check never blocks a tool call: the MCP server runs it once on a background thread (`UpdateNotifier`), bounded
by a timeout, and a call only picks up the notice if it is ready. `MEMESH_UPDATE_CHECK=0` turns every lookup off
(the answer is then the cached state, or the "unavailable" shape).
"""

from __future__ import annotations

import json
import os
import sys
import threading
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memesh import paths
from memesh.core.update import DISTRIBUTION, Channel, CheckFailed, CheckRecord

if TYPE_CHECKING:
    from importlib import metadata

CACHE_FILE = "update-check.json"
INDEX_URL = f"https://pypi.org/pypi/{DISTRIBUTION}/json"
TIMEOUT_S = 3.0
MAX_BYTES = 4 << 20  # the JSON API answer for a project with a long history is a few hundred KB

Fetcher = Callable[[], str | None]


def checks_enabled() -> bool:
    """False when MEMESH_UPDATE_CHECK is 0/false/off (no lookup leaves this machine)."""
    return os.environ.get("MEMESH_UPDATE_CHECK", "").strip().lower() not in {"0", "false", "off", "no"}


def fetch_latest(timeout: float = TIMEOUT_S) -> str | None:
    """The newest release of this distribution on PyPI (its JSON API's `info.version`); None when the index does
    not know the distribution (404: not published there, which is an answer, not a failed check); CheckFailed
    otherwise."""
    # Imported here: urllib.request (with http.client, ssl and email) is most of a server's update machinery, and
    # memesh-mcp makes its notifier while it answers its first call; the lookup itself runs on a thread of its own.
    import urllib.error
    import urllib.request
    from http import HTTPStatus

    request = urllib.request.Request(INDEX_URL, headers={"Accept": "application/json", "User-Agent": "memesh"})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:  # a fixed https URL, never user input
            body = response.read(MAX_BYTES + 1)
    except urllib.error.HTTPError as exc:
        if exc.code == HTTPStatus.NOT_FOUND:
            return None
        raise CheckFailed(f"package index unavailable (HTTP {exc.code})") from exc
    except OSError as exc:  # URLError, timeouts and refused connections are all OSErrors
        raise CheckFailed(f"package index unavailable ({type(exc).__name__})") from exc
    if len(body) > MAX_BYTES:
        raise CheckFailed("package index answer too large")
    try:
        version = json.loads(body)["info"]["version"]
    except (ValueError, KeyError, TypeError) as exc:
        raise CheckFailed("package index answer not understood") from exc
    if not isinstance(version, str) or not version.strip():
        raise CheckFailed("package index answer has no version")
    return version.strip()[:64]


def _parse_time(value: Any) -> datetime | None:
    if not isinstance(value, str):
        return None
    try:
        return datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None


def _text(value: Any) -> str | None:
    return value[:200] if isinstance(value, str) and value else None


class CacheFile:
    """The last check's outcome in `<memesh dir>/update-check.json`; an unreadable file reads as no record."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path or paths.memesh_dir() / CACHE_FILE

    def read(self) -> CheckRecord:
        try:
            raw = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return CheckRecord()
        if not isinstance(raw, dict):
            return CheckRecord()
        return CheckRecord(
            latest_version=_text(raw.get("latestVersion")),
            last_successful_check_at=_parse_time(raw.get("lastSuccessfulCheckAt")),
            last_attempt_at=_parse_time(raw.get("lastAttemptAt")),
            last_error=_text(raw.get("lastError")),
            last_seen_version=_text(raw.get("lastSeenVersion")),
        )

    def write(self, record: CheckRecord) -> None:
        """Replace the file atomically (0600); a folder that cannot be written is not an error worth a failed call."""
        values = {
            "latestVersion": record.latest_version,
            "lastSuccessfulCheckAt": record.last_successful_check_at.isoformat()
            if record.last_successful_check_at
            else None,
            "lastAttemptAt": record.last_attempt_at.isoformat() if record.last_attempt_at else None,
            "lastError": record.last_error,
            "lastSeenVersion": record.last_seen_version,
        }
        try:
            paths.ensure_private_dir(self.path.parent)
            temporary = self.path.with_name(f".{CACHE_FILE}.{os.getpid()}.{threading.get_ident()}.tmp")
            fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                json.dump(values, handle)
            temporary.replace(self.path)
        except OSError:
            pass


def _distribution() -> metadata.Distribution | None:
    from importlib import metadata

    try:
        return metadata.distribution(DISTRIBUTION)
    except metadata.PackageNotFoundError:
        return None


def install_channel() -> Channel:
    """How this copy was installed: an editable checkout, pipx, a virtualenv, the user site, or the system."""
    dist = _distribution()
    if dist is None:
        return "unknown"
    direct = dist.read_text("direct_url.json")
    if direct:
        try:
            if json.loads(direct).get("dir_info", {}).get("editable"):
                return "source-checkout"
        except (ValueError, AttributeError):
            pass
    prefix = sys.prefix.replace("\\", "/")
    if "/pipx/venvs/" in prefix:
        return "pipx"
    if sys.prefix != sys.base_prefix:
        return "pip-venv"
    import site

    location = str(dist.locate_file(""))
    user_site = site.getusersitepackages() if hasattr(site, "getusersitepackages") else ""
    if user_site and location.startswith(user_site):
        return "pip-user"
    return "pip-system"


def issue_tracker() -> str | None:
    """The issue tracker this distribution declares (`[project.urls] Issues` in pyproject.toml, a `Project-URL:
    Issues, <url>` line in its metadata), or None when it declares none."""
    dist = _distribution()
    if dist is None:
        return None
    for entry in dist.metadata.get_all("Project-URL") or []:
        label, _, url = str(entry).partition(",")
        if label.strip().lower() in {"issues", "bug tracker", "tracker"} and url.strip().startswith("https://"):
            return url.strip()
    return None


def default_fetcher() -> Fetcher | None:
    """The real lookup, or None when checks are turned off."""
    return fetch_latest if checks_enabled() else None


class UpdateNotifier:
    """The once-per-process update notice of an MCP server: computed on a background thread, handed out once.

    `take()` never waits: a tool call made before the check finished simply carries no notice, and a later call
    that finds it ready carries it instead.
    """

    def __init__(self, compute: Callable[[], str | None]) -> None:
        self._compute = compute
        self._ready = threading.Event()
        self._text: str | None = None
        self._taken = False
        self._lock = threading.Lock()

    def start(self) -> None:
        threading.Thread(target=self._run, name="memesh-update-check", daemon=True).start()

    def _run(self) -> None:
        try:
            self._text = self._compute()
        except Exception:  # a broken check must never reach a tool call
            self._text = None
        finally:
            self._ready.set()

    def wait(self, timeout: float) -> bool:
        """For tests and shutdown: whether the check finished within `timeout` seconds."""
        return self._ready.wait(timeout)

    def take(self) -> str | None:
        """The notice, the first time it is ready and asked for; None before and after."""
        if not self._ready.is_set():
            return None
        with self._lock:
            if self._taken:
                return None
            self._taken = True
            return self._text


class StaleProcessCheck:
    """Notices, once, that a newer MeMesh was installed on disk while this server kept running the old code.

    Reading the installed version costs a file read, so it is done at most every `every` seconds.
    """

    def __init__(
        self,
        started_on: str,
        installed: Callable[[], str | None] | None = None,
        *,
        every: float = 60.0,
        clock: Callable[[], float] | None = None,
    ) -> None:
        import time

        self._started_on = started_on
        self._installed = installed or _installed_version
        self._every = every
        self._clock = clock or time.monotonic
        self._next = 0.0
        self._said = False

    def notice(self) -> str | None:
        """The stale-process line the first time the installed version differs; None otherwise."""
        if self._said:
            return None
        now = self._clock()
        if now < self._next:
            return None
        self._next = now + self._every
        installed = self._installed()
        if installed is None or installed == self._started_on:
            return None
        self._said = True
        return (
            f"[memesh update] This session started on v{self._started_on} but v{installed} is now installed on "
            "disk: restart the MCP server (or the agent) to use it."
        )


def _installed_version() -> str | None:
    dist = _distribution()
    return dist.version if dist is not None else None
