"""How a transport gets the database: opened, migrated and owner-only, or a StoreError saying why not.

Transports reach the store only through here and through `dispatch`, never by importing the store package.
"""

from __future__ import annotations

from memesh.store.errors import StoreError
from memesh.store.open import Store, described, open_store

__all__ = ["Database", "StoreError", "described", "open_database"]

Database = Store
open_database = open_store
