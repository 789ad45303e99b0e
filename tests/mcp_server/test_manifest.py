"""The tool catalog as a published contract (SPEC M-2, M-12)."""

from __future__ import annotations

import copy
import io
import itertools
import json
from pathlib import Path

import pytest
from django.core.management import call_command
from jsonschema import Draft202012Validator
from mcp.shared.tool_name_validation import validate_tool_name

from apps.consent import scopes as scope_names
from apps.mcp_server import catalog

BASELINE = Path(__file__).with_name("manifest.json")
REGENERATE = "python manage.py mcp_manifest > tests/mcp_server/manifest.json"


def command_output(*args) -> str:
    out = io.StringIO()
    call_command("mcp_manifest", *args, stdout=out)
    return out.getvalue().strip()


# SPEC M-12: the catalog is held against the committed baseline; a contract change must update it.
def test_manifest_matches_baseline():
    printed = command_output()
    assert printed == BASELINE.read_text(encoding="utf-8").strip(), (
        f"The MCP tool contract changed. If that is deliberate, run `{REGENERATE}` and commit the file."
    )


# SPEC M-12: the printed hash is the SHA-256 of the canonical manifest, also printed alone with --hash.
def test_manifest_hash():
    baseline = json.loads(BASELINE.read_text(encoding="utf-8"))
    digest = baseline.pop("sha256")
    assert digest == catalog.manifest_sha256(baseline) == command_output("--hash")


# SPEC M-12: any change to a name, schema or scope changes the hash.
@pytest.mark.parametrize(
    "mutate",
    [
        lambda tool: tool.update(name=tool["name"] + "_v2"),
        lambda tool: tool["input_schema"].update(additionalProperties=True),
        lambda tool: tool["output_schema"]["properties"].pop("version"),
        lambda tool: tool["scopes"].update(always=[]),
        lambda tool: tool.update(description=tool["description"] + " "),
    ],
)
def test_hash_sees_every_change(mutate):
    document = catalog.manifest()
    changed = copy.deepcopy(document)
    mutate(changed["tools"][0])
    assert catalog.manifest_sha256(changed) != catalog.manifest_sha256(document)


def _objects(schema):
    """Every object-typed subschema, recursively."""
    if isinstance(schema, dict):
        if schema.get("type") == "object" or "properties" in schema:
            yield schema
        for value in schema.values():
            yield from _objects(value)
    elif isinstance(schema, list):
        for item in schema:
            yield from _objects(item)


# SPEC M-2: every tool is fully defined; input and output objects refuse unknown fields.
@pytest.mark.parametrize("spec", catalog.TOOLS.values(), ids=lambda spec: spec.name)
def test_tool_definitions(spec):
    assert validate_tool_name(spec.name).is_valid
    assert spec.description and spec.title
    for schema in (spec.input_schema, spec.output_schema):
        Draft202012Validator.check_schema(schema)
        assert schema["type"] == "object"
        assert all(obj.get("additionalProperties") is False for obj in _objects(schema))
    assert spec.scopes.always <= set(scope_names.ALL)
    assert all(extra <= set(scope_names.ALL) for extra in spec.scopes.by_value.values())


# SPEC M-2: tools/list is generated from the catalog and lists only what the scopes allow.
def test_listing_follows_scopes():
    for size in range(len(scope_names.ALL) + 1):
        for granted in map(frozenset, itertools.combinations(scope_names.ALL, size)):
            listed = {spec.name for spec in catalog.listed(granted)}
            expected = set()
            if "profile:read" in granted:
                expected |= {"get_user_context", "read_user_context_page"}
                if "context:search" in granted:
                    expected.add("search_user_context")
            if granted & {"profile:propose", "profile:correct"}:
                expected.add("propose_memory")
            if any(name.startswith("memory:") for name in granted):  # SPEC R-11: any one memory scope
                expected |= {"memory_list", "memory_search", "memory_read"}
            assert listed == expected, granted


def test_mcp_tool_is_the_catalog_entry():
    for spec in catalog.TOOLS.values():
        tool = spec.mcp_tool()
        assert (tool.name, tool.input_schema, tool.output_schema) == (
            spec.name, spec.input_schema, spec.output_schema)
