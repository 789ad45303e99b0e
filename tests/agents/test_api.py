"""The internal API over HTTP: agent authentication, runs, strict bodies, OpenAPI (SPEC R-2 … R-4, R-9)."""

import base64
import json
import secrets
from datetime import timedelta

import pytest
from django.utils import timezone
from oauth2_provider.models import get_access_token_model, get_application_model

from apps.agents.models import RunSnapshot
from apps.agents.services import policy_create
from apps.memory import services
from tests.agents.builders import OPS, agent_token, make_agent
from tests.retrieval.layer.builders import T0

pytestmark = pytest.mark.django_db

PAGE_BYTES = 65_536  # SPEC R-9: fixed by the spec, not read from the code under test


def make_agent_for(application):
    return policy_create(agent_id="planner", name="Planner", application=application,
                         grants={"todo": {"operations": OPS, "fields": ["*"]}})


class Agent:
    def __init__(self, client, token):
        self.client, self.headers = client, {"HTTP_AUTHORIZATION": f"Bearer {token}"}

    def post(self, url, body, raw: bytes | None = None, content_type="application/json"):
        data = raw if raw is not None else json.dumps(body)
        return self.client.post(url, data=data, content_type=content_type, **self.headers)

    def start(self, user, thread="thread-1"):
        response = self.post("/internal/runs", {"thread_id": thread, "user": user.pk})
        assert response.status_code == 201, response.content
        return response.json()["run_id"]


@pytest.fixture
def agent(client):
    policy = make_agent()
    return Agent(client, agent_token(policy))


def _error(response):
    return response.status_code, response.json()["error"]["code"], response.json()["error"].get("pointer")


def test_a_run_lists_searches_reads_and_ends(agent, user):  # SPEC
    todo = services.todo_create(owner=user, title="买机票 book the flights", notes="window seat")
    run = agent.start(user)
    base = f"/internal/runs/{run}"
    catalog = agent.post(f"{base}/list", {"thread_id": "thread-1"}).json()
    assert len(catalog["resources"]) == 9
    page = agent.post(f"{base}/list", {"thread_id": "thread-1", "resource": "todo"}).json()
    assert [item["ref"] for item in page["items"]] == [f"todo:{todo.pk}"]
    hits = agent.post(f"{base}/search", {"thread_id": "thread-1", "query": "机票"}).json()["hits"]
    assert [hit["ref"] for hit in hits] == [f"todo:{todo.pk}"]
    read = agent.post(f"{base}/read", {"thread_id": "thread-1", "ref": f"todo:{todo.pk}"})
    assert read["Content-Type"] == "application/json" and read.json()["data"]["notes"] == "window seat"
    ended = agent.post(f"{base}/end", {"thread_id": "thread-1"})
    assert ended.status_code == 200 and ended.json()["ended_at"]
    assert _error(agent.post(f"{base}/read", {"thread_id": "thread-1", "ref": f"todo:{todo.pk}"})) == (
        403, "run_ended", None)


def test_run_refusals_over_http(agent, client, user):  # SPEC R-4
    run = agent.start(user)
    assert _error(agent.post(f"/internal/runs/{run}/list", {"thread_id": "other"})) == (
        403, "run_mismatch", "/thread_id")
    missing = "/internal/runs/00000000-0000-4000-8000-000000000000/list"
    assert _error(agent.post(missing, {"thread_id": "thread-1"}))[:2] == (403, "run_missing")
    other = Agent(client, agent_token(make_agent("summarizer")))
    assert _error(other.post(f"/internal/runs/{run}/list", {"thread_id": "thread-1"}))[:2] == (403, "run_mismatch")
    assert _error(agent.post("/internal/runs", {"thread_id": "t", "user": 10**9})) == (400, "invalid_value", "/user")


