"""Who wrote a memory, as provenance: `metadata.provenance.source_host` is the client's self-declared name, cleaned."""

from __future__ import annotations

HOST_MAX = 64


def clean_host(name: str | None, default: str) -> str:
    """A client's self-declared name as provenance: cleaned as any stored label (controls out, credentials
    redacted, one line), then at most 64 characters; `default` when nothing is left."""
    from memesh.core.clean import clean_label  # the secret patterns: loaded by the first call, not by the import

    cleaned = clean_label(name or "")[:HOST_MAX].strip()
    return cleaned or default
