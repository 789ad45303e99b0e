"""/mcp under malformed HTTP, malformed JSON-RPC and generated tool arguments (SPEC M-8, M-9, P-4, P-7).

Properties, for every generated request through Django's whole middleware stack:

* never a 5xx, never a JSON-RPC internal error (-32603);
* a tool failure is an ``isError`` result whose code is one of the documented M-8 codes;
* the server keeps serving: a valid call right after succeeds;
* no ``propose_memory`` call, however malformed, changes what the assistant sees
  (the visible set's version is the same before and after, SPEC P-7).

Bounded and repeatable: fixed seed, few examples (``tests/reliability/conftest.py``).
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from mcp_types import CLIENT_CAPABILITIES_META_KEY, PROTOCOL_VERSION_META_KEY
from mcp_types.methods import SPEC_CLIENT_METHODS, SPEC_CLIENT_NOTIFICATION_METHODS
from mcp_types.version import KNOWN_PROTOCOL_VERSIONS, MODERN_PROTOCOL_VERSIONS

from apps.common.errors import TOOL_ERROR_CODES
from apps.consent import scopes
from apps.consent.selectors.profile import profile_snapshot
from apps.mcp_server import catalog
from apps.mcp_server.admission import CALL_METHODS
from tests.mcp_server.conftest import make_fact, share
from tests.mcp_server.rpc import ACCEPT, call, post, rpc
from tests.reliability.conftest import FUZZ
from tests.reliability.strategies import JSON, TEXT, arguments_for, dumps

pytestmark = pytest.mark.django_db

INTERNAL_ERROR = -32603

PROTOCOL_HEADERS = st.sampled_from([None, *KNOWN_PROTOCOL_VERSIONS, "", "1999-01-01", "2099-12-31", "latest",
                                    "2025-06-18, 2025-03-26", "\u00e9t\u00e9", " 2025-06-18 "])


def headers_for(protocol: str | None) -> dict[str, str]:
    if protocol is None:
        return {}
    try:
        protocol.encode("latin-1")
    except UnicodeEncodeError:
        return {}
    return {"MCP-Protocol-Version": protocol}


def enveloped(message: dict, protocol: str | None) -> tuple[dict, dict[str, str]]:
    """A well-formed call in the era ``protocol`` names: the modern revision needs its envelope and headers."""
    if protocol not in MODERN_PROTOCOL_VERSIONS:
        return message, headers_for(protocol)
    params = dict(message["params"])
    params["_meta"] = {PROTOCOL_VERSION_META_KEY: protocol, CLIENT_CAPABILITIES_META_KEY: {}}
    headers = {"MCP-Protocol-Version": protocol, "Mcp-Method": message["method"], "Mcp-Name": params["name"]}
    return {**message, "params": params}, headers


@pytest.fixture
def assistant(user, connect, issue_token):
    """A connection with every scope, three shared facts, one unshared, and a token."""
    connection = connect(scopes=scopes.ALL)
    facts = [make_fact(user, i) for i in range(3)]
    share(connection, facts)
    make_fact(user, 9, label="Not shared")
    return connection, issue_token(scopes.ALL)


def assert_sane(response) -> dict | None:
    """Never a 5xx; never -32603; tool failures carry an M-8 code. Returns the JSON body, if any."""
    assert response.status_code < 500, (response.status_code, response.content[:500])
    if not response.content or "json" not in response.get("Content-Type", ""):
        return None
    body = response.json()
    if isinstance(body, dict):
        error = body.get("error")
        if isinstance(error, dict):
            assert error.get("code") != INTERNAL_ERROR, body
        result = body.get("result")
        if isinstance(result, dict) and result.get("isError"):
            content = result.get("structuredContent")
            assert isinstance(content, dict) and content.get("code") in TOOL_ERROR_CODES, body
            assert json.loads(result["content"][0]["text"]) == content
    return body


def assert_still_serving(token: str) -> None:
    response = post(call("get_user_context"), token)
    assert response.status_code == 200, response.content[:500]
    result = response.json()["result"]
    assert result["isError"] is False, result
    assert len(result["structuredContent"]["facts"]) == 3


# --- HTTP level ----------------------------------------------------------------------------------

def deep(depth: int, opener: str, closer: str) -> str:
    return opener * depth + closer * depth


RAW_BODIES = st.one_of(
    st.binary(max_size=300),
    TEXT,
    JSON.map(dumps),
    st.integers(1, 40_000).map(lambda n: deep(n, "[", "]")),
    st.integers(1, 12_000).map(lambda n: '{"a":' * n + "1" + "}" * n),
    st.integers(1, 30_000).map(lambda n: dumps(rpc("tools/call", {"name": "get_user_context",
                                                                  "arguments": {"x": "y" * n}}))),
    st.integers(60_000, 70_000).map(lambda n: "x" * n),  # around the 64 KiB body limit
    st.sampled_from(["", "{", "}", "null", "{}", "[]", "0", '"\\ud800"', '{"jsonrpc":"2.0"}', "\x00",
                     '{"jsonrpc":"2.0","id":1,"method":"tools/list"}\x00', "\ufeff{}",
                     '{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":' + deep(3_000, "[", "]") + "}}",
                     '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_user_context",'
                     '"arguments":' + deep(5_000, "[", "]") + "}}"]),
)
CONTENT_TYPES = st.sampled_from([
    "application/json", "application/json; charset=utf-8", "application/json; charset=latin-1",
    "APPLICATION/JSON", "text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x",
    "application/json-rpc", "", "application/octet-stream", "text/event-stream",
])
METHODS = st.sampled_from(["POST", "POST", "POST", "GET", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS", "TRACE"])
ACCEPTS = st.sampled_from([ACCEPT, "application/json", "text/event-stream", "*/*", "text/html", "", None])


@FUZZ
@given(method=METHODS, body=RAW_BODIES, content_type=CONTENT_TYPES, accept=ACCEPTS, protocol=PROTOCOL_HEADERS)
def test_malformed_http_never_breaks_the_server(client, assistant, method, body, content_type, accept, protocol):
    _, token = assistant
    headers = {"Authorization": f"Bearer {token}", **headers_for(protocol)}
    if accept is not None:
        headers["Accept"] = accept
    if isinstance(body, str):  # a lone surrogate goes out as the invalid UTF-8 a broken client would send
        body = body.encode("utf-8", "surrogatepass")
    response = client.generic(method, "/mcp", data=body, content_type=content_type, headers=headers)
    assert_sane(response)
    assert_still_serving(token)


# --- JSON-RPC level ------------------------------------------------------------------------------

RPC_METHODS = st.one_of(
    st.sampled_from(sorted(SPEC_CLIENT_METHODS | SPEC_CLIENT_NOTIFICATION_METHODS)),
    st.sampled_from(["server/discover", "tools/call", "resources/read", "initialize", "rpc.discover", "", "/"]),
    TEXT,
)
IDS = st.one_of(
    st.integers(-(2**70), 2**70), TEXT, st.none(), st.booleans(), st.floats(allow_nan=False, allow_infinity=False), JSON
)
KNOWN_PARAMS = st.fixed_dictionaries({}, optional={
    "name": st.one_of(st.sampled_from(list(catalog.TOOLS)), TEXT, JSON),
    "arguments": JSON,
    "uri": st.one_of(st.sampled_from(["lifeos://profile/summary", "lifeos://profile/page/" + "0" * 64 + "/0",
                                      "lifeos://profile/page/x/-1", "file:///etc/passwd", "lifeos://"]), TEXT),
    "cursor": st.one_of(TEXT, JSON),
    "protocolVersion": st.one_of(st.sampled_from(KNOWN_PROTOCOL_VERSIONS), TEXT),
    "capabilities": JSON,
    "clientInfo": JSON,
    "_meta": st.one_of(JSON, st.fixed_dictionaries({PROTOCOL_VERSION_META_KEY: st.one_of(
        st.sampled_from(KNOWN_PROTOCOL_VERSIONS), TEXT)})),
})


# Issue 19 #8: "jsonrpc" was drawn from a few strings and 2.0 and "method" only from strings, so no message
# ever had a list or an object there, and "method": [...] answered 500 for months. Every envelope member
# is now drawn from values of its own type AND from any JSON value (``ENVELOPE_VALUES``), and
# ``test_each_envelope_member_of_any_json_type`` puts each JSON type in each member of calls that work.
ENVELOPE_FIELDS = ("jsonrpc", "id", "method", "params")
JSON_OF_EVERY_TYPE = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False), TEXT,
                               st.lists(JSON, max_size=3), st.dictionaries(TEXT, JSON, max_size=3))
ENVELOPE_VALUES = {
    "jsonrpc": st.one_of(st.sampled_from(["2.0", "2.0", "1.0", "", 2.0]), JSON_OF_EVERY_TYPE),
    "id": st.one_of(IDS, JSON_OF_EVERY_TYPE),
    "method": st.one_of(RPC_METHODS, RPC_METHODS, JSON_OF_EVERY_TYPE,
                        st.sampled_from(sorted(CALL_METHODS)).map(lambda name: [name])),
}


@st.composite
def messages(draw) -> dict:
    message: dict[str, Any] = {}
    if draw(st.booleans()) or draw(st.booleans()):
        message["jsonrpc"] = draw(ENVELOPE_VALUES["jsonrpc"])
    if draw(st.booleans()):
        message["id"] = draw(ENVELOPE_VALUES["id"])
    if draw(st.integers(0, 9)):
        message["method"] = draw(ENVELOPE_VALUES["method"])
    if draw(st.booleans()):
        message["params"] = draw(st.one_of(KNOWN_PARAMS, JSON))
    if not draw(st.integers(0, 9)):
        message.update(draw(st.dictionaries(TEXT, JSON, max_size=2)))
    return message


ASCII = st.text(st.characters(min_codepoint=32, max_codepoint=126), max_size=20)
EXTRA_HEADERS = st.fixed_dictionaries({}, optional={
    "Mcp-Method": st.one_of(st.sampled_from(["tools/call", "tools/list", "resources/read"]), ASCII),
    "Mcp-Name": st.one_of(st.sampled_from(list(catalog.TOOLS)), ASCII),
    "Mcp-Session-Id": ASCII,
    "Last-Event-ID": ASCII,
})


@FUZZ
@given(message=messages(), protocol=PROTOCOL_HEADERS, extra=EXTRA_HEADERS)
def test_malformed_json_rpc_never_breaks_the_server(assistant, message, protocol, extra):
    _, token = assistant
    response = post(dumps(message), token, **headers_for(protocol), **extra)
    assert_sane(response)
    assert_still_serving(token)


WORKING_CALLS = [call("get_user_context"), rpc("resources/read", {"uri": "lifeos://profile/summary"}),
                 rpc("tools/list", {}), rpc("ping")]
JSON_TYPES = {
    "null": st.none(), "boolean": st.booleans(), "integer": st.integers(), "number": st.floats(allow_nan=False),
    "string": TEXT, "array": st.lists(JSON, max_size=3), "object": st.dictionaries(TEXT, JSON, max_size=3),
}


# Every member, every JSON type: chosen by parameters, not left to chance, so no pair goes untried.
@pytest.mark.parametrize("json_type", sorted(JSON_TYPES))
@pytest.mark.parametrize("field", ENVELOPE_FIELDS)
def test_each_envelope_member_of_any_json_type(assistant, field, json_type):
    """Calls that work, with one envelope member replaced by a value of the given JSON type (SPEC M-8)."""
    _, token = assistant

    @settings(FUZZ, max_examples=2)
    @given(base=st.sampled_from(WORKING_CALLS), value=JSON_TYPES[json_type], protocol=PROTOCOL_HEADERS)
    def check(base, value, protocol):
        response = post(dumps({**base, field: value}), token, **headers_for(protocol))
        assert_sane(response)
        if response.status_code != 202:  # 202: taken for a notification (no id), nothing to answer
            assert "json" in response.get("Content-Type", ""), response.content[:300]
        assert_still_serving(token)

    check()


# --- Tool arguments around each input schema -----------------------------------------------------

def assert_tool_call_sane(response) -> dict:
    """A tool call is answered 200 with a result, or 400 with a protocol error: ``arguments`` not an object
    (-32602), or text the SDK's parser of the handshake revisions refuses, such as a lone surrogate (-32700)."""
    body = assert_sane(response)
    if response.status_code == 400:
        assert body["error"]["code"] in (-32602, -32700), body
    else:
        assert response.status_code == 200, (response.status_code, response.content[:500])
    return body


