"""Adapters: how the layer reaches the records of one declared type.

Design notes: docs/design.md.
"""

from __future__ import annotations

import hashlib
import logging
from collections import namedtuple
from datetime import datetime
from functools import lru_cache
from operator import itemgetter
from typing import Any

from django.db import models, router
from django.db.models import F, Prefetch, Value, prefetch_related_objects
from django.db.models.constants import LOOKUP_SEP

from apps.common import statements
from apps.retrieval.layer import pointers, values
from apps.retrieval.layer.declarations import Declaration
from apps.retrieval.layer.errors import LayerError

log = logging.getLogger(__name__)


class Adapter:
    """The hooks the layer calls. ``declaration`` is set when the pair is registered."""

    declaration: Declaration
    model: type[models.Model] | None = None

    def records(self, user_id: int) -> models.QuerySet:
        """Every record of this type ``user_id`` owns, current or not (a plain queryset)."""
        raise NotImplementedError

    def with_related(self, queryset: models.QuerySet) -> models.QuerySet:
        """``queryset`` prepared for ``document`` (joins, prefetches)."""
        return queryset

    def current(self, queryset: models.QuerySet) -> models.QuerySet:
        """Only the records that currently exist for readers (SPEC R-6: not deleted, …)."""
        raise NotImplementedError

    def searchable_records(self, user_id: int) -> models.QuerySet | tuple[str, list]:
        """The current records a search may return: a queryset, or the SQL selecting their ids."""
        return self.current(self.records(user_id))

    def load(self, user_id: int, record_id: int):
        """The record ``record_id`` if ``user_id`` owns it (current or not), prepared for ``document``; else None."""
        return self.with_related(self.records(user_id)).filter(pk=record_id).first()

    def candidates(self, user_id: int, record_ids: list[int], names: frozenset[str]) -> list:
        """The records among ``record_ids`` that ``user_id`` owns, current or not, for ranking (``is_current``,
        ``status_boost``, ``recency`` read them) and, through ``record``, for ``document``.

        ``names``: the top-level fields ``document`` will be asked for; others may be left unloaded.
        """
        return list(self.records(user_id).filter(pk__in=record_ids))

    def record(self, candidate):
        """The record ``document`` reads, of one of ``candidates``."""
        return candidate

    def is_current(self, instance) -> bool:
        raise NotImplementedError

    def document(self, instance, names: frozenset[str] | None = None) -> dict:
        """The record as a JSON document shaped like the declaration (it may hold more).

        ``names``: the top-level fields needed (``None``: all); costly others are never computed.
        """
        raise NotImplementedError

    def source_version(self, instance) -> str:
        """Changes whenever what ``document`` answers changes (SPEC R-10)."""
        raise NotImplementedError

    def searchable_text(self, pattern: str, instance) -> str:
        """The text the search projection indexes at ``pattern``: all its strings, joined by newlines (R-6)."""
        try:
            doc = self.document(instance, frozenset({pointers.split(pattern)[0]}))
        except LayerError as exc:
            # A transcript whose body is missing indexes no body text; reading it
            # still answers the explicit error (SPEC R-12).
            log.warning("not indexing %s of %s:%s: %s", pattern, self.declaration.type, instance.pk, exc.code)
            return ""
        return "\n".join(text for _, text in pointers.texts_at(doc, pattern))

    def status_boost(self, instance) -> float:
        """Ranking by status (SPEC R-8): positive lifts, negative sinks. 0 by default."""
        return 0.0

    def recency(self, instance) -> datetime:
        raise NotImplementedError

    def order_field(self, path: str) -> str:
        """The model field behind the declaration's ``order`` path."""
        raise NotImplementedError


