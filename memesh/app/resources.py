"""The one composition root: everything an operation reaches outside itself is built here and handed in by protocol.

A transport builds one `Resources` for its process (the CLI for its one command, a server for its lifetime, a hook
for its event), handing it the process's settings (`memesh.settings`: read once) or letting it read them on first
use, and passes it to `dispatch.run`; each registry entry's `uses` picks what its operation needs from it.
Operations never open a database, read config.json or run git themselves: they see what they are given.

`Resources` is made of small factories, each in its own module and each built on first use, so a command that needs
no database opens none, and nothing heavy is imported when this module is:

- `resource_core.ResourceCore`: the settings, the database (a connection, or one per worker thread) and the call
  context;
- `install_factory.InstallFactory`: config.json, the update cache, the install, the hook records and the hosts' files
  (doctor, setup, feedback);
- `owner_factory.OwnerFactory`: any database a person names, the database file, files and folders named on the
  command line, git history, transcripts, progress and the wake-ups of waiting polls;
- `recall_factory.RecallFactory`: the recall mode in effect and hybrid's semantic signal;
- `hook_factory.HookFactory`: the outside world of one hook event (`hook_resources.HookResources`).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from memesh.app.hook_factory import HookFactory
from memesh.app.install_factory import InstallFactory
from memesh.app.owner_factory import OwnerFactory
from memesh.app.recall_factory import RecallFactory
from memesh.app.resource_core import Store, current_project, local_router

if TYPE_CHECKING:
    from memesh.ops.settings import ConfigFile
    from memesh.settings import Settings
    from memesh.store.errors import StoreError

__all__ = [
    "HostRegistration",
    "Resources",
    "Store",
    "claude_principal",
    "current_project",
    "host_registration",
    "local_router",
    "package_index_lookup",
    "router_answers",
    "the_config",
    "the_store",
    "themselves",
]


class Resources(InstallFactory, OwnerFactory, RecallFactory, HookFactory):
    """The outside world of one process, built on first use (see the factories above)."""

    @classmethod
    def for_the_owner(cls, db_path: Path | None = None, *, settings: Settings | None = None) -> Resources:
        """The resources of a command the owner typed (with its `--database` in `settings`): a database that will not
        open is operation.failed naming the file (the person at this machine is told which one), so --json prints a
        failure body for it too."""

        def naming_the_file(exc: StoreError) -> StoreError:
            from memesh.errors import ErrorCode, MemeshError
            from memesh.store.errors import StoreError

            if exc.error.code is ErrorCode.STORE_UNAVAILABLE:  # its code and reason kept: a script branches on them
                message = f"memesh cannot open its database: {exc.error.message}"
                return StoreError(str(exc), MemeshError(exc.error.code, message, exc.error.data))
            return StoreError(str(exc), MemeshError.failed(f"memesh cannot open its database: {exc}"))

        return cls(db_path=db_path, on_open_failure=naming_the_file, settings=settings)


def the_store(resources: Resources) -> Store:
    """What most operations use: the database alone."""
    return resources.store


# --- the local router: what its socket surface (transports/router) and the MCP channel reach outside ---


class HostRegistration(Protocol):
    """One session's registration on the router, as the host integration holding it sees it
    (memesh.adapters.router_host.HostAdapter)."""

    generation: int | None

    async def connect(self) -> int: ...
    async def activate(self) -> None: ...
    async def host_ack(self, delivery_id: str, detail: str | None = None) -> None: ...
    async def close(self) -> None: ...


def host_registration(
    *,
    session_id: str,
    principal_id: str,
    project: str,
    host_kind: str,
    accept: Callable[[dict[str, Any]], Awaitable[bool | str]],
    path: Path | None = None,
) -> HostRegistration:
    """A registration of this session on the router at `path` (default: router.sock in the MeMesh folder), made
    when connected; `accept(envelope)` answers each delivery: True when the host took it in, else why not."""
    from memesh.adapters.router_host import HostAdapter

    return HostAdapter(
        session_id=session_id, principal_id=principal_id, project=project, host_kind=host_kind, accept=accept, path=path
    )


def router_answers(path: Path) -> bool:
    """Whether a router answers on the socket at `path` (a second router must not start beside it)."""
    from memesh.adapters.router_client import RouterClient

    return RouterClient(path).ping()


def claude_principal() -> str:
    """The principal the owner-private hosts/claude.json names for Claude Code sessions; "" when none is named."""
    from memesh.adapters.hosts_file import claude_principal as from_hosts_file

    return from_hosts_file()


def themselves(resources: Resources) -> Resources:
    """What an operation uses that reaches more than the database: the resources, seen through its protocol."""
    return resources


def the_config(resources: Resources) -> ConfigFile:
    """What the settings operations use: config.json alone."""
    return resources.config_file


def package_index_lookup() -> Callable[[], str | None] | None:
    """The real package-index lookup for a server to hand its resources, or None when MEMESH_UPDATE_CHECK=0 turns
    update checks off."""
    from memesh.adapters.update_check import default_fetcher

    return default_fetcher()