def test_bodies_are_parsed_strictly(agent, user):  # SPEC R-3
    run = agent.start(user)
    url = f"/internal/runs/{run}/search"
    assert _error(agent.post(url, None, raw=b'{"thread_id":"thread-1","query":"a","query":"b"}')) == (
        400, "duplicate_key", "/query")
    assert _error(agent.post(url, {"thread_id": "thread-1", "query": "a", "limit": 3})) == (
        400, "unknown_key", "/limit")
    assert _error(agent.post(url, {"thread_id": None, "query": "a"})) == (400, "null_not_allowed", "/thread_id")
    assert _error(agent.post(url, {"query": "a"})) == (400, "missing_key", "/thread_id")
    assert _error(agent.post(url, None, raw=b"query=a", content_type="application/x-www-form-urlencoded"))[:2] == (
        415, "unsupported_media_type")
    assert _error(agent.post(url, None, raw=b"{")) == (400, "malformed_json", "")
    listing = f"/internal/runs/{run}/list"
    assert _error(agent.post(listing, {"thread_id": "thread-1", "resource": "todo",
                                       "filters": {"due_before": "tomorrow"}})) == (
        400, "invalid_timestamp", "/filters/due_before")


# SPEC R-3: an instant that exists only before year 1 or after year 9999 in UTC is a refused timestamp on
# every database, not an overflow in SQLite's adapter (a 500) while PostgreSQL answers.
@pytest.mark.parametrize("moment", ["0001-01-01T00:00:00+01:00", "9999-12-31T23:59:59-01:00"])
def test_timestamps_outside_the_representable_range_are_refused(agent, user, moment):
    run = agent.start(user)
    response = agent.post(f"/internal/runs/{run}/list", {"thread_id": "thread-1", "resource": "todo",
                                                         "filters": {"due_before": moment}})
    assert _error(response) == (400, "invalid_timestamp", "/filters/due_before")


# SPEC R-3: text JSON can carry but no database stores (a lone surrogate, a NUL) is refused with its
# pointer on both databases alike — never a 500, never a 503 that blames an outage, never stored.
@pytest.mark.parametrize("text", ["\ud800", "a\udfffb", "a\x00", "\x00"])
def test_unstorable_text_is_refused_with_its_pointer(agent, user, text):
    assert _error(agent.post("/internal/runs", {"thread_id": text, "user": user.pk})) == (
        400, "invalid_value", "/thread_id")
    assert not RunSnapshot.objects.exists()
    run = agent.start(user)
    base = f"/internal/runs/{run}"
    assert _error(agent.post(f"{base}/search", {"thread_id": "thread-1", "query": text})) == (
        400, "invalid_value", "/query")
    assert _error(agent.post(f"{base}/list", {"thread_id": "thread-1", "resource": "contact",
                                              "filters": {"relation": text}})) == (
        400, "invalid_value", "/filters/relation")
    assert _error(agent.post(f"{base}/list", {"thread_id": text})) == (400, "invalid_value", "/thread_id")


def test_a_long_read_pages_within_the_byte_limit_over_http(agent, user):  # SPEC R-9
    memo = services.voice_memo_create(owner=user, title="diary", text="日记" * 100_000, recorded_at=T0)
    run = agent.start(user)
    body, text = {"thread_id": "thread-1", "ref": f"voice_memo:{memo.pk}"}, ""
    while True:
        response = agent.post(f"/internal/runs/{run}/read", body)
        assert response.status_code == 200 and len(response.content) <= PAGE_BYTES
        page = response.json()
        text += "".join(f.get("text", "") for f in page["fragments"] if f["path"] == "/text")
        if page["complete"]:
            break
        body["cursor"] = page["next_cursor"]
    assert text == memo.text


def test_an_agent_gets_its_token_by_the_client_credentials_grant(client, user):  # internal agent identity
    application = get_application_model().objects.create(
        name="planner", client_type="confidential", authorization_grant_type="client-credentials",
        client_secret="a-long-client-secret", hash_client_secret=True)
    make_agent_for(application)
    basic = base64.b64encode(f"{application.client_id}:a-long-client-secret".encode()).decode()
    issued = client.post("/oauth/token/", {"grant_type": "client_credentials"}, HTTP_AUTHORIZATION=f"Basic {basic}")
    assert issued.status_code == 200 and "refresh_token" not in issued.json()
    assert issued.json()["scope"] == "internal:agents"
    started = client.post("/internal/runs", json.dumps({"thread_id": "t", "user": user.pk}),
                          content_type="application/json", HTTP_AUTHORIZATION=f"Bearer {issued.json()['access_token']}")
    assert started.status_code == 201 and started.json()["agent_id"] == "planner"


