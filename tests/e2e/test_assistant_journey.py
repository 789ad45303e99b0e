"""The person's pages and an assistant together, once in Simplified Chinese and once in English.

The person logs in on the consent page an assistant sent them to and approves
it; shares three facts; edits one (the assistant loses it until it is confirmed
again); narrows a category; reviews the assistant's suggestions (edit and
confirm, ignore, a conflict); revokes it. After each step the assistant — the
official MCP SDK client with the token it obtained through that consent — reads
over real HTTP what it may now see. Screenshots of every page go to
test-artifacts/e2e/<database>/.
"""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model

from apps.consent.models import Connection, Proposal
from apps.memory.models import Fact
from apps.memory.services import fact_create
from tests.e2e.assistant import mcp_probe
from tests.e2e.test_pages_flow import LANGUAGES, PASSWORD, SAVE, submit, t

pytestmark = [pytest.mark.live, pytest.mark.usefixtures("compiled_catalogs")]


def facts_of(user) -> dict[str, Fact]:
    made = {
        "tea": fact_create(owner=user, category="preferences", label="Tea", value="Green tea in the afternoon",
                           evidence="Mentioned it twice"),
        "run": fact_create(owner=user, category="habits", label="Morning run", value="5 km before work"),
        "job": fact_create(owner=user, category="work_study", label="Job", value="Librarian at the city library"),
        "town": fact_create(owner=user, category="basic", label="Hometown", value="Hangzhou"),
        "allergy": fact_create(owner=user, category="health", label="Allergy", value="Peanuts"),
    }
    return made


def edit_fact(person, fact: Fact, value: str) -> None:
    """On Personal info: open the fact's edit form, change its value, save (SPEC W-2)."""
    page = person.page
    card = page.locator(f"#fact-{fact.pk}")
    card.locator("details.fact-edit > summary").click()
    card.locator('textarea[name="value"]').fill(value)
    submit(page, f"/me/facts/{fact.pk}/edit/")
    person.keep()


