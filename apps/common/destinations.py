"""Where an assistant sends people back to, as the person's pages name it (SPEC A-7).

Design notes: docs/design.md.
"""

from __future__ import annotations

from urllib.parse import urlsplit


def shown_destination(uri: str) -> str:
    parts = urlsplit(uri)
    if parts.scheme in ("http", "https"):
        return parts.netloc
    return f"{parts.scheme}://{parts.netloc}" if parts.netloc else f"{parts.scheme}:"


def registered_destinations(redirect_uris: str) -> list[str]:
    """Every place a client's space-joined redirect URIs lead to, sorted: not only the first (SPEC A-7)."""
    return sorted({shown_destination(uri) for uri in (redirect_uris or "").split()} - {"", ":"})