class ModelAdapter(Adapter):
    """An owned model with ``owner``, ``updated_at`` and (optionally) ``deleted_at``.

    ``document`` reads each field from the attribute of its name, or from ``field_<name>(instance)``.
    """

    model: type[models.Model]  # every model adapter names its model
    select_related: tuple[str, ...] = ()
    prefetch_related: tuple[str, ...] = ()

    def records(self, user_id: int) -> models.QuerySet:
        return self.model._default_manager.filter(owner_id=user_id)

    def with_related(self, qs: models.QuerySet) -> models.QuerySet:
        if self.select_related:
            qs = qs.select_related(*self.select_related)
        if self.prefetch_related:
            qs = qs.prefetch_related(*self.prefetch_related)
        return qs

    def current(self, queryset):
        return queryset.filter(deleted_at__isnull=True)

    def load(self, user_id: int, record_id: int):
        """One statement compiled once per type (``statements``); the queryset when it cannot be."""
        if not 0 < record_id < 2**63:  # no row has it (and no database could bind it)
            return None
        if self.select_related or type(self).with_related is not ModelAdapter.with_related:
            return super().load(user_id, record_id)
        found = statements.rows(self.model, self._one, ("int", "int"), user_id, record_id, by_key=True)
        if found is None:
            return super().load(user_id, record_id)
        if not found:
            return None
        instance = self.model.from_db(router.db_for_read(self.model), self._attnames(), found[0])
        if self.prefetch_related:
            prefetch_related_objects([instance], *self.prefetch_related)
        return instance

    def searchable_records(self, user_id: int) -> models.QuerySet | tuple[str, list]:
        """The ids of the current records a search may return, as SQL compiled once per type."""
        return statements.bound(self.model, self._current_ids, ("int",), user_id) or self._current_ids(user_id)

    def candidates(self, user_id: int, record_ids: list[int], names: frozenset[str]) -> list:
        """Rows with the model's columns as attributes, and ``pk``, from SQL compiled once per type and ``names``
        (one array parameter for the ids, on PostgreSQL; planned once per connection): a search ranks 200 and
        makes instances of the few it answers with (``record``).

        Undeclared columns (``deleted_at``) always load: ``is_current`` reads them.
        """
        columns = _candidate_columns(self, names)
        found = statements.rows(self.model, _candidates_build(self, columns), ("int", "ints"), user_id,
                                list(record_ids), by_key=True)
        make = _row_type(self.model, columns)._make
        return [make(row) for row in (
            self.records(user_id).filter(pk__in=record_ids).values_list(*columns) if found is None else found)]

    def record(self, candidate):
        return self.model.from_db(router.db_for_read(self.model), candidate._fields, candidate)

    def _current_ids(self, user_id) -> models.QuerySet:
        return self.current(self.records(user_id)).order_by().values("pk")

    def _attnames(self) -> list[str]:
        return [f.attname for f in self.model._meta.concrete_fields]

    def _one(self, user_id, record_id) -> models.QuerySet:
        return self.records(user_id).filter(pk=record_id).values_list(*self._attnames())

    def is_current(self, instance) -> bool:
        return instance.deleted_at is None

    def document(self, instance, names: frozenset[str] | None = None) -> dict:
        doc = {}
        for path in self.declaration.children[""]:
            name = pointers.split(path)[0]
            if names is not None and name not in names:
                continue
            compute = getattr(self, f"field_{name}", None)
            if compute is not None:
                doc[name] = compute(instance)
            else:
                doc[name] = values.render(self.declaration.by_path[path].type, getattr(instance, name))
        return doc

    def source_version(self, instance) -> str:
        """The row's stamp and the stamps of the linked rows ``document`` reads (SPEC R-10).

        Linking or changing a linked row never touches this row's ``updated_at``; read from what ``load`` fetched.
        """
        stamp = _stamp(instance)
        lookups = (*self.select_related, *self.prefetch_related)
        if lookups:  # SPEC R-10: a source changed through its links is a changed source
            stamp += "".join(
                f"|{lookup}:" + ",".join(_stamp(row) for row in sorted(_linked(instance, lookup), key=_pk))
                for lookup in lookups
            )
        return hashlib.sha256(stamp.encode()).hexdigest()[:32]

    def recency(self, instance) -> datetime:
        return instance.updated_at

    def order_field(self, path: str) -> str:
        return pointers.split(path)[0]


@lru_cache(maxsize=128)
def _candidate_columns(adapter: ModelAdapter, names: frozenset[str]) -> tuple[str, ...]:
    """Every column of the model (in ``from_db``'s order) but those of declared fields not in ``names``."""
    skipped = {pointers.split(path)[0] for path in adapter.declaration.children[""]} - names
    return tuple(f.attname for f in adapter.model._meta.concrete_fields
                 if f.primary_key or f.is_relation or f.name not in skipped)


@lru_cache(maxsize=128)
def _row_type(model: type[models.Model], columns: tuple[str, ...]) -> Any:
    """A candidate row of ``model``: ``columns`` by name, and ``pk``."""
    pk = property(itemgetter(columns.index(model._meta.pk.attname)))
    return type(f"{model.__name__}Row", (namedtuple(f"{model.__name__}Columns", columns),), {"__slots__": (), "pk": pk})


@lru_cache(maxsize=128)
def _candidates_build(adapter: ModelAdapter, columns: tuple[str, ...]):
    """One builder per adapter and columns (it keys the compiled statement)."""

    def build(user_id: int, record_ids: list[int]) -> models.QuerySet:
        among = statements.AnyOf(F("pk"), Value(record_ids))
        return adapter.records(user_id).filter(among).order_by().values_list(*columns)

    return build


def _stamp(row) -> str:
    return f"{row.pk}|{row.updated_at.isoformat()}|{getattr(row, 'deleted_at', None)}"


def _pk(row):
    return row.pk


def _linked(instance, lookup) -> list:
    """The rows ``lookup`` (a ``select_related``/``prefetch_related`` entry) reaches from ``instance``, as loaded."""
    path = lookup.prefetch_to if isinstance(lookup, Prefetch) else lookup
    rows = [instance]
    for name in path.split(LOOKUP_SEP):
        reached: list[models.Model] = []
        for row in rows:
            value = getattr(row, name)
            if isinstance(value, models.Manager):
                reached.extend(value.all())
            elif isinstance(value, (list, tuple)):  # a ``Prefetch(to_attr=…)``
                reached.extend(value)
            elif value is not None:
                reached.append(value)
        rows = reached
    return rows
