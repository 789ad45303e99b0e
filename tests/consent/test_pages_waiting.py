"""Nothing waits unseen on the pages: the header's count of waiting suggestions, and the e-mail choices (SPEC W-7).

The count costs every page one statement, whatever the number of suggestions and assistants.
"""

from __future__ import annotations

import pytest
from django.db import connection as db_connection
from django.test.utils import CaptureQueriesContext

from apps.common import clock
from apps.consent.models import NoticeSettings, Proposal
from apps.consent.services import connection_revoke, proposal_ignore, proposal_submit
from tests.consent.factories import make_application, make_connection, make_fact, share
from tests.consent.test_pages_support import (  # noqa: F401  (fixtures)
    anonymous_client,
    client_for,
    compiled_catalogs,
    visible_text,
)

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("compiled_catalogs")]


def suggest(connection, label):
    return proposal_submit(connection=connection, arguments={
        "op": "add", "category": "goals", "label": label, "value": "Something to do"})


def header(body: str) -> str:
    return body.split('<main id="main"', 1)[0]


# SPEC W-7: the header of every page counts the waiting suggestions of all the person's assistants.
@pytest.mark.parametrize("language,one,many", [("en", "1 suggestion waiting", "4 suggestions waiting"),
                                               ("zh-hans", "1 条建议待处理", "4 条建议待处理")])
def test_header_counts_waiting_suggestions_on_every_page(user, language, one, many):
    first = make_connection(user, application=make_application("ChatGPT"))
    client = client_for(user, language)
    assert 'id="waiting-count"' not in client.get("/me/facts/").content.decode()  # nothing waits: no count

    suggest(first, "Run a marathon")
    text = visible_text(header(client.get("/me/facts/").content.decode()))
    assert one in text
    body = client.get("/me/assistants/").content.decode()
    assert f'href="/me/assistants/{first.pk}/#proposals" class="waiting-count"' in body  # where they wait

    second = make_connection(user, application=make_application("Claude"))
    for label in ("Learn Go", "Visit Kyoto", "Sleep earlier"):
        suggest(second, label)
    for url in ("/me/facts/", "/me/facts/?state=archived", "/me/assistants/", f"/me/assistants/{first.pk}/",
                "/me/notices/"):
        body = client.get(url).content.decode()
        assert many in visible_text(header(body)), url
        assert 'href="/me/assistants/" class="waiting-count"' in body, url  # two assistants: the list of them


# SPEC W-7, P-5, J-2: decided, expired (even before the sweep) and revoked assistants' suggestions do not wait.
def test_header_counts_only_what_waits(user, other_user, frozen_clock):
    kept = make_connection(user)
    revoked = make_connection(user, application=make_application("Gone"))
    suggest(kept, "Waiting one")
    proposal_ignore(proposal=suggest(kept, "Ignored one"), user=user)
    Proposal.objects.filter(pk=suggest(kept, "Expired one").pk).update(expires_at=clock.now())
    suggest(revoked, "Of a revoked assistant")
    connection_revoke(connection=revoked)
    suggest(make_connection(other_user), "Someone else's")
    text = visible_text(header(client_for(user).get("/me/facts/").content.decode()))
    assert "1 suggestion waiting" in text


# SPEC W-7: the assistants list shows each assistant's waiting suggestions, from the header's one statement.
def test_assistant_cards_show_their_waiting_count(user):
    chatgpt = make_connection(user, application=make_application("ChatGPT"))
    make_connection(user, application=make_application("Claude"))
    suggest(chatgpt, "One")
    suggest(chatgpt, "Two")
    body = client_for(user).get("/me/assistants/").content.decode()
    card = body.split(f'id="assistant-{chatgpt.pk}"', 1)[1].split("</article>", 1)[0]
    assert "Suggestions waiting" in card and f'href="/me/assistants/{chatgpt.pk}/#proposals">2</a>' in card
    assert body.count("Suggestions waiting") == 1  # the other one has none


# Statements per page before the header's count (measured at the commit that added it), for a person with
# one assistant, a shared fact and a waiting suggestion. The count adds exactly one to each page.
BEFORE_THE_COUNT = {"/me/facts/": 8, "/me/facts/?state=archived": 6, "/me/assistants/": 6, "/me/assistants/{}/": 11}


