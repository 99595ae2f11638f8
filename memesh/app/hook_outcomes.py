"""How the hook transport records a run's outcome (`memesh.adapters.hook_outcomes`: hook-outcomes.jsonl beside the
database), reached through the application layer as transports reach every adapter. The runner imports this on
every event, so it adds nothing to the adapter's own imports."""

from __future__ import annotations

from memesh.adapters.hook_outcomes import record

__all__ = ["record"]