@pytest.mark.parametrize("tool", sorted(catalog.TOOLS))
def test_generated_arguments_per_tool(tool, assistant):
    connection, token = assistant
    before = profile_snapshot(connection=connection).version
    outcomes: dict[str, int] = {}

    @FUZZ
    @given(arguments=arguments_for(catalog.TOOLS[tool].input_schema),
           protocol=st.sampled_from([None, *KNOWN_PROTOCOL_VERSIONS]))
    def check(arguments, protocol):
        message, headers = enveloped(call(tool, arguments), protocol)
        response = post(dumps(message), token, **headers)
        body = assert_tool_call_sane(response)
        if "result" in body:
            result = body["result"]
            key = result["structuredContent"]["code"] if result["isError"] else "ok"
        else:
            key = f"rpc {body['error']['code']}"
        outcomes[key] = outcomes.get(key, 0) + 1
        # SPEC P-7: whatever an assistant sends, nothing it sees changes until the person confirms.
        assert profile_snapshot(connection=connection).version == before
        assert_still_serving(token)

    check()
    # The generator really reaches the tool, not only the protocol layer.
    assert sum(count for key, count in outcomes.items() if not key.startswith("rpc")) >= 5, outcomes


# SPEC M-8: text that JSON allows but databases refuse (NUL; lone surrogates, which have no UTF-8 form)
# is refused as an argument or stored faithfully, never a 500 — in every text argument of every tool.
@pytest.mark.parametrize("text", ["a\x00b", "a\ud800b", "\udfff", "\ud83d", "\ud83d\ude00ok", "\ufeffx"])
@pytest.mark.parametrize("tool,field", [
    (name, field) for name, spec in sorted(catalog.TOOLS.items())
    for field, sub in spec.input_schema.get("properties", {}).items() if "string" in sub.get("type", [])
])
@pytest.mark.parametrize("protocol", [None, *MODERN_PROTOCOL_VERSIONS])  # the SDK parses the two eras differently
def test_unicode_edges_in_every_text_argument(tool, field, text, protocol, assistant):
    connection, token = assistant
    before = profile_snapshot(connection=connection).version
    arguments = {"op": "add", "category": "basic", "label": "Tea", "value": "Green"} if tool == "propose_memory" \
        else {"query": "Label"} if tool == "search_user_context" else {}
    arguments[field] = text
    message, headers = enveloped(call(tool, arguments), protocol)
    response = post(dumps(message), token, **headers)
    assert_tool_call_sane(response)
    assert profile_snapshot(connection=connection).version == before
    assert_still_serving(token)
