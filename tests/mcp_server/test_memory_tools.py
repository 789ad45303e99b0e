"""memory_list / memory_search / memory_read: the memory resources over MCP
(SPEC R-11, R-2, A-8, C-6, M-6, M-8, M-9, M-11).

Every test names the rule it holds. The connection of most tests is granted
``memory:todo:read`` only; the person also has an episode, a transcript, a
digest and a voice memo whose text matches the same query, and another person
has a matching todo.
"""

from __future__ import annotations

import json
import secrets
from datetime import UTC, date, datetime, timedelta

import pytest
from django.conf import settings
from jsonschema import Draft202012Validator
from oauth2_provider.models import get_access_token_model, get_application_model, set_token_value

from apps.common import clock
from apps.consent.models import AccessEvent
from apps.consent.services import connection_authorize, connection_narrow
from apps.mcp_server import catalog
from apps.memory import services
from tests.mcp_server.rpc import call, post, rpc, tool_result

pytestmark = pytest.mark.django_db

WORD = "Zebrafish"
T0 = datetime(2026, 6, 1, 9, 0, tzinfo=UTC)
MEMORY_TOOLS = {"memory_list", "memory_search", "memory_read"}
MEMORY_SCOPES = ["memory:episode:read", "memory:calendar:read", "memory:todo:read", "memory:voice_memo:read",
                 "memory:contact:read"]
RESULT_MAX_BYTES = 16_384  # SPEC M-6, fixed here rather than read from the code under test


@pytest.fixture
def records(user, other_user):
    """Records whose text all holds WORD: one of each kind the person has, and another person's todo."""
    transcript = services.transcript_create(
        owner=user, title=f"{WORD} recording", recorded_at=T0,
        segments=[{"speaker": "A", "start_ms": 0, "end_ms": 1000, "text": f"the {WORD} plan, verbatim"}],
    )
    episode = services.episode_create(owner=user, title=f"{WORD} review", occurred_at=T0,
                                      summary=f"Decided the {WORD} plan.", transcript=transcript)
    return {
        "todo": services.todo_create(owner=user, title=f"Buy {WORD} food", notes=f"notes about {WORD}"),
        "episode": episode,
        "transcript": transcript,
        "digest": services.digest_create(owner=user, period="week", period_start=date(2026, 5, 25),
                                         period_end=date(2026, 5, 31), summary=f"A week of {WORD} work.",
                                         episodes=[episode]),
        "intent": services.intent_create(owner=user, action=f"Remind about {WORD}"),
        "memo": services.voice_memo_create(owner=user, title=f"{WORD} memo", text=f"Say {WORD} twice.",
                                           recorded_at=T0),
        "others_todo": services.todo_create(owner=other_user, title=f"{WORD} for someone else"),
    }


@pytest.fixture
def todo_token(connect, issue_token):
    """A connection granted memory:todo:read only (token and connection alike)."""
    connection = connect(scopes=("memory:todo:read",))
    return connection, issue_token("memory:todo:read")


def run(token, name, arguments=None) -> dict:
    return tool_result(post(call(name, arguments), token))


def names(token) -> set[str]:
    response = post(rpc("tools/list"), token)
    assert response.status_code == 200, response.content
    return {tool["name"] for tool in response.json()["result"]["tools"]}


def assert_fits(result) -> None:
    spec_bytes = len(json.dumps(result, ensure_ascii=False, separators=(",", ":")).encode("utf-8"))
    assert spec_bytes <= RESULT_MAX_BYTES


def assert_valid(name: str, result: dict) -> None:
    """The answer matches the tool's published output schema (SPEC M-2)."""
    Draft202012Validator(catalog.tool(name).output_schema).validate(result)


# SPEC: list() shows only the types the scopes open — todo, nothing else.
def test_list_catalog_shows_only_todo(records, todo_token):
    _, token = todo_token
    assert MEMORY_TOOLS <= names(token)
    result = run(token, "memory_list")
    assert_valid("memory_list", result)
    assert [entry["type"] for entry in result["resources"]] == ["todo"]
    assert "/notes" not in {f["path"] for f in result["resources"][0]["fields"]}


