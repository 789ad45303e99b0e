"""The person's pages render for their owner, in both languages, and only for them (SPEC W-1 … W-5, I-3, I-5)."""

from __future__ import annotations

import pytest
from django.db import connection as db_connection
from django.test.utils import CaptureQueriesContext

from apps.common import clock
from apps.consent.services import access_event_record
from apps.memory.services import fact_update
from apps.oauth.models import TokenFamily
from apps.ops.models import ServiceStatus
from tests.consent.factories import make_application, make_connection, make_fact, share
from tests.consent.test_pages_support import (  # noqa: F401  (fixtures)
    anonymous_client,
    client_for,
    compiled_catalogs,
    visible_text,
)

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("compiled_catalogs")]


@pytest.fixture
def connection(user):
    return make_connection(user)


def page_urls(connection):
    return ["/me/facts/", "/me/assistants/", f"/me/assistants/{connection.pk}/"]


# SPEC I-5, W-4: every page renders for its owner in both languages.
@pytest.mark.parametrize("language,expected", [
    ("zh-CN,zh;q=0.9", ["个人信息", "已连接的助手", "基本信息"]),
    (None, ["个人信息", "已连接的助手"]),  # LANGUAGE_CODE is zh-hans
    ("en-US,en;q=0.9", ["Personal info", "Connected assistants", "Basic information"]),
])
def test_pages_render_in_both_languages(user, connection, language, expected):
    make_fact(user, category="basic", label="Name", value="Alice")
    client = client_for(user, language)
    for url in page_urls(connection):
        response = client.get(url)
        assert response.status_code == 200, url
        body = response.content.decode()
        for text in expected[:2]:
            assert text in body, (url, text)
    assert expected[-1] in client.get("/me/facts/").content.decode()


# SPEC W-4: nothing on the pages is left in English when Chinese is chosen.
ALLOWED_ASCII = {"LifeOS", "Memory", "UTC", "JSON", "English", "alice", "profile", "read", "propose", "correct",
                 "context", "search", "get_user_context",
                 # scope names shown beside their plain words: memory:<type>:read (SPEC R-11)
                 "memory", "episode", "calendar", "todo", "voice_memo", "contact"}


def test_pages_in_chinese_have_no_english_left(user):
    import re

    connection = make_connection(user, application=make_application("写作助手"))
    fact = make_fact(user, label="茶", value="下午喝绿茶", evidence="自己说的")
    guess = make_fact(user, label="猫", value="可能喜欢猫", certainty="guess", evidence="")
    make_fact(user, category="health", label="过敏", value="花生", evidence="")
    share(connection, fact)
    fact_update(fact=fact, value="乌龙茶")
    access_event_record(connection=connection, tool="get_user_context", facts=[(fact.pk, 1), (guess.pk, 1), (99, 1)])
    ServiceStatus.objects.create(pk=1, state="maintenance", message="维护到六点")
    client = client_for(user, "zh-CN")
    for url in page_urls(connection):
        text = visible_text(client.get(url).content.decode())
        assert "分享" in text and "未验证" in text or url == "/me/facts/"
        left = set(re.findall(r"[A-Za-z][A-Za-z_]{2,}", text)) - ALLOWED_ASCII
        assert not left, (url, left)
    text = visible_text(client.get(f"/me/assistants/{connection.pk}/").content.decode())
    assert "分享后已更改" in text and "撤销" in text


# SPEC W-4: the switch overrides the browser's language.
def test_language_switch_overrides_accept_language(user, connection):
    client = client_for(user, "zh-CN")
    assert "个人信息" in client.get("/me/facts/").content.decode()
    response = client.post("/i18n/setlang/", {"language": "en", "next": "/me/facts/"})
    assert response.status_code == 302 and response["Location"] == "/me/facts/"
    body = client.get("/me/facts/").content.decode()
    assert "Personal info" in body and "个人信息" not in body


