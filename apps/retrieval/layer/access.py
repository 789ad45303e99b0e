"""Who may do what: grants, their intersection, and the audience cap (SPEC R-4, R-5, R-11).

Design notes: docs/design.md.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from types import MappingProxyType

from apps.retrieval.layer import pointers
from apps.retrieval.layer.audiences import AUDIENCES, EXTERNAL, EXTERNAL_SCOPES, EXTERNALLY_PUBLISHABLE
from apps.retrieval.layer.declarations import ALL_FIELDS, OPERATIONS
from apps.retrieval.layer.errors import LayerError
from apps.retrieval.layer.registry import Resource, registry


class GrantInvalid(ValueError):
    """A stored grant or policy that cannot be read; callers refuse rather than guess."""


@dataclass(frozen=True)
class TypeGrant:
    operations: frozenset[str]
    fields: tuple[str, ...]  # patterns; "" grants every field


def _narrow(a: tuple[str, ...], b: tuple[str, ...]) -> tuple[str, ...]:
    """The patterns granting exactly what both ``a`` and ``b`` grant."""
    keep = {p for p in a if any(pointers.covers(q, p) for q in b)}
    keep |= {q for q in b if any(pointers.covers(p, q) for p in a)}
    return tuple(sorted(keep))


@dataclass(frozen=True)
class Grant:
    types: Mapping[str, TypeGrant] = field(default_factory=dict)

    def intersect(self, other: Grant) -> Grant:
        types = {}
        for name in sorted(set(self.types) & set(other.types)):
            mine, theirs = self.types[name], other.types[name]
            ops, fields = mine.operations & theirs.operations, _narrow(mine.fields, theirs.fields)
            if ops and fields:
                types[name] = TypeGrant(frozenset(ops), fields)
        return Grant(types)

    def to_json(self) -> dict:
        return {
            name: {"operations": sorted(g.operations), "fields": list(g.fields)}
            for name, g in sorted(self.types.items())
        }

    @classmethod
    def from_json(cls, data, *, strict_types: bool = True) -> Grant:
        """Read a stored grant. ``GrantInvalid`` when it is malformed or names undeclared fields.

        With ``strict_types=False`` a type no longer registered is dropped instead of refused.
        """
        if not isinstance(data, dict):
            raise GrantInvalid("a grant is an object of resource types")
        types = {}
        for name, entry in data.items():
            resource = registry.get(name)
            if resource is None:
                if strict_types:
                    raise GrantInvalid(f"unknown resource type {name!r}")
                continue
            if not isinstance(entry, dict) or set(entry) != {"operations", "fields"}:
                raise GrantInvalid(f"{name}: expected exactly 'operations' and 'fields'")
            ops, fields = entry["operations"], entry["fields"]
            if not isinstance(ops, list) or not all(isinstance(op, str) and op in OPERATIONS for op in ops):
                raise GrantInvalid(f"{name}: operations must be a list of {', '.join(OPERATIONS)}")
            if not isinstance(fields, list) or not all(isinstance(p, str) for p in fields):
                raise GrantInvalid(f"{name}: fields must be a list of JSON Pointer patterns")
            for pattern in fields:
                check_pattern(resource, pattern)
            if ops and fields:
                types[name] = TypeGrant(frozenset(ops), tuple(sorted(set(fields))))
        return cls(types)


# SPEC R-4 (home)
def effective_grant(snapshot, policy) -> Grant:
    """``Grant.from_json(snapshot, strict_types=False) ∩ Grant.from_json(policy)``, for grants read just now.

    ``GrantInvalid`` names the one that cannot be read. Only the pure parse is memoized.
    """
    try:
        keys = (_canonical(snapshot), _canonical(policy))
    except (TypeError, ValueError):
        raise GrantInvalid("a grant is an object of resource types") from None
    return _effective(*keys, registry.generation)


def _canonical(data) -> str:
    return json.dumps(data, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


@lru_cache(maxsize=256)
def _effective(snapshot: str, policy: str, generation: int) -> Grant:
    current = Grant.from_json(json.loads(policy))
    try:
        frozen = Grant.from_json(json.loads(snapshot), strict_types=False)
    except GrantInvalid as exc:
        raise SnapshotInvalid(str(exc)) from None
    return Grant(MappingProxyType(dict(frozen.intersect(current).types)))


class SnapshotInvalid(GrantInvalid):
    """The run's frozen grant (not the current policy) cannot be read."""


