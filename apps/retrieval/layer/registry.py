"""Which resource types exist: the one registry (``apps.retrieval.registry``), as the layer names it (SPEC R-1)."""

from __future__ import annotations

from apps.retrieval.registry import Registry, Resource, registry

__all__ = ["Registry", "Resource", "registry"]