def test_base_has_nav_user_logout_and_language_switch(user, connection):
    body = client_for(user).get("/me/facts/").content.decode()
    assert 'href="/me/facts/"' in body and 'href="/me/assistants/"' in body
    assert user.username in body
    assert 'action="/accounts/logout/"' in body and 'action="/i18n/setlang/"' in body
    assert body.count('name="csrfmiddlewaretoken"') >= 2


# SPEC I-3: anonymous visitors go to the login page.
@pytest.mark.parametrize("path", [
    "/me/facts/", "/me/assistants/", "/me/assistants/1/", "/me/export/",
])
def test_anonymous_get_redirects_to_login(path):
    response = anonymous_client().get(path)
    assert response.status_code == 302
    assert response["Location"].startswith("/accounts/login/?next=")


# SPEC I-3, W-1: a logged-in person sent to the login page goes on to the pages, whatever its ``next`` says —
# even the login page itself, which Django's view turns into an error.
@pytest.mark.parametrize("next_url", ["/accounts/login/", ""])
def test_login_page_sends_a_logged_in_person_on(user, next_url):
    response = client_for(user).get("/accounts/login/", {"next": next_url} if next_url else {})
    assert response.status_code == 302 and response["Location"] == "/me/facts/"


@pytest.mark.parametrize("path", [
    "/me/facts/add/", "/me/facts/1/edit/", "/me/facts/1/archive/", "/me/facts/1/sensitive/",
    "/me/assistants/1/shares/", "/me/assistants/1/narrow/", "/me/assistants/1/revoke/",
])
def test_anonymous_post_redirects_to_login(path):
    response = anonymous_client().post(path, {"share": "1"})
    assert response.status_code == 302
    assert response["Location"].startswith("/accounts/login/")


# SPEC W-5: actions are POST only.
@pytest.mark.parametrize("path", ["/me/facts/add/", "/me/assistants/{pk}/shares/", "/me/assistants/{pk}/revoke/"])
def test_actions_refuse_get(user, connection, path):
    assert client_for(user).get(path.format(pk=connection.pk)).status_code == 405


def test_action_without_csrf_token_is_refused(user, connection):
    from django.test import Client

    client = Client(enforce_csrf_checks=True)
    client.force_login(user)
    assert client.post(f"/me/assistants/{connection.pk}/revoke/").status_code == 403
    connection.refresh_from_db()
    assert connection.revoked_at is None


def test_every_form_on_the_pages_posts_with_csrf(user, connection):
    share(connection, make_fact(user))
    client = client_for(user)
    for url in page_urls(connection):
        body = client.get(url).content.decode()
        forms, posts = body.count("<form "), body.count('method="post"')
        # The only GET form is a list's filter, which changes nothing (SPEC W-6).
        assert forms and posts + body.count('method="get" action="/me/facts/" class="filter-form"') == forms, url
        assert body.count('name="csrfmiddlewaretoken"') == posts, url


# SPEC I-5: the list links to each connection's page.
def test_assistants_list_shows_cards(user, connection):
    fact = make_fact(user)
    share(connection, fact)
    body = client_for(user).get("/me/assistants/").content.decode()
    assert f'href="/me/assistants/{connection.pk}/"' in body
    assert "Helpful Assistant" in body and "unverified" in body
    assert "Read the facts you choose to share with it" in body  # scopes in plain words
    assert "Work and study" in body and "Connected since" in body and "Never" in body


def test_revoked_connection_is_listed_apart_and_read_only(user, connection):
    client = client_for(user)
    client.post(f"/me/assistants/{connection.pk}/revoke/")
    body = client.get("/me/assistants/").content.decode()
    assert "Revoked" in body and "No assistant is connected." in body
    page = client.get(f"/me/assistants/{connection.pk}/").content.decode()
    assert 'name="share"' not in page and "cannot be recalled" in page