def check_pattern(resource: Resource, pattern: str) -> None:
    """A granted pattern must be declared, and so must each of its parents (SPEC R-5)."""
    if pattern == "":
        return
    try:
        pointers.split(pattern)
    except ValueError as exc:
        raise GrantInvalid(f"{resource.type}: {exc}") from None
    for path in (*pointers.ancestors(pattern), pattern):
        if path not in resource.declaration.by_path:
            raise GrantInvalid(f"{resource.type}: {path} is not a declared field")


@dataclass(frozen=True)
class Access:
    """One call's identity and grant, computed afresh for every call (every page too).

    ``caller`` names who asks; cursors are bound to it, to ``user_id`` and to ``audience``.
    """

    user_id: int
    caller: str
    audience: str
    grant: Grant
    # The most bytes of JSON one list or read answer may hold; None: the layer's own
    # 64 KiB (SPEC R-9). MCP asks for less: one tool result is at most 16 KiB (SPEC M-6).
    page_bytes: int | None = None

    def __post_init__(self) -> None:
        if self.audience not in AUDIENCES:
            raise ValueError(f"unknown audience {self.audience!r}")
        if self.page_bytes is not None and not 4_096 <= self.page_bytes <= 65_536:
            raise ValueError("page_bytes must be between 4096 and 65536")


@dataclass(frozen=True)
class TypeView:
    """What one call may do with one type, after every layer and the cap."""

    resource: Resource
    operations: frozenset[str]
    leaves: frozenset[str]

    @property
    def type(self) -> str:
        return self.resource.type

    @property
    def fingerprint(self) -> str:
        return field_fingerprint(self.leaves)

    def readable(self, pattern: str) -> bool:
        """Whether anything at or under ``pattern`` may be read."""
        return any(pointers.covers(pattern, leaf) for leaf in self.leaves)

    def readable_top_level(self) -> frozenset[str]:
        return frozenset(pointers.split(leaf)[0] for leaf in self.leaves)

    def listed_top_level(self) -> frozenset[str]:
        """The readable top-level fields a ``list`` item shows: not those declared ``in_list=False`` (SPEC R-2)."""
        declaration = self.resource.declaration
        listed = {pointers.split(path)[0] for path in declaration.children[""] if declaration.by_path[path].in_list}
        return self.readable_top_level() & listed


def field_fingerprint(leaves) -> str:
    return hashlib.sha256("\n".join(sorted(leaves)).encode()).hexdigest()[:32]


def view(access: Access, resource_type: str) -> TypeView | None:
    """The caller's view of a type, or None when it may read nothing of it (SPEC R-2, R-4)."""
    resource = registry.get(resource_type)
    granted = access.grant.types.get(resource_type)
    if resource is None or granted is None:
        return None
    if access.audience == EXTERNAL and resource_type not in EXTERNALLY_PUBLISHABLE:  # SPEC R-11
        return None
    declaration = resource.declaration
    leaves = declaration.leaves_under(granted.fields) & declaration.readable_leaves(access.audience)
    operations = granted.operations & frozenset(declaration.operations)
    if not leaves or not operations:
        return None
    return TypeView(resource, operations, leaves)


def views(access: Access) -> list[TypeView]:
    return [v for v in (view(access, r.type) for r in registry.all()) if v is not None]


def require(access: Access, resource_type: str, operation: str, *, pointer: str) -> TypeView:
    """The view, or the refusal that says precisely why there is none."""
    if registry.get(resource_type) is None:
        raise LayerError("unknown_resource", f"there is no resource type {resource_type!r}", pointer=pointer)
    found = view(access, resource_type)
    if found is None:
        raise LayerError("resource_not_permitted", f"this run may not read {resource_type}", pointer=pointer)
    if operation not in found.operations:
        raise LayerError("operation_not_permitted", f"this run may not {operation} {resource_type}", pointer=pointer)
    return found


def external_grant(scopes) -> Grant:
    """What an MCP token's scopes open (SPEC R-11): each published type behind its own scope, fields capped."""
    scopes = set(scopes)
    return Grant({
        name: TypeGrant(frozenset(OPERATIONS), ALL_FIELDS)
        for name, scope in sorted(EXTERNAL_SCOPES.items())
        if scope in scopes
    })
