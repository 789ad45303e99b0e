"""Paging a large shared profile through the SDK client (SPEC M-3, M-6, M-7)."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
from mcp.shared.exceptions import MCPError

from apps.common import clock
from apps.consent.services import connection_narrow
from apps.memory.models import Category
from apps.memory.services import fact_archive, fact_update
from tests.mcp_server.conftest import make_fact, share
from tests.mcp_server.rpc import call, post, tool_result

RESULT_MAX_BYTES = 16_384


def compact_size(structured: dict) -> int:
    return len(json.dumps(structured, separators=(",", ":"), ensure_ascii=False).encode("utf-8"))


@pytest.fixture
def large_profile(user, connect, issue_token):
    """60 shared facts of near-maximum length (label 40, value 300 characters, mostly 3-byte UTF-8)."""
    connection = connect()
    categories = Category.shareable()
    facts = [
        make_fact(
            user,
            i,
            category=categories[i % len(categories)],
            label=f"{i:02d}" + "标签" * 19,
            value=f"{i:02d}" + "很长的值" * 74 + "!",
        )
        for i in range(60)
    ]
    assert all(len(f.label) == 40 and len(f.value) == 299 for f in facts)
    share(connection, facts)
    return connection, facts, issue_token()


def pages_by_tool(client) -> list[dict]:
    result = client.call("get_user_context")
    pages = [result.structured_content]
    while pages[-1]["has_more"]:
        last = pages[-1]
        result = client.call("read_user_context_page", {"offset": last["next_offset"], "version": last["version"]})
        assert not result.is_error, result.structured_content
        pages.append(result.structured_content)
    return pages


# SPEC M-6: ≤ 50 facts and ≤ 16,384 bytes per result; paging reaches every fact exactly once.
def test_large_profile_pages(mcp, large_profile):
    _, facts, token = large_profile
    pages = pages_by_tool(mcp(token))
    first = pages[0]
    assert first["has_more"] is True and first["summary"]["fact_count"] == 60
    assert len(pages) > 2  # the byte budget cuts well before 50 facts of this size
    for result in pages:
        assert len(result["facts"]) <= 50
        assert compact_size(result) <= RESULT_MAX_BYTES
    sent = [fact["id"] for result in pages for fact in result["facts"]]
    assert sent == [str(fact.id) for fact in facts]
    assert pages[-1]["next_offset"] is None and pages[-1]["next_uri"] is None


# SPEC M-3, M-7: the page resources behind next_uri give the same pages as the tool.
def test_next_uri_resources_match_tool_pages(mcp, large_profile):
    _, _, token = large_profile
    client = mcp(token)
    by_tool = pages_by_tool(client)
    by_resource = [client.read("lifeos://profile/summary")]
    while by_resource[-1]["next_uri"]:
        by_resource.append(client.read(by_resource[-1]["next_uri"]))
    assert by_resource == by_tool


# SPEC M-7: a page for a version that is no longer current is a version_conflict telling to re-read.
def test_stale_version_conflict(mcp, large_profile):
    _, facts, token = large_profile
    client = mcp(token)
    first = client.call("get_user_context").structured_content
    fact_update(fact=facts[-1], value="changed")
    result = client.call("read_user_context_page", {"offset": first["next_offset"], "version": first["version"]})
    assert result.is_error
    assert result.structured_content["code"] == "version_conflict"
    assert "get_user_context" in result.structured_content["message"]
    with pytest.raises(MCPError) as error:
        client.read(first["next_uri"])
    assert error.value.data["code"] == "version_conflict"


# SPEC M-8: an offset past the end names the field and the limit.
def test_offset_past_the_end(mcp, large_profile):
    _, _, token = large_profile
    client = mcp(token)
    version = client.call("get_user_context").structured_content["version"]
    result = client.call("read_user_context_page", {"offset": 61, "version": version})
    assert result.structured_content == {"code": "invalid_argument",
                                         "message": "field 'offset' is too large: at most 60 for this version"}
    last = client.call("read_user_context_page", {"offset": 60, "version": version}).structured_content
    assert (last["facts"], last["has_more"]) == ([], False)


def _page(token, offset, version):
    return tool_result(post(call("read_user_context_page", {"offset": offset, "version": version}), token))


def _later(write, **kwargs):
    """``write`` two seconds on: an evidence edit shows only as the fact's updated_at, to the second."""
    with clock.frozen_at(clock.now() + timedelta(seconds=2)):
        return write(**kwargs)


# SPEC M-7, C-5, C-2: removing a share, narrowing the categories, archiving or touching a fact
# changes the visible set's version: a page of the old version is a version_conflict.
@pytest.mark.parametrize(
    "change",
    [
        lambda connection, facts: share(connection, facts[1:]),
        lambda connection, facts: connection_narrow(connection=connection, categories=set(Category.shareable()[1:])),
        lambda connection, facts: fact_archive(fact=facts[0]),
        lambda connection, facts: _later(fact_update, fact=facts[-1], evidence="Said so again"),
    ],
    ids=["unshared", "narrowed", "archived", "evidence"],
)
def test_any_change_of_the_set_is_a_version_conflict(large_profile, change):
    connection, facts, token = large_profile
    first = tool_result(post(call("get_user_context"), token))
    change(connection, facts)
    assert _page(token, first["next_offset"], first["version"])["code"] == "version_conflict"


# SPEC M-7: the same set keeps its version, so paging goes on; a later page is the same whatever was read before.
def test_same_set_keeps_paging(large_profile):
    connection, facts, token = large_profile
    first = tool_result(post(call("get_user_context"), token))
    share(connection, facts)  # the same shares again
    second = _page(token, first["next_offset"], first["version"])
    assert second["version"] == first["version"] and second["offset"] == first["next_offset"]
    assert second["facts"][0]["id"] == str(facts[first["next_offset"]].id)
    assert _page(token, first["next_offset"], first["version"]) == second


# SPEC M-7, M-8: the version is checked before the offset.
def test_stale_version_wins_over_a_large_offset(large_profile):
    connection, facts, token = large_profile
    version = tool_result(post(call("get_user_context"), token))["version"]
    share(connection, facts[:10])
    assert _page(token, 61, version)["code"] == "version_conflict"