def test_only_an_agents_client_credentials_token_is_accepted(client, user):  # internal agent identity
    policy = make_agent()
    url = "/internal/runs"
    body = json.dumps({"thread_id": "t", "user": user.pk})
    assert client.post(url, body, content_type="application/json").status_code == 401
    assert client.post(url, body, content_type="application/json",
                       HTTP_AUTHORIZATION="Bearer not-a-token").status_code == 401
    expired = agent_token(policy, expires_in=-1)
    assert client.post(url, body, content_type="application/json",
                       HTTP_AUTHORIZATION=f"Bearer {expired}").status_code == 401
    good = agent_token(policy)
    assert client.post(f"{url}?access_token={good}", body, content_type="application/json").status_code == 401
    # An assistant's token (a public client, a person's consent) is not an agent's.
    assistant = get_application_model().objects.create(
        name="assistant", client_type="public", authorization_grant_type="authorization-code",
        redirect_uris="http://127.0.0.1:9/cb", client_secret="", hash_client_secret=False)
    raw = secrets.token_urlsafe(32)
    get_access_token_model().objects.create(token=raw, application=assistant, user=user, scope="profile:read",
                                            expires=timezone.now() + timedelta(minutes=5))
    assert client.post(url, body, content_type="application/json",
                       HTTP_AUTHORIZATION=f"Bearer {raw}").status_code == 401
    # A confidential client that is no registered agent neither.
    stranger = get_application_model().objects.create(name="x", client_type="confidential",
                                                      authorization_grant_type="client-credentials")
    raw = secrets.token_urlsafe(32)
    get_access_token_model().objects.create(token=raw, application=stranger, scope="",
                                            expires=timezone.now() + timedelta(minutes=5))
    assert client.post(url, body, content_type="application/json",
                       HTTP_AUTHORIZATION=f"Bearer {raw}").status_code == 401
    assert client.post(url, body, content_type="application/json",
                       HTTP_AUTHORIZATION=f"Bearer {good}").status_code == 201


def test_the_api_is_described_by_openapi(agent, client):
    schema = agent.client.get("/internal/openapi.json", **agent.headers).json()
    assert schema["openapi"] == "3.1.0"
    assert set(schema["paths"]) == {"/runs", "/runs/{run_id}/list", "/runs/{run_id}/search",
                                    "/runs/{run_id}/read", "/runs/{run_id}/end"}
    search = schema["paths"]["/runs/{run_id}/search"]["post"]["requestBody"]["content"]["application/json"]["schema"]
    assert search["additionalProperties"] is False and len(search["properties"]["resource"]["enum"]) == 9
    validator = pytest.importorskip("openapi_spec_validator")
    validator.validate(schema)
    assert client.get("/internal/openapi.json").status_code == 401


# Internal agent identity: an agent's token needs internal:agents; the same client's token without it is refused.
def test_an_agent_token_needs_the_agents_scope(client, user):
    policy = make_agent()
    url, body = "/internal/runs", json.dumps({"thread_id": "t", "user": user.pk})
    for scope in ("", "profile:read", "memory:todo:read"):
        raw = agent_token(policy, scope=scope)
        response = client.post(url, body, content_type="application/json", HTTP_AUTHORIZATION=f"Bearer {raw}")
        assert response.status_code == 401, scope
    raw = agent_token(policy)
    assert client.post(url, body, content_type="application/json",
                       HTTP_AUTHORIZATION=f"Bearer {raw}").status_code == 201


# SPEC: an agent's token (no person) never works at /mcp, not even for the memory tools.
def test_an_agents_token_is_refused_at_mcp(client):
    application = get_application_model().objects.create(
        name="planner", client_type="confidential", authorization_grant_type="client-credentials",
        client_secret="a-long-client-secret", hash_client_secret=True)
    make_agent_for(application)
    basic = base64.b64encode(f"{application.client_id}:a-long-client-secret".encode()).decode()
    issued = client.post("/oauth/token/", {"grant_type": "client_credentials"}, HTTP_AUTHORIZATION=f"Basic {basic}")
    token = issued.json()["access_token"]
    message = {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
               "params": {"name": "memory_list", "arguments": {}}}
    response = client.post("/mcp", json.dumps(message), content_type="application/json",
                           HTTP_AUTHORIZATION=f"Bearer {token}", HTTP_ACCEPT="application/json, text/event-stream")
    assert response.status_code == 401
    assert response.json()["error"]["data"]["code"] == "invalid_token"
