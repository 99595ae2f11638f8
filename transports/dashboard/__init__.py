"""The dashboard: one self-contained HTML page (inline script and style, no build step, no CDN), served at
GET /dashboard. It reads and writes only through the /v1 routes, so it passes the same origin boundary as any
browser request.

The page is sent with a Content-Security-Policy that allows exactly its own inline script and style (by hash) and
connections to its own origin: even a memory that somehow became markup could not run script or load anything.
"""

from __future__ import annotations

import base64
import hashlib
import re
from functools import cache
from importlib import resources

_SCRIPT = re.compile(r"<script>(.*?)</script>", re.S)
_STYLE = re.compile(r"<style>(.*?)</style>", re.S)


def _hashes(pattern: re.Pattern[str], html: str) -> str:
    return " ".join(
        f"'sha256-{base64.b64encode(hashlib.sha256(body.encode()).digest()).decode()}'"
        for body in pattern.findall(html)
    )


@cache
def page() -> tuple[bytes, str]:
    """The page's bytes and the Content-Security-Policy that goes with them."""
    html = resources.files(__package__).joinpath("index.html").read_text(encoding="utf-8")
    policy = "; ".join(
        (
            "default-src 'none'",
            f"script-src {_hashes(_SCRIPT, html)}",
            f"style-src {_hashes(_STYLE, html)}",
            "connect-src 'self'",
            "img-src 'self' data:",
            "base-uri 'none'",
            "form-action 'self'",
            "frame-ancestors 'none'",
        )
    )
    return html.encode("utf-8"), policy
