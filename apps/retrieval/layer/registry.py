"""Which resource types exist: each a (declaration, adapter) pair (SPEC R-1).

Design notes: docs/design.md.
"""

from __future__ import annotations

import importlib
import pkgutil
from dataclasses import dataclass

from apps.retrieval.layer.adapters import Adapter
from apps.retrieval.layer.declarations import Declaration, DeclarationError


@dataclass(frozen=True)
class Resource:
    declaration: Declaration
    adapter: Adapter

    @property
    def type(self) -> str:
        return self.declaration.type


class Registry:
    def __init__(self, package: str | None = None) -> None:
        self._package = package
        self._loaded = package is None
        self._resources: dict[str, Resource] = {}
        self.generation = 0  # changes whenever a type comes or goes (keys what is derived from the set)

    def _load(self) -> None:
        if self._loaded:
            return
        self._loaded = True
        package = importlib.import_module(self._package)  # type: ignore[arg-type]  # not None when not _loaded
        for info in sorted(pkgutil.iter_modules(package.__path__), key=lambda m: m.name):
            importlib.import_module(f"{self._package}.{info.name}")

    def register(self, declaration: Declaration, adapter: Adapter) -> Resource:
        if declaration.type in self._resources:
            raise DeclarationError(f"resource type {declaration.type!r} is already registered")
        adapter.declaration = declaration
        resource = Resource(declaration, adapter)
        self._resources[declaration.type] = resource
        self.generation += 1
        return resource

    def unregister(self, resource_type: str) -> None:
        self._resources.pop(resource_type, None)
        self.generation += 1

    def get(self, resource_type: str) -> Resource | None:
        self._load()
        return self._resources.get(resource_type)

    def all(self) -> list[Resource]:
        self._load()
        return [self._resources[name] for name in sorted(self._resources)]


registry = Registry("apps.retrieval.layer.resources")
