"""Resource declarations (SPEC R-1): what a resource type is, as data.

Design notes: docs/design.md.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cached_property

from apps.retrieval.layer import pointers
from apps.retrieval.layer.audiences import AUDIENCES, EXTERNAL, EXTERNALLY_PUBLISHABLE
from apps.retrieval.layer.values import CONTAINER_TYPES, FIELD_TYPES, FILTER_TYPES, TEXT_TYPES

OPERATIONS = ("list", "search", "read")
ALL_FIELDS = ("",)  # the root pattern: every declared field
_TYPE_NAME = re.compile(r"^[a-z][a-z0-9_]{0,31}$")
_FILTER_NAME = re.compile(r"^[a-z][a-z0-9_]{0,63}$")


class DeclarationError(Exception):
    """A declaration contradicts itself; raised when it is built, never at request time."""


@dataclass(frozen=True)
class Field:
    """One declared place in a record's document, e.g. ``/participants/*/display_name``."""

    path: str
    type: str
    searchable: bool = False
    # A searchable field of names, matched by meaning only when spelt alike too ("Grcae Liu"; SPEC S-4): a name has
    # no meaning to paraphrase, and a made-up word is about as close to "Kai" as a question is to its answer.
    name: bool = False
    in_list: bool = True  # shown (as a preview for ``text``) in ``list`` items
    choices: tuple[str, ...] = ()
    description: str = ""


@dataclass(frozen=True)
class Filter:
    """A filter ``list`` accepts. It needs ``field`` to be readable: filtering on a
    field the caller may not read would reveal it (SPEC R-5).
    """

    name: str
    type: str
    field: str
    lookup: str  # the ORM lookup the adapter applies, e.g. ``due_at__lt``
    choices: tuple[str, ...] = ()
    description: str = ""


# SPEC R-1 (home)
@dataclass(frozen=True)
class Declaration:
    type: str
    description: str
    fields: tuple[Field, ...]
    filters: tuple[Filter, ...] = ()
    # audience → patterns it may read; a pattern grants itself and everything under it
    readable: dict[str, tuple[str, ...]] = field(default_factory=dict)
    operations: tuple[str, ...] = OPERATIONS
    title: str | None = None  # the field a search hit shows as its title
    order: str | None = None  # the timestamp field ``list`` orders by, newest first
    rank_weight: float = 0.0  # the type's share of cross-resource ranking (SPEC R-8)

    def __post_init__(self) -> None:
        self._check()

    # --- derived views ---------------------------------------------------
    @cached_property
    def by_path(self) -> dict[str, Field]:
        return {f.path: f for f in self.fields}

    @cached_property
    def filters_by_name(self) -> dict[str, Filter]:
        return {f.name: f for f in self.filters}

    @cached_property
    def children(self) -> dict[str, tuple[str, ...]]:
        """pattern → its declared direct children, in declaration order ("" is the root)."""
        tree: dict[str, list[str]] = {"": []}
        for f in self.fields:
            tree.setdefault(f.path, [])
            parent = pointers.join(pointers.split(f.path)[:-1])
            tree[parent].append(f.path)
        return {path: tuple(kids) for path, kids in tree.items()}

    @cached_property
    def leaves(self) -> tuple[str, ...]:
        return tuple(f.path for f in self.fields if not self.children[f.path])

    @cached_property
    def searchable(self) -> tuple[str, ...]:
        return tuple(f.path for f in self.fields if f.searchable)

    def leaves_under(self, patterns) -> frozenset[str]:
        """The declared leaves ``patterns`` grant (each grants itself and its descendants)."""
        patterns = tuple(patterns)
        return frozenset(leaf for leaf in self.leaves if any(pointers.covers(p, leaf) for p in patterns))

    def readable_leaves(self, audience: str) -> frozenset[str]:
        return self.leaves_under(self.readable.get(audience, ()))

    # --- consistency -----------------------------------------------------
    def _check(self) -> None:
        fail = DeclarationError
        if not _TYPE_NAME.match(self.type):
            raise fail(f"type name {self.type!r} must be lower_snake_case")
        seen: dict[str, Field] = {}
        for f in self.fields:
            where = f"{self.type}{f.path}"
            try:
                tokens = pointers.split(f.path)
            except ValueError as exc:
                raise fail(f"{where}: {exc}") from None
            if not tokens or f.path in seen:
                raise fail(f"{where}: empty or declared twice")
            if f.type not in FIELD_TYPES:
                raise fail(f"{where}: unknown type {f.type!r}")
            parent = pointers.join(tokens[:-1])
            if parent:
                # SPEC R-5: a nested field hangs under a declared container, so its
                # parents can be checked when it is authorized.
                if parent not in seen:
                    raise fail(f"{where}: parent {parent} must be declared first")
                wants = "array" if tokens[-1] == pointers.WILDCARD else "object"
                if seen[parent].type != wants:
                    raise fail(f"{where}: parent {parent} must be an {wants}")
            elif tokens[-1] == pointers.WILDCARD:
                raise fail(f"{where}: the document root is an object")
            if f.searchable and f.type not in TEXT_TYPES:
                raise fail(f"{where}: only string and text fields are searchable")
            if f.name and not f.searchable:
                raise fail(f"{where}: a field of names must be searchable")
            if f.type == "enum" and not f.choices:
                raise fail(f"{where}: an enum needs choices")
            seen[f.path] = f
        for path, f in seen.items():
            if f.type in CONTAINER_TYPES and not self.children.get(path):
                raise fail(f"{self.type}{path}: a container needs declared children")
        for audience, patterns in self.readable.items():
            if audience not in AUDIENCES:
                raise fail(f"{self.type}: unknown audience {audience!r}")
            for pattern in patterns:
                if pattern and pattern not in seen:
                    raise fail(f"{self.type}: readable pattern {pattern!r} is not declared")
        # SPEC R-11: only five types may ever be published externally.
        if self.readable.get(EXTERNAL) and self.type not in EXTERNALLY_PUBLISHABLE:
            raise fail(f"{self.type}: this type may never be read externally (SPEC R-11)")
        for flt in self.filters:
            if not _FILTER_NAME.match(flt.name) or flt.type not in FILTER_TYPES:
                raise fail(f"{self.type}: filter {flt.name!r} has a bad name or type")
            if flt.field not in seen:
                raise fail(f"{self.type}: filter {flt.name!r} needs declared field {flt.field}")
            if flt.type == "enum" and not flt.choices:
                raise fail(f"{self.type}: enum filter {flt.name!r} needs choices")
        if len({flt.name for flt in self.filters}) != len(self.filters):
            raise fail(f"{self.type}: a filter is declared twice")
        for op in self.operations:
            if op not in OPERATIONS:
                raise fail(f"{self.type}: unknown operation {op!r}")
        for name, named in (("title", self.title), ("order", self.order)):
            if named is not None and named not in seen:
                raise fail(f"{self.type}: {name} field {named} is not declared")
        if self.order is not None and seen[self.order].type != "timestamp":
            raise fail(f"{self.type}: the order field must be a timestamp")