# SPEC W-7, W-6: one statement more per page, the same for 1 suggestion and assistant as for 40 and 6.
def test_the_count_costs_each_page_one_statement(user):
    connection = make_connection(user)
    share(connection, make_fact(user))
    suggest(connection, "First")
    client = client_for(user)
    client.get("/me/facts/")  # warm the session

    def statements():
        counts, waiting_reads = {}, 0
        for pattern in BEFORE_THE_COUNT:
            with CaptureQueriesContext(db_connection) as queries:
                assert client.get(pattern.format(connection.pk)).status_code == 200
            counts[pattern] = len(queries)
            waiting_reads += sum('"consent_proposal"' in q["sql"] and "GROUP BY" in q["sql"]
                                 and '"consent_proposal"."owner_id"' in q["sql"] for q in queries.captured_queries)
        return counts, waiting_reads

    counts, waiting_reads = statements()
    assert counts == {url: n + 1 for url, n in BEFORE_THE_COUNT.items()}
    assert waiting_reads == len(BEFORE_THE_COUNT)  # the one added statement is the count, once per page
    for number in range(5):
        other = make_connection(user, application=make_application(f"Assistant {number}"))
        for i in range(8):
            suggest(other, f"Suggestion {number}-{i}")
    assert statements() == (counts, waiting_reads)


# SPEC W-7: pages without the header pay nothing: the login page, and the admin.
def test_no_count_where_no_header_shows_it(user, admin_client):
    suggest(make_connection(user), "Waiting")
    with CaptureQueriesContext(db_connection) as queries:
        assert anonymous_client().get("/accounts/login/").status_code == 200
    assert not any('"consent_proposal"' in q["sql"] for q in queries.captured_queries)
    with CaptureQueriesContext(db_connection) as queries:
        assert admin_client.get("/admin/").status_code == 200
    assert not any('"consent_proposal"' in q["sql"] for q in queries.captured_queries)


# SPEC W-7, W-5: the e-mail choices are a plain form: address, digest, notice before expiry; CSRF required.
def test_notice_settings_form(user):
    client = client_for(user)
    page = client.get("/me/notices/")
    body = page.content.decode()
    assert page.status_code == 200 and 'name="digest"' in body and 'name="expiry_notice"' in body
    assert '<option value="off" selected>' in body  # off until the person chooses otherwise
    assert "There is no e-mail address on your account yet" in body
    assert "no-store" in page["Cache-Control"]
    response = client.post("/me/notices/save/", {"email": "alice@example.com", "digest": "weekly",
                                                  "expiry_notice": "on"})
    assert response.status_code == 302 and response["Location"] == "/me/notices/"
    chosen = NoticeSettings.objects.get(user=user)
    assert (chosen.digest, chosen.expiry_notice, chosen.language) == ("weekly", True, "en")
    user.refresh_from_db()
    assert user.email == "alice@example.com"
    assert "There is no e-mail address" not in client.get("/me/notices/").content.decode()

    chinese = client_for(user, "zh-hans")
    assert chinese.post("/me/notices/save/", {"email": "alice@example.com", "digest": "daily"}).status_code == 302
    chosen.refresh_from_db()
    assert (chosen.digest, chosen.expiry_notice, chosen.language) == ("daily", False, "zh-hans")
    assert "简体中文" in chinese.get("/me/notices/").content.decode()


# SPEC W-7: a digest without an address, or a bad address or choice, is refused with the reason; nothing saved.
@pytest.mark.parametrize("data,reason", [
    ({"email": "", "digest": "daily"}, "A digest needs an e-mail address"),
    ({"email": "not an address", "digest": "off"}, "Enter a valid email address"),
    ({"email": "alice@example.com", "digest": "hourly"}, "Select a valid choice"),
])
def test_notice_settings_refused(user, data, reason):
    response = client_for(user).post("/me/notices/save/", data)
    assert response.status_code == 400 and reason in response.content.decode()
    assert not NoticeSettings.objects.filter(user=user).exists()


def test_notice_settings_need_login_and_csrf(user):
    from django.test import Client

    assert anonymous_client().get("/me/notices/").status_code == 302
    browser = Client(enforce_csrf_checks=True)
    browser.force_login(user)
    assert browser.post("/me/notices/save/", {"email": "", "digest": "off"}).status_code == 403
    assert not NoticeSettings.objects.filter(user=user).exists()


# SPEC W-7: the person's download holds their e-mail choices too.
def test_the_download_holds_the_notice_choices(user):
    client = client_for(user)
    assert client.get("/me/export/").json()["notices"] == {
        "email": "", "digest": "off", "expiry_notice": True, "language": "zh-hans"}
    client.post("/me/notices/save/", {"email": "alice@example.com", "digest": "daily"})
    assert client.get("/me/export/").json()["notices"] == {
        "email": "alice@example.com", "digest": "daily", "expiry_notice": False, "language": "en"}
