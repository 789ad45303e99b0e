"""The tool catalog: one authoritative definition of each tool and resource (SPEC M-2, M-3, M-12).

Design notes: docs/design.md.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import mcp_types as types

from apps.common.canonical import canonical_json
from apps.consent import scopes as scope_names
from apps.consent.selectors import profile
from apps.mcp_server import schemas
from apps.mcp_server.tools import context, memory, propose, search
from apps.mcp_server.tools.answer import Answer
from apps.retrieval.layer.audiences import EXTERNAL_SCOPES

Handler = Callable[[Any, dict[str, Any]], Answer]


@dataclass(frozen=True)
class ScopeRule:
    """Which scopes a call needs (SPEC A-5, A-8, P-3): ``always``, plus those ``by_value`` of ``argument``.

    Listed when the token allows some kind of call; an absent or unknown value needs any one of them.
    """

    always: frozenset[str]
    argument: str | None = None
    by_value: Mapping[str, frozenset[str]] = field(default_factory=dict)
    # The argument is a ref "<type>:<id>": its type is the value looked up in ``by_value``.
    ref_argument: bool = False

    def listed_for(self, granted: frozenset[str]) -> bool:
        if not self.always <= granted:
            return False
        return not self.by_value or any(extra <= granted for extra in self.by_value.values())

    def _value(self, arguments: Any) -> Any:
        value = arguments.get(self.argument) if isinstance(arguments, dict) else None
        if self.ref_argument and isinstance(value, str):
            value = value.partition(":")[0]
        return value

    def missing(self, granted: frozenset[str], arguments: Any) -> list[str]:
        """The scopes this call needs that ``granted`` lacks (empty when allowed)."""
        needed = set(self.always)
        if self.by_value:
            value = self._value(arguments)
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
            if self.ref_argument:
                entry["by_argument_part"] = "type"  # the "<type>" of a "<type>:<id>" ref
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
                # Nothing here deletes: even an archive is only proposed to the user.
                title=self.title, read_only_hint=self.read_only, destructive_hint=False,
                idempotent_hint=True, open_world_hint=False,
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
SEARCH = ScopeRule(always=frozenset({scope_names.PROFILE_READ, scope_names.CONTEXT_SEARCH}))  # SPEC S-1
# SPEC P-3 (home)
PROPOSE = ScopeRule(  # SPEC P-3: the op decides
    always=frozenset(),
    argument="op",
    by_value={
        "add": frozenset({scope_names.PROFILE_PROPOSE}),
        "update": frozenset({scope_names.PROFILE_CORRECT}),
        "archive": frozenset({scope_names.PROFILE_CORRECT}),
    },
)

# SPEC R-11: the memory tools are listed when at least one memory:<type>:read scope is held. A call
# naming a type (memory_list / memory_search ``resource``, the type of memory_read's ``ref``) needs
# that type's scope (403 otherwise, A-8); a call naming none reaches the types the scopes open. A
# type no scope opens (digest, transcript …) needs nothing more here: the layer answers not_found.
MEMORY_TYPE_SCOPES = {name: frozenset({scope}) for name, scope in sorted(EXTERNAL_SCOPES.items())}
MEMORY_BY_RESOURCE = ScopeRule(always=frozenset(), argument="resource", by_value=MEMORY_TYPE_SCOPES)
MEMORY_BY_REF = ScopeRule(always=frozenset(), argument="ref", by_value=MEMORY_TYPE_SCOPES, ref_argument=True)

# Reading lifeos://profile/… resources needs what the read tools need (SPEC M-7).
RESOURCE_SCOPES = READ


@dataclass(frozen=True)
class ResourceSpec:
    """One resource (``uri``) or family of resources (``uri_template``, RFC 6570); JSON, read by ``read_resource``."""

    name: str
    title: str
    description: str
    uri: str = ""
    uri_template: str = ""

    def mcp_resource(self) -> types.Resource:
        return types.Resource(name=self.name, title=self.title, uri=self.uri, mime_type="application/json",
                              description=self.description)

    def mcp_template(self) -> types.ResourceTemplate:
        return types.ResourceTemplate(name=self.name, title=self.title, uri_template=self.uri_template,
                                      mime_type="application/json", description=self.description)


# SPEC M-3 (home)
RESOURCES = (
    ResourceSpec(
        name="profile_summary",
        title="Shared profile",
        uri=profile.SUMMARY_URI,
        description="The same overview get_user_context returns: summary, first facts, version, paging fields.",
    ),
    ResourceSpec(
        name="profile_page",
        title="Page of shared facts",
        uri_template=profile.PAGE_URI_TEMPLATE,
        description="Shared facts from offset on, for one version of the set (next_uri points here).",
    ),
)
# Every resource above is read by this handler: (grant, uri) -> Answer; raises ToolError.
read_resource: Callable[[Any, str], Answer] = context.read_resource

# SPEC M-2 (home)
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
            handler=context.get_user_context,
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
            handler=context.read_user_context_page,
        ),
        ToolSpec(
            name="search_user_context",
            title="Search what the user shared",
            description=(
                "Finds shared facts whose label or value matches the query (Chinese or English, words or parts "
                "of words), best first. Returns only the matches, never the whole profile; page with next_offset "
                "while has_more is true. If window_exhausted is true, narrow the query."
            ),
            input_schema=schemas.SEARCH_ARGUMENTS,
            output_schema=schemas.SEARCH,
            scopes=SEARCH,
            handler=search.search_user_context,
        ),
        ToolSpec(
            name="propose_memory",
            title="Suggest a memory for the user to review",
            description=(
                "Suggests adding a fact (op add: category, label, value), correcting one you were given (op "
                "update: target_fact_id and the new category, label or value) or archiving one (op archive: "
                "target_fact_id). The user reviews it; status pending does not mean it is remembered. One short "
                "fact per call: no conversations, no secrets or verification codes. Evidence is one line."
            ),
            input_schema=schemas.PROPOSE_ARGUMENTS,
            output_schema=schemas.PROPOSAL,
            scopes=PROPOSE,
            handler=propose.propose_memory,
            read_only=False,
        ),
        ToolSpec(
            name="memory_list",
            title="List the user's memory records",
            description=(
                "Without arguments: the memory types you may read (from episode, calendar, todo, voice_memo, "
                "contact), with their fields and filters. With resource: that type's records, newest first, as "
                "previews with a ref each; filters narrow them. While next_cursor is not null, call again with "
                "the same resource and filters and cursor=next_cursor. Read a whole record with memory_read."
            ),
            input_schema=schemas.MEMORY_LIST_ARGUMENTS,
            output_schema=schemas.MEMORY_LIST,
            scopes=MEMORY_BY_RESOURCE,
            handler=memory.memory_list,
        ),
        ToolSpec(
            name="memory_search",
            title="Search the user's memory records",
            description=(
                "Finds records of the memory types you may read whose text matches the query (Chinese or "
                "English, words or parts of words), best first: ref, type, title, status and a snippet. "
                "resource limits it to one type. truncated means more matched: narrow the query. Read a hit "
                "with memory_read(ref)."
            ),
            input_schema=schemas.MEMORY_SEARCH_ARGUMENTS,
            output_schema=schemas.MEMORY_SEARCH,
            scopes=MEMORY_BY_RESOURCE,
            handler=memory.memory_search,
        ),
        ToolSpec(
            name="memory_read",
            title="Read one memory record",
            description=(
                "Returns the record a ref ('<type>:<id>' from memory_list or memory_search) names, with every "
                "field you may read. A long record comes in pages: while complete is false, apply the fragments "
                "in order and call again with cursor=next_cursor. A ref you may not read is not_found."
            ),
            input_schema=schemas.MEMORY_READ_ARGUMENTS,
            output_schema=schemas.MEMORY_READ,
            scopes=MEMORY_BY_REF,
            handler=memory.memory_read,
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


def resources(granted: frozenset[str]) -> list[types.Resource]:
    """The fixed resources a token with these effective scopes may see (SPEC M-3)."""
    listed = RESOURCE_SCOPES.listed_for(granted)
    return [spec.mcp_resource() for spec in RESOURCES if listed and spec.uri]


def resource_templates(granted: frozenset[str]) -> list[types.ResourceTemplate]:
    listed = RESOURCE_SCOPES.listed_for(granted)
    return [spec.mcp_template() for spec in RESOURCES if listed and spec.uri_template]


def manifest(specs: Iterable[ToolSpec] | None = None) -> dict[str, Any]:
    """The published contract: name, schemas and scopes of every tool (SPEC M-12)."""
    return {"tools": [spec.manifest() for spec in sorted(specs or TOOLS.values(), key=lambda spec: spec.name)]}


# SPEC M-12 (home)
def manifest_sha256(document: dict[str, Any] | None = None) -> str:
    return hashlib.sha256(canonical_json(document or manifest()).encode("utf-8")).hexdigest()