# SPEC R-11, C-1: a list of todos holds the person's own todos, never their notes, never another's.
def test_list_todos_are_the_persons_own(records, todo_token):
    _, token = todo_token
    result = run(token, "memory_list", {"resource": "todo"})
    assert_valid("memory_list", result)
    assert [item["ref"] for item in result["items"]] == [f"todo:{records['todo'].pk}"]
    assert "notes" not in result["items"][0]["data"]


# SPEC: naming a type the scopes do not open is refused with 403 naming its scope, before anything runs.
def test_list_of_another_type_needs_its_scope(records, todo_token):
    _, token = todo_token
    response = post(call("memory_list", {"resource": "episode"}), token)
    assert response.status_code == 403
    assert 'scope="memory:episode:read"' in response["WWW-Authenticate"]
    assert response.json()["error"]["data"] == {"code": "insufficient_scope", "scopes": ["memory:episode:read"]}


# SPEC: search finds the todo; never the episode, transcript, digest, intent, memo or another's todo,
# although every one of them holds the word — and not the todo's notes either.
def test_search_finds_only_todos(records, todo_token):
    _, token = todo_token
    result = run(token, "memory_search", {"query": WORD})
    assert_valid("memory_search", result)
    assert [hit["ref"] for hit in result["hits"]] == [f"todo:{records['todo'].pk}"]
    assert result["hits"][0]["snippet"]["path"] == "/title"
    notes_only = run(token, "memory_search", {"query": "notes about"})
    assert notes_only["hits"] == []


# SPEC R-11: digest, transcript, intent and user_profile stay internal whatever the scopes: with all five
# memory scopes, search still reaches only the five publishable types.
def test_search_with_every_memory_scope_never_reaches_internal_types(records, connect, issue_token):
    connect(scopes=MEMORY_SCOPES)
    token = issue_token(" ".join(MEMORY_SCOPES))
    result = run(token, "memory_search", {"query": WORD, "top_k": 50})
    types = {hit["type"] for hit in result["hits"]}
    assert types == {"todo", "episode", "voice_memo"}
    assert f"todo:{records['others_todo'].pk}" not in {hit["ref"] for hit in result["hits"]}
    catalog_types = {entry["type"] for entry in run(token, "memory_list")["resources"]}
    assert catalog_types == {"episode", "calendar", "todo", "voice_memo", "contact"}


# SPEC R-11, R-2 (no oracle): a digest, a transcript, an intent, another person's todo and a todo that does not
# exist are all the same not_found.
def test_read_of_what_may_not_be_read_is_not_found(records, todo_token):
    _, token = todo_token
    answers = []
    for ref in (f"digest:{records['digest'].pk}", f"transcript:{records['transcript'].pk}",
                f"intent:{records['intent'].pk}", f"user_profile:{records['todo'].pk}",
                f"todo:{records['others_todo'].pk}", "todo:999999", "nosuchtype:1"):
        response = post(call("memory_read", {"ref": ref}), token)
        assert response.status_code == 200, (ref, response.content)
        assert response.json()["result"]["isError"] is True
        answers.append(response.json()["result"]["structuredContent"])
    assert all(answer["code"] == "not_found" for answer in answers)
    assert len({answer["message"] for answer in answers}) == 1


# SPEC: the person's own todo reads whole, without its notes.
def test_read_a_todo(records, todo_token):
    _, token = todo_token
    result = run(token, "memory_read", {"ref": f"todo:{records['todo'].pk}"})
    assert_valid("memory_read", result)
    assert result["complete"] is True and result["data"]["title"] == f"Buy {WORD} food"
    assert "notes" not in result["data"]


# SPEC A-8: reading a ref whose type needs a scope the token lacks is 403 naming it (decided before any lookup).
def test_read_of_an_episode_needs_its_scope(records, todo_token):
    _, token = todo_token
    response = post(call("memory_read", {"ref": f"episode:{records['episode'].pk}"}), token)
    assert response.status_code == 403
    assert 'scope="memory:episode:read"' in response["WWW-Authenticate"]


