"""The tool catalog: one authoritative definition of each tool (SPEC M-2, M-12).

``tools/list``, argument validation, the scope check of the /mcp view (A-8)
and the published manifest are all generated from the entries below; nothing
else describes a tool.

Tools still to be added here, once their services exist (see docs/mcp.md):
``search_user_context`` (needs ``profile:read`` + ``context:search``) and
``propose_memory`` (``op`` add → ``profile:propose``, update/archive →
``profile:correct``; listed when the token holds either).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import mcp_types as types

from apps.consent import scopes as scope_names
from apps.mcp_server import handlers, schemas
from apps.mcp_server.profile import canonical_json

Handler = Callable[[Any, dict[str, Any]], handlers.Answer]


@dataclass(frozen=True)
class ScopeRule:
    """Which scopes a call needs (SPEC A-5, A-8, P-3).

    ``always`` are needed by every call. When ``by_value`` is set, the value of
    the argument ``argument`` adds the scopes listed for it (``propose_memory``:
    ``op``). Such a tool is listed when the token could make at least one kind
    of call; a call whose value is not recognised needs any one of them (the
    schema check then refuses the value itself).
    """

    always: frozenset[str]
    argument: str | None = None
    by_value: Mapping[str, frozenset[str]] = field(default_factory=dict)

    def listed_for(self, granted: frozenset[str]) -> bool:
        if not self.always <= granted:
            return False
        return not self.by_value or any(extra <= granted for extra in self.by_value.values())

    def missing(self, granted: frozenset[str], arguments: Any) -> list[str]:
        """The scopes this call needs that ``granted`` lacks (empty when allowed)."""
        needed = set(self.always)
        if self.by_value:
            value = arguments.get(self.argument) if isinstance(arguments, dict) else None
            extra = self.by_value.get(value) if isinstance(value, str) else None
            if extra is not None:
                needed |= extra
            elif not any(option <= granted for option in self.by_value.values()):
                needed |= frozenset().union(*self.by_value.values())
        return scope_names.ordered(needed - granted)

    def manifest(self) -> dict[str, Any]:
        entry: dict[str, Any] = {"always": scope_names.ordered(self.always)}
        if self.by_value:
            entry["by_argument"] = {
                self.argument: {value: scope_names.ordered(extra) for value, extra in sorted(self.by_value.items())}
            }
        return entry


@dataclass(frozen=True)
class ToolSpec:
    name: str
    title: str
    description: str
    input_schema: dict[str, Any]
    output_schema: dict[str, Any]
    scopes: ScopeRule
    handler: Handler  # (grant, validated arguments) -> Answer; raises ToolError
    read_only: bool = True

    def mcp_tool(self) -> types.Tool:
        return types.Tool(
            name=self.name,
            title=self.title,
            description=self.description,
            input_schema=self.input_schema,
            output_schema=self.output_schema,
            annotations=types.ToolAnnotations(
                title=self.title, read_only_hint=self.read_only, open_world_hint=False,
                idempotent_hint=self.read_only,
            ),
        )

    def manifest(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "title": self.title,
            "description": self.description,
            "input_schema": self.input_schema,
            "output_schema": self.output_schema,
            "scopes": self.scopes.manifest(),
            "read_only": self.read_only,
        }


READ = ScopeRule(always=frozenset({scope_names.PROFILE_READ}))

# Reading lifeos://profile/… resources needs what the read tools need (SPEC M-7).
RESOURCE_SCOPES = READ

TOOLS: dict[str, ToolSpec] = {
    spec.name: spec
    for spec in (
        ToolSpec(
            name="get_user_context",
            title="Read what the user shared",
            description=(
                "Returns the facts the user chose to share with you, a summary of them, the version of this set "
                "and paging fields. Call it first. When has_more is true, read the rest with "
                "read_user_context_page(offset=next_offset, version=version): every shared fact is reachable so."
            ),
            input_schema=schemas.NO_ARGUMENTS,
            output_schema=schemas.OVERVIEW,
            scopes=READ,
            handler=handlers.get_user_context,
        ),
        ToolSpec(
            name="read_user_context_page",
            title="Read the next page of shared facts",
            description=(
                "Returns the shared facts from offset on, for the version get_user_context returned. If the shared "
                "facts changed since, it fails with version_conflict: call get_user_context again."
            ),
            input_schema=schemas.PAGE_ARGUMENTS,
            output_schema=schemas.PAGE,
            scopes=READ,
            handler=handlers.read_user_context_page,
        ),
    )
}


def tool(name: str) -> ToolSpec | None:
    return TOOLS.get(name)


def listed(granted: frozenset[str]) -> list[ToolSpec]:
    """The tools a token with these effective scopes may see and call (SPEC M-2)."""
    return [spec for spec in TOOLS.values() if spec.scopes.listed_for(granted)]


def input_schema_for(name: str) -> dict[str, Any] | None:
    spec = TOOLS.get(name)
    return None if spec is None else spec.input_schema


def manifest(specs: Iterable[ToolSpec] | None = None) -> dict[str, Any]:
    """The published contract: name, schemas and scopes of every tool (SPEC M-12)."""
    return {"tools": [spec.manifest() for spec in sorted(specs or TOOLS.values(), key=lambda spec: spec.name)]}


def manifest_sha256(document: dict[str, Any] | None = None) -> str:
    return hashlib.sha256(canonical_json(document or manifest()).encode("utf-8")).hexdigest()
