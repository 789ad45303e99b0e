"""What the search projection indexes for the declared types (SPEC R-1, R-6).

Design notes: docs/design.md.
"""

from __future__ import annotations

import logging
from functools import partial

from apps.retrieval.layer import pointers
from apps.retrieval.layer.errors import LayerError
from apps.retrieval.layer.registry import Resource, registry

log = logging.getLogger(__name__)
TITLE_WEIGHT = 2.0  # a hit in the title counts twice a hit elsewhere


def searchable_text(resource: Resource, pattern: str, instance) -> str:
    """The text at ``pattern`` of a record, all its strings joined by newlines."""
    from apps.retrieval.layer.searching import texts_at

    name = pointers.split(pattern)[0]
    try:
        doc = resource.adapter.document(instance, frozenset({name}))
    except LayerError as exc:
        # A transcript whose body is missing indexes no body text; reading it
        # still answers the explicit error (SPEC R-12).
        log.warning("not indexing %s of %s:%s: %s", pattern, resource.type, instance.pk, exc.code)
        return ""
    return "\n".join(text for _, text in texts_at(doc, pattern))


def register_searchable() -> list[str]:
    """Register the declared types with the projection; returns the types newly registered."""
    from apps.retrieval import indexing

    added = []
    for resource in registry.all():
        declaration, adapter = resource.declaration, resource.adapter
        if not declaration.searchable or adapter.model is None:
            continue
        try:
            indexing.indexed_type(resource.type)
            continue
        except KeyError:
            pass
        fields = tuple(
            indexing.SearchableField(
                path,
                weight=TITLE_WEIGHT if path == declaration.title else 1.0,
                extract=partial(searchable_text, resource, path),
            )
            for path in declaration.searchable
        )
        indexing.register(indexing.IndexedType(
            resource_type=resource.type, model=adapter.model, fields=fields, is_indexed=adapter.is_current,
        ))
        added.append(resource.type)
    return added
