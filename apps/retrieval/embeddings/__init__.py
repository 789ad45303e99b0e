"""Text → vector, behind one interface a deployment chooses by setting (SPEC S-4).

Design notes: docs/design.md.
"""

from __future__ import annotations

import threading

from django.conf import settings
from django.utils.module_loading import import_string

from apps.retrieval.embeddings.base import Embedder, EmbeddingUnavailable

_lock = threading.Lock()
_built: dict[tuple, Embedder] = {}


def _key(config: dict) -> tuple:
    return tuple(sorted((k, str(v)) for k, v in config.items()))


def get_embedder() -> Embedder | None:
    """The configured embedder (one per process and configuration), or None when meaning is off."""
    config = dict(getattr(settings, "SEARCH_EMBEDDINGS", None) or {})
    backend = config.pop("BACKEND", None)
    if not backend:
        return None
    key = (backend, _key(config))
    embedder = _built.get(key)
    if embedder is None:
        with _lock:
            embedder = _built.get(key)
            if embedder is None:
                options = {name.lower(): value for name, value in config.items() if name not in ("INLINE",)}
                embedder = _built[key] = import_string(backend)(**options)
    return embedder


def vectors_inline() -> bool:
    """Whether a write embeds its fields in its own transaction (the local default) or leaves it to a task."""
    return bool((getattr(settings, "SEARCH_EMBEDDINGS", None) or {}).get("INLINE", True))


__all__ = ["Embedder", "EmbeddingUnavailable", "get_embedder", "vectors_inline"]
