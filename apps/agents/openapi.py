"""The internal API as OpenAPI 3.1, generated from the resource declarations.

Design notes: docs/design.md.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from django.conf import settings

from apps.retrieval.layer.documents import PAGE_BYTES
from apps.retrieval.layer.errors import STATUS
from apps.retrieval.layer.parsing import CURSOR_MAX, QUERY_MAX, TOP_K_DEFAULT, TOP_K_MAX
from apps.retrieval.layer.registry import registry
from apps.retrieval.layer.searching import RESULT_MAX_BYTES

if TYPE_CHECKING:
    from apps.retrieval.layer.declarations import Filter

_FILTER_SCHEMAS: dict[str, dict[str, Any]] = {
    "timestamp": {"type": "string", "format": "date-time", "description": "RFC 3339 with an offset"},
    "date": {"type": "string", "format": "date"},
    "string": {"type": "string", "minLength": 1, "maxLength": 200},
    "integer": {"type": "integer"},
    "boolean": {"type": "boolean"},
}


def _filter_schema(flt: Filter) -> dict[str, Any]:
    if flt.type == "enum":
        return {"type": "string", "enum": list(flt.choices)}
    return dict(_FILTER_SCHEMAS[flt.type])


def _strict(properties: dict[str, Any], required: Iterable[str] = ()) -> dict[str, Any]:
    schema = {"type": "object", "additionalProperties": False, "properties": properties}
    if required:
        schema["required"] = list(required)
    return schema


def schema() -> dict:
    resources = registry.all()
    types = [r.type for r in resources]
    thread = {"type": "string", "minLength": 1, "maxLength": 200}
    cursor = {"type": "string", "maxLength": CURSOR_MAX, "description": "opaque; from next_cursor"}
    list_bodies = [_strict({"thread_id": thread}, ["thread_id"])]
    for r in resources:
        filters = {f.name: {**_filter_schema(f), "description": f"{f.description or f.name} (needs {f.field} readable)"}
                   for f in r.declaration.filters}
        list_bodies.append(_strict({
            "thread_id": thread,
            "resource": {"const": r.type},
            "filters": _strict(filters),
            "cursor": cursor,
        }, ["thread_id", "resource"]))
    error = {
        "type": "object",
        "required": ["error"],
        "properties": {"error": _strict({
            "code": {"type": "string", "enum": sorted(STATUS)},
            "message": {"type": "string"},
            "pointer": {"type": "string", "description": "JSON Pointer of the offending part of the request"},
        }, ["code", "message"])},
    }
    answer = {"type": "object"}

    def operation(summary: str, body: dict, ok: str, description: str = "") -> dict:
        return {
            "summary": summary,
            "description": description,
            "security": [{"agent": []}],
            "requestBody": {"required": True, "content": {"application/json": {"schema": body}}},
            "responses": {
                ok: {"description": "done", "content": {"application/json": {"schema": answer}}},
                **{str(code): {"description": ", ".join(sorted(c for c, s in STATUS.items() if s == code)),
                               "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}}
                   for code in sorted(set(STATUS.values()))},
                "401": {"description": "no valid agent token"},
            },
        }

    run_id = [{"name": "run_id", "in": "path", "required": True, "schema": {"type": "string", "format": "uuid"}}]
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "LifeOS Memory internal agent API",
            "version": "1",
            "description": (
                "Runs and the unified list/search/read layer. Every call is allowed what the run's "
                "frozen grant, the agent's current policy and the internal audience cap all allow. "
                f"Read answers are at most {PAGE_BYTES} bytes of JSON; longer records come as fragments "
                f"with next_cursor. Search answers are at most {RESULT_MAX_BYTES} bytes. Resource types: "
                + ", ".join(types) + "."
            ),
        },
        "servers": [{"url": settings.PUBLIC_BASE_URL + "/internal"}],
        "components": {
            "securitySchemes": {
                "agent": {
                    "type": "oauth2",
                    "description": "A confidential client of an internal agent, client-credentials grant.",
                    "flows": {"clientCredentials": {"tokenUrl": settings.PUBLIC_BASE_URL + "/oauth/token/",
                                                    "scopes": {}}},
                }
            },
            "schemas": {"Error": error},
        },
        "paths": {
            "/runs": {"post": operation(
                "Start a run: freeze the agent's current grant for one user and thread",
                _strict({"thread_id": thread, "user": {"type": "integer", "minimum": 1}}, ["thread_id", "user"]),
                "201",
            )},
            "/runs/{run_id}/list": {"parameters": run_id, "post": operation(
                "list() without a resource: the readable types; with one: a page of its records",
                {"oneOf": list_bodies}, "200",
            )},
            "/runs/{run_id}/search": {"parameters": run_id, "post": operation(
                "Search the readable, searchable fields of the types the run may search",
                _strict({
                    "thread_id": thread,
                    "query": {"type": "string", "minLength": 1, "maxLength": QUERY_MAX},
                    "resource": {"type": "string", "enum": types},
                    "top_k": {"type": "integer", "minimum": 1, "maximum": TOP_K_MAX, "default": TOP_K_DEFAULT},
                }, ["thread_id", "query"]),
                "200",
            )},
            "/runs/{run_id}/read": {"parameters": run_id, "post": operation(
                "Read one record by ref; long records page by cursor",
                _strict({
                    "thread_id": thread,
                    "ref": {"type": "string", "pattern": "^[a-z][a-z0-9_]*:[1-9][0-9]*$"},
                    "cursor": cursor,
                }, ["thread_id", "ref"]),
                "200",
            )},
            "/runs/{run_id}/end": {"parameters": run_id, "post": operation(
                "End the run; later calls of it are refused",
                _strict({"thread_id": thread}, ["thread_id"]),
                "200",
            )},
        },
    }
