"""What a web worker does once its application is built, before it serves (docs/performance.md "Collector pauses")."""

import gc

from django.urls import get_resolver


def settle() -> None:
    """Load the URL configuration, as the first request would, then freeze everything loaded: it lives as long
    as the worker, and frozen it is left out of the collector's full passes, which otherwise walk its 100,000+
    objects (31–41 ms, on whichever request sets one off)."""
    get_resolver().url_patterns  # noqa: B018  (read for its side effect: the URL modules are imported)
    gc.freeze()