# SPEC M-2, A-8: without any memory scope the tools are not listed, and calling one is 403 insufficient_scope.
def test_without_a_memory_scope_the_tools_are_absent(records, connect, issue_token):
    connect(scopes=("profile:read", "context:search"))
    token = issue_token("profile:read context:search")
    assert not names(token) & MEMORY_TOOLS
    for name, arguments in (("memory_list", {}), ("memory_search", {"query": WORD}),
                            ("memory_read", {"ref": f"todo:{records['todo'].pk}"})):
        response = post(call(name, arguments), token)
        assert response.status_code == 403, name
        assert response.json()["error"]["data"]["code"] == "insufficient_scope"
        assert "memory:todo:read" in response.json()["error"]["data"]["scopes"]
    assert not AccessEvent.objects.exists()


# SPEC C-6: the token still carries the scope, but the connection no longer does: the tools vanish on the very
# next request, and a call is refused.
def test_removing_the_scope_on_the_connection_hides_the_tools_at_once(records, connect, issue_token):
    connection = connect(scopes=("profile:read", "memory:todo:read"))
    token = issue_token("profile:read memory:todo:read")
    assert MEMORY_TOOLS <= names(token)
    connection_narrow(connection=connection, scopes={"profile:read"})
    assert not names(token) & MEMORY_TOOLS
    assert post(call("memory_list", {}), token).status_code == 403


# SPEC R-11, C-6: a token lacking a scope the connection has does not reach that type either (token ∩ connection).
def test_effective_scopes_are_token_and_connection(records, connect, issue_token):
    connect(scopes=("memory:todo:read", "memory:episode:read"))
    token = issue_token("memory:todo:read")
    assert [e["type"] for e in run(token, "memory_list")["resources"]] == ["todo"]
    assert post(call("memory_list", {"resource": "episode"}), token).status_code == 403


# SPEC M-11: answers that carry records record their refs under the tool's name; the catalog and failures
# record nothing.
def test_records_sent_are_recorded(records, todo_token):
    connection, token = todo_token
    ref = f"todo:{records['todo'].pk}"
    run(token, "memory_list")
    run(token, "memory_read", {"ref": f"digest:{records['digest'].pk}"})
    assert not AccessEvent.objects.exists()
    run(token, "memory_list", {"resource": "todo"})
    run(token, "memory_search", {"query": WORD})
    run(token, "memory_read", {"ref": ref})
    events = list(AccessEvent.objects.filter(connection=connection).order_by("id").values_list("tool", "facts"))
    assert events == [("memory_list", [ref]), ("memory_search", [ref]), ("memory_read", [ref])]


# SPEC M-8: layer refusals are tool errors with the M-8 codes, naming the field.
@pytest.mark.parametrize("arguments, code, field", [
    ({"resource": "todo", "filters": {"due_after": "2026-06-01T09:00:00"}}, "invalid_argument", "filters.due_after"),
    ({"resource": "todo", "filters": {"status": "tentative"}}, "invalid_argument", "filters.status"),
    ({"resource": "todo", "cursor": "not-a-cursor"}, "invalid_argument", "cursor"),
    ({"resource": "todo", "filters": {"relation": "friend"}}, "invalid_argument", "filters.relation"),
    ({"filters": {"status": "open"}}, "invalid_argument", "resource"),
    ({"resource": "todo", "bogus": 1}, "invalid_argument", "bogus"),
    # SPEC M-8, R-3: a timestamp outside years 1 … 9999 in UTC is a bad argument, not a JSON-RPC error.
    ({"resource": "todo", "filters": {"due_before": "0001-01-01T00:00:00+01:00"}}, "invalid_argument",
     "filters.due_before"),
    ({"resource": "todo", "filters": {"due_after": "9999-12-31T23:59:59-01:00"}}, "invalid_argument",
     "filters.due_after"),
    # SPEC M-8: text no database stores, refused with its field before the layer sees it.
    ({"resource": "todo", "filters": {"status": "open\x00"}}, "invalid_argument", "filters.status"),
    ({"resource": "todo", "cursor": "abc\x00"}, "invalid_argument", "cursor"),
])
def test_layer_errors_are_m8_codes(records, todo_token, arguments, code, field):
    _, token = todo_token
    result = run(token, "memory_list", arguments)
    assert result["code"] == code and field in result["message"], result


