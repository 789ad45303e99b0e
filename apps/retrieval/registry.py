"""The one registry of resource types: each a (declaration, adapter) pair (SPEC R-1).

The layer lists, searches and reads through it; the search projection indexes what it says is searchable
(``indexed_type``), derived from the same declarations — nothing is registered twice.

Design notes: docs/design.md.
"""

from __future__ import annotations

import importlib
import pkgutil
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING

from django.db import models

from apps.retrieval.indexing import IndexedType, SearchableField

if TYPE_CHECKING:  # the layer's types, named for annotations only: the layer sits above this module
    from apps.retrieval.layer.adapters import Adapter
    from apps.retrieval.layer.declarations import Declaration

TITLE_WEIGHT = 2.0  # a hit in the title counts twice a hit elsewhere


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
        self._indexed: tuple[int, dict[str, IndexedType]] | None = None
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
            raise ValueError(f"resource type {declaration.type!r} is already registered")
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

    def indexed(self) -> dict[str, IndexedType]:
        """What the search projection indexes of each type with searchable fields and a model (SPEC R-6)."""
        self._load()
        known = self._indexed
        if known is None or known[0] != self.generation:
            known = self._indexed = (self.generation, {
                resource.type: _indexed(resource) for resource in self.all()
                if resource.declaration.searchable and resource.adapter.model is not None})
        return known[1]


def _indexed(resource: Resource) -> IndexedType:
    declaration, adapter = resource.declaration, resource.adapter
    model: type[models.Model] = adapter.model  # type: ignore[assignment]  # not None: ``Registry.indexed``
    return IndexedType(
        resource_type=resource.type, model=model, is_indexed=adapter.is_current,
        fields=tuple(SearchableField(path, weight=TITLE_WEIGHT if path == declaration.title else 1.0,
                                     extract=partial(adapter.searchable_text, path),
                                     name=declaration.by_path[path].name)
                     for path in declaration.searchable),
    )


registry = Registry("apps.retrieval.layer.resources")


def indexed_type(resource_type: str) -> IndexedType:
    """The projection's view of a type; ``KeyError`` when it indexes none of its records."""
    return registry.indexed()[resource_type]


def name_fields() -> frozenset[tuple[str, str]]:
    """(resource type, path) of each searchable field of names (``SearchableField.name``)."""
    return frozenset((t.resource_type, f.path) for t in registry.indexed().values() for f in t.fields if f.name)


def indexed_types() -> list[IndexedType]:
    return [indexed for _, indexed in sorted(registry.indexed().items())]


def indexed_type_for(model: type[models.Model]) -> IndexedType | None:
    for indexed in registry.indexed().values():
        if indexed.model is model:
            return indexed
    return None
