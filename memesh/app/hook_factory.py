"""The hook side of the composition root: the outside world of one hook event (`memesh.app.hook_resources`) and its
call context. One of the factories `Resources` is made of; `memesh.app.hook_resources` imports none of them."""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self

from memesh.app.resource_core import ResourceCore

if TYPE_CHECKING:
    from memesh.app.hook_database import HookDatabase
    from memesh.app.hook_resources import HookResources
    from memesh.context import CallContext


class HookFactory(ResourceCore):
    """A hook event's resources, built on first use from the caller's environment and working folder."""

    _hooks: HookResources | None = None

    @classmethod
    def for_hook(cls, environment: Mapping[str, str], cwd: str) -> Self:
        """The resources of one hook event run for a caller whose environment and working folder are given (its own
        process's, or a warm memesh-mcp's client's)."""
        resources = cls()
        resources._hooks = resources._hook_side(environment, cwd)
        return resources

    @property
    def hooks(self) -> HookResources:
        """What the hook operations reach: the lean hook store, the whole store where an event needs it, settings,
        the project-id cache, git, transcripts and note folders (this process's environment and folder unless
        built by `for_hook`)."""
        if self._hooks is None:
            self._hooks = self._hook_side(os.environ, _working_folder())
        return self._hooks

    def _hook_side(self, environment: Mapping[str, str], cwd: str) -> HookResources:
        from memesh.app.hook_resources import HookResources

        def stored() -> Mapping[str, Any]:
            return self.settings.stored

        if not self._owned:  # a database someone else opened (a test): the hooks use it, and leave it open
            return HookResources(
                environment,
                cwd,
                open_lean=lambda: self.store,
                open_full=lambda: self.store,
                stored=stored,
                owned=False,
            )

        def open_lean() -> HookDatabase:
            from memesh.app.hook_database import open_hook_database

            store = open_hook_database(self.db_path, self.configured())
            store.use_embedder(self.write_embedder)  # in hybrid, what a hook captures is embedded with its row
            return store

        return HookResources(
            environment, cwd, open_lean=open_lean, open_full=lambda: self.open_store(hook=True), stored=stored
        )

    def hook_context(self, host: str | None, **given: Any) -> CallContext:
        """A hook event's call context: what it captures is stamped with the host that ran it (no host when that
        cannot be told), settings come from the caller's environment, and the project is its folder's."""
        hooks = self.hooks
        fields: dict[str, Any] = {
            "environment": hooks.environment,
            "project": lambda: hooks.project_of(hooks.session_folder(None)),
        }
        fields.update(given)
        return self.context(host or "", True, **fields)

    def close(self) -> None:
        """Close what was opened here, the hook event's stores with the rest (a later use opens it again)."""
        if self._hooks is not None:
            self._hooks.close()
        super().close()


def _working_folder() -> str:
    try:
        return os.getcwd()  # noqa: PTH109 (a str, as a warm server's client sends it)
    except OSError:  # removed under the process: an event that needs it fails, recorded
        return ""