# SPEC M-9: the repeated-failure guard applies: the 4th identical failing read is refused without running.
def test_repeated_failure_guard(records, todo_token):
    _, token = todo_token
    arguments = {"ref": f"digest:{records['digest'].pk}"}
    codes = [run(token, "memory_read", arguments)["code"] for _ in range(4)]
    assert codes == ["not_found", "not_found", "not_found", "repeated_failure"]


# SPEC M-6, R-9: a long record comes in pages of at most 16 KiB each that reassemble to the whole text.
def test_long_record_pages_fit_a_tool_result(user, connect, issue_token):
    text = ("长文本 long text " * 3_000).strip()
    memo = services.voice_memo_create(owner=user, title="Long memo", text=text, recorded_at=T0)
    connect(scopes=("memory:voice_memo:read",))
    token = issue_token("memory:voice_memo:read")
    arguments, pieces, pages = {"ref": f"voice_memo:{memo.pk}"}, [], 0
    while True:
        page = run(token, "memory_read", arguments)
        assert_valid("memory_read", page)
        assert_fits(page)
        pages += 1
        pieces += [f["text"] for f in page["fragments"] if f["path"] == "/text" and "text" in f]
        if page["complete"]:
            break
        arguments["cursor"] = page["next_cursor"]
    assert pages > 2 and "".join(pieces) == text


# SPEC M-6: list pages fit a tool result too, and continue with next_cursor.
def test_list_pages_fit_a_tool_result(user, connect, issue_token):
    for index in range(30):
        services.todo_create(owner=user, title=f"Todo {index} " + "𝄞" * 185)
    connect(scopes=("memory:todo:read",))
    token = issue_token("memory:todo:read")
    seen, arguments = [], {"resource": "todo"}
    while True:
        page = run(token, "memory_list", arguments)
        assert_fits(page)
        seen += [item["ref"] for item in page["items"]]
        if page["next_cursor"] is None:
            break
        arguments["cursor"] = page["next_cursor"]
    assert len(seen) == len(set(seen)) == 30


# SPEC R-10: a cursor issued to one connection is refused to another connection of the same person.
def test_cursor_is_bound_to_the_connection(user, connect, issue_token):
    for index in range(25):
        services.todo_create(owner=user, title=f"Todo {index}")
    connect(scopes=("memory:todo:read",))
    cursor = run(issue_token("memory:todo:read"), "memory_list", {"resource": "todo"})["next_cursor"]
    assert cursor
    second = get_application_model().objects.create(
        name="Second assistant", client_type="public", authorization_grant_type="authorization-code",
        redirect_uris="http://127.0.0.1:9998/callback")
    connection_authorize(user=user, application=second, scopes={"memory:todo:read"}, categories=set())
    raw = secrets.token_urlsafe(32)
    token = get_access_token_model()(user=user, application=second, scope="memory:todo:read",
                                     expires=clock.now() + timedelta(minutes=5), resource=[settings.MCP_RESOURCE_URL])
    set_token_value(token, raw)
    token.save()
    assert run(raw, "memory_list", {"resource": "todo"})["items"]  # the second connection itself is fine
    result = run(raw, "memory_list", {"resource": "todo", "cursor": cursor})
    assert result["code"] == "invalid_argument" and "cursor" in result["message"]


# SPEC M-1, M-2: the official SDK client lists and calls the tools, validating each answer against its schema.
def test_sdk_client(records, todo_token, mcp):
    _, token = todo_token
    client = mcp(token)
    assert MEMORY_TOOLS <= set(client.tool_names())
    listed = client.call("memory_list", {"resource": "todo"})
    assert not listed.is_error and listed.structured_content["items"][0]["ref"] == f"todo:{records['todo'].pk}"
    found = client.call("memory_search", {"query": WORD})
    assert [hit["ref"] for hit in found.structured_content["hits"]] == [f"todo:{records['todo'].pk}"]
    refused = client.call("memory_read", {"ref": f"digest:{records['digest'].pk}"})
    assert refused.is_error and refused.structured_content["code"] == "not_found"
