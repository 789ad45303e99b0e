"""Every page fits a 390-px phone screen with real data: nothing scrolls sideways (SPEC W-6).

Long URLs, long unbroken Chinese text and long assistant names — in facts,
suggestions, the access history, the assistant's name and hosts — must wrap.
The document's scroll width is measured against the viewport on each page, in
both languages.
"""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from oauth2_provider.models import get_application_model

from apps.consent.services import (
    access_event_record,
    connection_authorize,
    proposal_ignore,
    proposal_submit,
    shares_set,
)
from apps.consent.services.imports import memories_import
from apps.memory.models import Category
from apps.memory.services import fact_archive, fact_create
from tests.e2e.test_pages_flow import LANGUAGES, PASSWORD, PHONE, log_in
from tests.oauth.flow import authorize_url, pkce_pair

pytestmark = [pytest.mark.live, pytest.mark.usefixtures("compiled_catalogs")]

URL = "https://blog.example.org/posts/how_i_organise_my_reading_notes_and_keep_them_useful_for_years_" + "x" * 60
CHINESE = "我每天早上六点起床然后先喝一杯温水再去公园跑步大约五公里回来以后吃早饭" * 4  # no space anywhere
NAME = "Assistant" + "WithAVeryLongSelfChosenNameThatNeverBreaks" * 3
HOST = "callback." + "long-subdomain-" * 8 + "example.org"
REDIRECT = f"https://{HOST}/oauth/callback"


def world(language: str) -> dict:
    user = get_user_model().objects.create_user(username=f"wide-{language}", password=PASSWORD)
    application = get_application_model().objects.create(
        name=NAME, client_type="public", authorization_grant_type="authorization-code",
        redirect_uris=f"{REDIRECT} http://127.0.0.1:33418/callback", hash_client_secret=False, client_secret="",
    )
    connection = connection_authorize(user=user, application=application,
                                      scopes={"profile:read", "profile:propose", "context:search"},
                                      categories=set(Category.shareable()))
    blog = fact_create(owner=user, category="habits", label="Blog", value=f"Blog: {URL}",
                       evidence=f"From {URL}")
    run = fact_create(owner=user, category="preferences", label=CHINESE[:40], value=CHINESE[:300])
    fact_create(owner=user, category="health", label="Clinic", value=URL)
    fact_archive(fact=fact_create(owner=user, category="basic", label=CHINESE[:40], value=f"{URL} {CHINESE}"[:300]))
    shares_set(connection=connection, fact_ids={blog.pk, run.pk})
    access_event_record(connection=connection, tool="search_user_context_" + "z" * 40,  # the column holds 64
                        facts=[(blog.pk, 1), (run.pk, 1)])
    for label, value in (("Blog", f"Blog: {URL}"), (CHINESE[:40], CHINESE[:300])):
        proposal_submit(connection=connection, arguments={
            "op": "add", "category": "habits", "label": label, "value": value, "evidence": f"Said {URL}"})
    decided = proposal_submit(connection=connection, arguments={
        "op": "add", "category": "habits", "label": CHINESE[:40], "value": f"{URL} {CHINESE}"[:300]})
    proposal_ignore(proposal=decided, user=user)  # listed under the earlier suggestions
    # SPEC P-9, P-10: imported memories, one of them changing the "Blog" fact (shown side by side).
    memories_import(user=user, data=f"- Blog: {URL}/new\n- {CHINESE[:200]}\n- Lives in {URL}".encode())
    return {"user": user, "application": application, "connection": connection}


def overflow(page) -> int:
    """How many pixels the document is wider than the viewport (0: it fits)."""
    return page.evaluate("Math.max(0, document.documentElement.scrollWidth - window.innerWidth)")


# SPEC W-6: a 390-px phone never scrolls sideways, on any page, in either language.
@pytest.mark.parametrize("language", list(LANGUAGES))
def test_every_page_fits_a_phone(live_server, transactional_db, browser, artifacts, language):
    data = world(language)
    context = browser.new_context(locale=LANGUAGES[language], viewport=PHONE)
    page = context.new_page()
    page.set_default_timeout(15000)
    base = live_server.url
    page.goto(f"{base}/me/facts/")
    assert overflow(page) == 0, "login page"
    log_in(page, data["user"].username, "/me/facts/")
    _, challenge = pkce_pair()
    pages = {
        "facts": "/me/facts/",
        "facts-search": "/me/facts/?q=Blog",
        "facts-archived": "/me/facts/?state=archived",  # each with its Restore button (SPEC W-2)
        "assistants": "/me/assistants/",
        "assistant": f"/me/assistants/{data['connection'].pk}/",
        # The parts listed on request: earlier suggestions and the facts that cannot be shared.
        "assistant-listed": f"/me/assistants/{data['connection'].pk}/?earlier=1&blocked=1",
        "notices": "/me/notices/",  # the header counts the waiting suggestions on each page (SPEC W-7)
        "import": "/me/facts/import/",
        "consent": authorize_url(data["application"].client_id, challenge, redirect_uri=REDIRECT),
    }
    wide = {}
    for name, path in pages.items():
        page.goto(base + path)
        # Open every disclosure, so what hides inside (edit forms) is measured too.
        page.evaluate("document.querySelectorAll('details').forEach(d => d.open = true)")
        page.screenshot(path=str(artifacts / f"{language}-phone-{name}.png"), full_page=True)
        wide[name] = overflow(page)
    assert page.locator("#assistant-name").inner_text().startswith("Assistant")  # the consent page was shown
    assert wide == {name: 0 for name in pages}, wide
    context.close()
