"""How a hook gets the database: the lean store of what hooks read and write (`memesh.store.sqlite_hooks`), opened,
migrated and owner-only like every other, or a StoreError saying why not.

Transports reach the store only through `memesh.app`; this module keeps the hooks' start-up free of the mixins
they never call, which `memesh.app.database` (the whole store) imports.
"""

from __future__ import annotations

from memesh.store.errors import StoreError
from memesh.store.open import HookDatabase, open_hook_store

__all__ = ["HookDatabase", "StoreError", "open_hook_database"]

open_hook_database = open_hook_store