@pytest.mark.parametrize("language", list(LANGUAGES))
def test_person_and_assistant_journey(assistants, people, public_origin, transactional_db, language):
    user = get_user_model().objects.create_user(username=f"journey-{language}", password=PASSWORD)
    facts = facts_of(user)
    person = people(user.username, locale=LANGUAGES[language], prefix=f"journey-{language}")
    page = person.page
    assistant = assistants(person.consent, name="Journey Assistant")

    def consent_page(page):
        # SPEC W-4, A-7: the consent page speaks the browser's language and calls the name unverified.
        assert page.locator("html").get_attribute("lang") == language
        assert page.locator("h1").first.inner_text() == t(language, "Connect an assistant?")
        assert t(language, "unverified") in page.locator("#consent-form").locator("..").inner_text()

    person.on_consent_page = consent_page

    # SPEC W-1, I-3, A-7, C-3: the assistant's first call sends the person to log in and approve; the approval
    # alone shares nothing.
    assert assistant.visible() == {}
    assert len(assistant.authorizations) == 1
    connection = Connection.objects.get(user=user)
    base = f"/me/assistants/{connection.pk}"

    # SPEC I-5, W-3, C-1, C-8: the person shares three facts on the assistant's page; the assistant sees
    # exactly those three, as they are now, and no evidence.
    person.open("/me/assistants/")
    person.shot("assistants")
    with page.expect_navigation():
        page.locator(f'#assistant-{connection.pk} a[href="{base}/"]').first.click()
    assert page.url == f"{public_origin}{base}/"
    for key in ("tea", "run", "job"):
        page.locator(f'input[name="share"][value="{facts[key].pk}"]').check()
    assert page.locator(f'input[name="share"][value="{facts["allergy"].pk}"]').count() == 0  # health: never
    submit(page, f"{base}/shares/", SAVE)
    person.keep()
    person.shot("assistant-shared")
    overview = assistant.context()
    assert {fact["label"]: fact["value"] for fact in overview["facts"]} == {
        "Tea": "Green tea in the afternoon", "Morning run": "5 km before work",
        "Job": "Librarian at the city library"}
    assert all(set(fact) == {"id", "category", "label", "value", "updated_at"} for fact in overview["facts"])
    assert "Mentioned it twice" not in str(overview)

    # SPEC C-2, W-2: editing a shared fact marks it "changed since shared" and takes it from the assistant.
    person.open("/me/facts/")
    edit_fact(person, facts["tea"], "Oolong in the afternoon")
    assert page.locator(f"#fact-{facts['tea'].pk} .share-changed").is_visible()
    person.shot("facts-changed")
    assert assistant.visible() == {"Morning run": "5 km before work", "Job": "Librarian at the city library"}

    # SPEC C-2, W-3: on the assistant's page it waits to be confirmed again; ticking it shares the new version.
    person.open(f"{base}/")
    changed = page.locator(f"#share-{facts['tea'].pk}").inner_text()
    assert t(language, "Changed since shared — confirm again") in changed
    assert not page.locator(f'input[name="share"][value="{facts["tea"].pk}"]').is_checked()
    person.shot("assistant-changed")
    page.locator(f'input[name="share"][value="{facts["tea"].pk}"]').check()
    submit(page, f"{base}/shares/", SAVE)
    person.keep()
    assert assistant.visible()["Tea"] == "Oolong in the afternoon"

    # SPEC C-5, C-6: narrowing a category takes its facts away on the very next request.
    page.locator('input[name="categories"][value="work_study"]').uncheck()
    submit(page, f"{base}/narrow/")
    person.keep()
    assert page.locator('input[name="categories"][value="work_study"]').count() == 0  # cannot be ticked back here
    person.shot("assistant-narrowed")
    assert assistant.visible() == {"Tea": "Oolong in the afternoon", "Morning run": "5 km before work"}

    # SPEC P-1, P-4, P-7: the assistant suggests; nothing of it reaches it before the person decides.
    marathon = assistant.propose(op="add", category="goals", label="Marathon", value="Run a marathon in 2027",
                                 evidence="Said they signed up for a training plan")
    coffee = assistant.propose(op="add", category="preferences", label="Coffee", value="Flat white",
                               evidence="Ordered one during the call")
    stronger = assistant.propose(op="update", target_fact_id=str(facts["tea"].pk), value="Oolong, very strong",
                                 evidence="Asked for it stronger")
    assert assistant.visible() == {"Tea": "Oolong in the afternoon", "Morning run": "5 km before work"}

    person.open(f"{base}/")
    for proposal_id in (marathon, coffee, stronger):
        assert page.locator(f"#proposal-{proposal_id}").is_visible()
    assert "Run a marathon in 2027" in page.locator(f"#proposal-{marathon}").inner_text()
    person.shot("proposals")

    # SPEC P-6: edit the wording, share it, confirm; the assistant sees the person's wording.
    card = page.locator(f"#proposal-{marathon}")
    card.locator("details.proposal-edit > summary").click()
    page.fill(f"#proposal{marathon}-value", "Run the Hangzhou marathon in 2027")
    page.locator(f"#proposal{marathon}-share").check()
    with page.expect_navigation():
        card.locator('button[name="action"][value="confirm"]').click()
    person.keep()
    assert Proposal.objects.get(pk=marathon).status == "confirmed"
    assert assistant.visible()["Marathon"] == "Run the Hangzhou marathon in 2027"

    # SPEC P-6, P-7: ignore one; nothing is saved, nothing reaches the assistant.
    submit(page, f"/me/proposals/{coffee}/ignore/")
    person.keep()
    assert Proposal.objects.get(pk=coffee).status == "ignored"
    assert not Fact.objects.filter(owner=user, label="Coffee").exists()
    assert "Coffee" not in assistant.visible()

    # SPEC P-6: the person edits the fact the update was based on, then confirms the update: conflict, shown,
    # and the person's latest wording is not overwritten.
    person.open("/me/facts/")
    edit_fact(person, facts["tea"], "Jasmine tea in the afternoon")
    person.open(f"{base}/")
    submit(page, f"/me/proposals/{stronger}/confirm/")
    person.keep()
    assert Proposal.objects.get(pk=stronger).status == "conflict"
    badge = page.locator(f"#proposal-{stronger} .badge-state-conflict")
    assert badge.text_content().strip() == t(language, "Not applied: the fact changed")
    assert page.locator(".messages .banner-warning").is_visible()
    facts["tea"].refresh_from_db()
    assert facts["tea"].value == "Jasmine tea in the afternoon"
    person.shot("proposal-conflict")
    assert "Tea" not in assistant.visible()  # changed since shared again

    # SPEC C-7: revoke; the page warns first, then every token of the assistant is refused at once.
    access_token, refresh_token = assistant.tokens.access_token, assistant.tokens.refresh_token
    assert mcp_probe(public_origin, access_token).status_code == 200
    page.locator("#revoke details > summary").click()
    assert t(language, "What %(name)s was already sent cannot be recalled — it may have kept it.") % {
        "name": "Journey Assistant"} in page.locator("#revoke").inner_text()
    person.shot("revoke")
    submit(page, f"{base}/revoke/")
    person.keep()
    assert page.url == f"{public_origin}/me/assistants/"
    person.shot("assistants-after-revoke")
    refused = mcp_probe(public_origin, access_token)
    assert refused.status_code == 401 and 'resource_metadata="' in refused.headers["www-authenticate"]
    assert assistant.refresh_directly(refresh_token).status_code == 400

    # SPEC A-4: nothing of the flow's secrets on any page the person saw.
    assert [secret for secret in assistant.secrets for html in person.html_seen if secret in html] == []
