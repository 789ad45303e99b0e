"""Bringing memories in and one fact per slot, in a real browser without JavaScript (SPEC P-9, P-10, W-5).

The person follows the link from Personal info, pastes what another assistant listed (in the page's
language), sees the city it lists as a change of their own beside it, and replaces it.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from django.contrib.auth import get_user_model

from apps.consent.models import Proposal
from apps.memory.models import Fact
from apps.memory.services import fact_create
from tests.e2e.test_pages_flow import LANGUAGES, PASSWORD, log_in, shot, t

pytestmark = [pytest.mark.live, pytest.mark.usefixtures("compiled_catalogs")]

SAMPLES = Path(__file__).resolve().parents[1] / "consent" / "memories"
PASTE = {"en": "chatgpt_en.md", "zh-hans": "chatgpt_zh.md"}


@pytest.mark.parametrize("language", list(LANGUAGES))
def test_paste_a_list_and_replace_a_fact(live_server, transactional_db, browser, artifacts, language):
    user = get_user_model().objects.create_user(username=f"import-{language}", password=PASSWORD)
    label = "City" if language == "en" else "常住城市"
    city = fact_create(owner=user, category="basic", label=label, value="Shanghai" if language == "en" else "上海")
    context = browser.new_context(locale=LANGUAGES[language], java_script_enabled=False)
    page = context.new_page()
    page.set_default_timeout(15000)
    page.goto(f"{live_server.url}/me/facts/")
    log_in(page, user.username, "/me/facts/")
    with page.expect_navigation():
        page.get_by_role("link", name=t(language, "Bring your memories from another assistant")).click()
    page.fill("#import-text", (SAMPLES / PASTE[language]).read_text())
    with page.expect_navigation():
        page.get_by_role("button", name=t(language, "Import as suggestions")).click()
    assert Proposal.objects.filter(owner=user, source="import", status="pending").count() >= 7
    change = Proposal.objects.get(owner=user, slot="change")
    card = page.locator(f"#proposal-{change.pk}")
    assert card.locator("text=" + t(language, "Suggested instead")).count() == 1
    shot(page, artifacts, language, "import-change")
    with page.expect_navigation():
        card.get_by_role("button", name=t(language, "Replace"), exact=True).click()
    city.refresh_from_db()
    assert (city.value, city.version) == ("Beijing" if language == "en" else "北京", 2)
    assert Fact.objects.filter(owner=user, category="basic", label=label).count() == 1
    context.close()