# SPEC M-10: the service notice on every /me/ page while not open.
def test_service_notice_on_every_page(user, connection):
    client = client_for(user)
    assert "service-notice" not in client.get("/me/facts/").content.decode()
    ServiceStatus.objects.create(pk=1, state="maintenance", message="Back at 18:00.")
    for url in page_urls(connection):
        body = client.get(url).content.decode()
        assert "service-notice" in body and "Back at 18:00." in body and "maintenance" in body


# A refresh-token replay revoked a token family: the page says so, with its time.
def test_security_notice_after_refresh_replay(user, connection, frozen_clock):
    import uuid

    client = client_for(user)
    assert 'id="security"' not in client.get(f"/me/assistants/{connection.pk}/").content.decode()
    TokenFamily.objects.create(family=uuid.uuid4(), user=user, application=connection.application,
                               consented_at=clock.now(), revoked_at=clock.now(), revoked_reason="refresh_replay")
    other_app = make_application("Other")
    TokenFamily.objects.create(family=uuid.uuid4(), user=user, application=other_app,
                               consented_at=clock.now(), revoked_at=clock.now(), revoked_reason="revoked")
    body = client.get(f"/me/assistants/{connection.pk}/").content.decode()
    assert 'id="security"' in body and "2026-06-01 09:00 UTC" in body
    assert "Security notice" in client.get("/me/assistants/").content.decode()


# SPEC D-8: history fact by fact, with the version sent, today's labels, deleted/changed marked.
def test_access_history_resolves_facts(user, other_user, connection):
    kept, changed = make_fact(user, label="Tea"), make_fact(user, label="Job", category="work_study")
    foreign = make_fact(other_user, label="Bob's secret")
    share(connection, kept, changed)
    fact_update(fact=changed, label="Career")
    access_event_record(connection=connection, tool="search_user_context",
                        facts=[(kept.pk, 1), (changed.pk, 1), (foreign.pk, 1), (987654, 2)])
    body = client_for(user).get(f"/me/assistants/{connection.pk}/").content.decode()
    assert "search_user_context" in body and "Search in your shared facts" in body
    assert "Tea" in body and "Career" in body and "changed since — now version 2" in body
    assert "Deleted fact #987654" in body
    assert "Bob&#x27;s secret" not in body and "Bob's secret" not in body  # never another person's label


# The connection page costs a fixed number of queries, however many facts there are.
def test_connection_page_queries_do_not_grow_with_facts(user, connection):
    from apps.consent.services import proposal_submit

    def measure(count):
        facts = [make_fact(user, label=f"Fact {count}-{i}") for i in range(count)]
        facts += [make_fact(user, category="health", label=f"Health {count}-{i}") for i in range(count)]
        share(connection, *[f for f in facts if f.category != "health"][: count // 2 or 1])
        access_event_record(connection=connection, tool="get_user_context", facts=[(f.pk, 1) for f in facts])
        for i in range(count):
            proposal_submit(connection=connection, arguments={
                "op": "update", "target_fact_id": str(facts[0].pk), "value": f"New value {count}-{i}"})
            proposal_submit(connection=connection, arguments={
                "op": "add", "category": "goals", "label": f"Goal {count}-{i}", "value": "Something to do"})
        client = client_for(user)
        client.get(f"/me/assistants/{connection.pk}/")  # warm the session
        with CaptureQueriesContext(db_connection) as queries:
            assert client.get(f"/me/assistants/{connection.pk}/").status_code == 200
        return len(queries)

    small = measure(3)
    large = measure(30)
    assert small == large, (small, large)


def test_facts_page_queries_do_not_grow_with_facts(user, connection):
    def measure(count):
        for i in range(count):
            share(connection, make_fact(user, label=f"F{count}-{i}"))
        client = client_for(user)
        with CaptureQueriesContext(db_connection) as queries:
            assert client.get("/me/facts/").status_code == 200
        return len(queries)

    assert measure(2) == measure(20)
