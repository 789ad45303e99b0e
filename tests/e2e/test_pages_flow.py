"""The person's pages in a real browser, once in Simplified Chinese and once in English (SPEC W-1 … W-5).

Log in; add and edit a fact; see "changed since shared"; share and unshare on
the connection page; confirm a suggestion; narrow; revoke. Every step is a
plain form POST (the pages work without JavaScript; it only enhances them).
"""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.utils import translation
from oauth2_provider.models import get_application_model

from apps.consent.models import Connection
from apps.consent.selectors.visibility import visible_facts
from apps.consent.services import access_event_record, connection_authorize, proposal_submit, shares_set
from apps.memory.models import Category, Fact
from apps.memory.services import fact_create

pytestmark = [pytest.mark.live, pytest.mark.usefixtures("compiled_catalogs")]

PASSWORD = "correct-horse-battery"
LANGUAGES = {"zh-hans": "zh-CN", "en": "en-US"}  # Django language → the browser's locale
PHONE = {"width": 390, "height": 844}
SAVE = 'button[value="save"]'  # the sharing form's save button (its first button filters the list)


def t(language: str, text: str) -> str:
    """The page's wording of ``text`` in ``language``, from the same catalog the server uses."""
    with translation.override(language):
        return translation.gettext(text)


def world(language: str) -> dict:
    user = get_user_model().objects.create_user(username=f"e2e-{language}", password=PASSWORD)
    application = get_application_model().objects.create(
        name="Writing Helper", client_type="public", authorization_grant_type="authorization-code",
        redirect_uris="http://127.0.0.1:9999/callback", hash_client_secret=False, client_secret="",
    )
    # In the full flow the consent page makes this connection; that flow joins these tests with the OAuth work.
    connection = connection_authorize(user=user, application=application,
                                      scopes={"profile:read", "profile:propose", "context:search"},
                                      categories=set(Category.shareable()))
    tea = fact_create(owner=user, category="preferences", label="Tea", value="Green tea in the afternoon")
    fact_create(owner=user, category="health", label="Allergy", value="Peanuts")
    shares_set(connection=connection, fact_ids={tea.pk})
    access_event_record(connection=connection, tool="get_user_context", facts=[(tea.pk, 1)])
    proposal = proposal_submit(connection=connection, arguments={
        "op": "add", "category": "goals", "label": "Marathon", "value": "Run a marathon in 2027",
        "evidence": "Said they signed up for training",
    })
    return {"user": user, "connection": connection, "tea": tea, "proposal": proposal}


def log_in(page, username: str, next_path: str) -> None:
    """Through the login form, as a person would (SPEC I-3)."""
    assert "/accounts/login/" in page.url
    page.fill('input[name="username"]', username)
    page.fill('input[name="password"]', PASSWORD)
    with page.expect_navigation() as navigation:
        page.locator('form[action="/accounts/login/"] button[type=submit]').click()
    status = navigation.value.status if navigation.value else None
    assert page.url.endswith(next_path), (
        f"login did not go through (HTTP {status}); a 403 here is Django's CSRF origin check — a login page "
        "with <meta name=referrer content=no-referrer> makes the browser send 'Origin: null'"
    )


def submit(page, action: str, button: str = "button[type=submit]"):
    """Press the submit button of the form posting to ``action`` and wait for the next page."""
    with page.expect_navigation():
        page.locator(f'form[action="{action}"] {button}').first.click()


def shot(page, artifacts, language: str, name: str) -> None:
    page.screenshot(path=str(artifacts / f"{language}-{name}.png"), full_page=True)


@pytest.mark.parametrize("language", list(LANGUAGES))
def test_person_manages_facts_and_an_assistant(live_server, transactional_db, browser, artifacts, language):
    data = world(language)
    connection, tea = data["connection"], data["tea"]
    context = browser.new_context(locale=LANGUAGES[language], viewport={"width": 1100, "height": 900})
    page = context.new_page()
    page.set_default_timeout(15000)
    base = live_server.url

    # Log in (SPEC I-3): a protected page sends the visitor to the login form first.
    page.goto(f"{base}/me/facts/")
    log_in(page, data["user"].username, "/me/facts/")
    assert page.locator("h1").first.inner_text() == t(language, "Personal info")
    assert page.locator("html").get_attribute("lang") == language
    shot(page, artifacts, language, "facts")

    # Add a fact.
    page.locator("#add > summary").click()
    page.select_option("#add-category", "preferences")
    page.fill("#add-label", "Coffee")
    page.fill("#add-value", "Flat white, no sugar")
    submit(page, "/me/facts/add/")
    coffee = Fact.objects.get(owner=data["user"], label="Coffee")
    assert page.locator(f"#fact-{coffee.pk}").is_visible()

    # Edit the shared fact: it warns first, then shows it as changed since shared (SPEC C-2).
    card = page.locator(f"#fact-{tea.pk}")
    card.locator("details.fact-edit > summary").click()
    assert card.locator(".hint-warn").is_visible()
    card.locator('textarea[name="value"]').fill("Oolong in the afternoon")
    submit(page, f"/me/facts/{tea.pk}/edit/")
    tea.refresh_from_db()
    assert (tea.value, tea.version) == ("Oolong in the afternoon", 2)
    assert page.locator(f"#fact-{tea.pk} .share-changed").is_visible()
    shot(page, artifacts, language, "facts-after-edit")

    # The list of assistants leads to the connection's page (SPEC I-5).
    page.goto(f"{base}/me/assistants/")
    assert t(language, "unverified") in page.locator(f"#assistant-{connection.pk}").inner_text()
    shot(page, artifacts, language, "assistants")
    with page.expect_navigation():
        page.locator(f'#assistant-{connection.pk} a[href="/me/assistants/{connection.pk}/"]').first.click()
    row = page.locator(f"#share-{tea.pk}")
    assert t(language, "Changed since shared — confirm again") in row.inner_text()
    assert not page.locator(f'input[name="share"][value="{tea.pk}"]').is_checked()
    assert "Peanuts" not in page.locator("#sharing form").inner_text()  # health: listed apart, never a choice
    shot(page, artifacts, language, "assistant")

    # Share: confirm the changed fact again and share the new one.
    page.locator(f'input[name="share"][value="{tea.pk}"]').check()
    page.locator(f'input[name="share"][value="{coffee.pk}"]').check()
    submit(page, f"/me/assistants/{connection.pk}/shares/", SAVE)
    assert set(visible_facts(connection=connection)) == {tea, coffee}
    assert page.locator(f'input[name="share"][value="{tea.pk}"]').is_checked()
    assert not page.locator(f"#share-{tea.pk}.is-changed").count()

    # Unshare one.
    page.locator(f'input[name="share"][value="{coffee.pk}"]').uncheck()
    submit(page, f"/me/assistants/{connection.pk}/shares/", SAVE)
    assert list(visible_facts(connection=connection)) == [tea]

    # A suggestion: confirm it (it is not shared unless ticked).
    proposal = data["proposal"]
    assert "Run a marathon in 2027" in page.locator(f"#proposal-{proposal.pk}").inner_text()
    submit(page, f"/me/proposals/{proposal.pk}/confirm/")
    assert Fact.objects.filter(owner=data["user"], label="Marathon").exists()
    assert list(visible_facts(connection=connection)) == [tea]

    # Narrow: untick search (SPEC C-5); it can never be ticked back here.
    page.locator('input[name="scopes"][value="context:search"]').uncheck()
    submit(page, f"/me/assistants/{connection.pk}/narrow/")
    connection.refresh_from_db()
    assert connection.scopes == ["profile:read", "profile:propose"]
    assert page.locator('input[name="scopes"][value="context:search"]').count() == 0
    shot(page, artifacts, language, "assistant-narrowed")

    # Phone width: the page stays readable (no sideways scrolling).
    page.set_viewport_size(PHONE)
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth + 1")
    shot(page, artifacts, language, "assistant-phone")
    page.set_viewport_size({"width": 1100, "height": 900})

    # Revoke (SPEC C-7): the warning is there, then everything stops.
    page.locator("#revoke details > summary").click()
    assert t(language, "What %(name)s was already sent cannot be recalled — it may have kept it.") % {
        "name": "Writing Helper"} in page.locator("#revoke").inner_text()
    submit(page, f"/me/assistants/{connection.pk}/revoke/")
    assert page.url.endswith("/me/assistants/")
    assert Connection.objects.get(pk=connection.pk).revoked_at is not None
    assert not visible_facts(connection=Connection.objects.get(pk=connection.pk)).exists()
    shot(page, artifacts, language, "assistants-after-revoke")

    # The language switch overrides the browser's language (SPEC W-4).
    other = "en" if language == "zh-hans" else "zh-hans"
    page.select_option("#language-select", other)
    page.wait_for_load_state()
    page.wait_for_function(f"document.documentElement.lang === '{other}'")
    assert page.locator("h1").first.inner_text() == t(other, "Connected assistants")
    context.close()


def test_pages_work_without_javascript(live_server, transactional_db, browser, artifacts):
    """SPEC W-5: with JavaScript off, the forms still do everything."""
    data = world("nojs")
    context = browser.new_context(locale="en-US", java_script_enabled=False)
    page = context.new_page()
    page.set_default_timeout(15000)
    page.goto(f"{live_server.url}/me/assistants/{data['connection'].pk}/")
    log_in(page, data["user"].username, f"/me/assistants/{data['connection'].pk}/")
    tea = data["tea"]
    page.locator(f'input[name="share"][value="{tea.pk}"]').uncheck()
    submit(page, f"/me/assistants/{data['connection'].pk}/shares/", SAVE)
    assert not visible_facts(connection=data["connection"]).exists()
    page.select_option("#language-select", "zh-hans")
    submit(page, "/i18n/setlang/")
    assert page.locator("html").get_attribute("lang") == "zh-hans"
    shot(page, artifacts, "nojs", "assistant-zh")
    context.close()


def test_language_switch_from_the_keyboard_and_after_a_refused_save(live_server, transactional_db, browser,
                                                                    artifacts):
    """SPEC W-2, W-4: arrow keys move through the languages without leaving the page (WCAG 3.2.2), the button
    switches; on a page a refused save re-rendered, switching keeps the person on a page that loads."""
    data = world("keys")
    context = browser.new_context(locale="en-US")
    page = context.new_page()
    page.set_default_timeout(15000)
    page.goto(f"{live_server.url}/me/facts/")
    log_in(page, data["user"].username, "/me/facts/")
    tea = data["tea"]

    page.locator(f'form[action="/me/facts/{tea.pk}/edit/"]').evaluate("form => form.closest('details').open = true")
    page.fill(f"#fact{tea.pk}-value", "")
    page.locator(f'form[action="/me/facts/{tea.pk}/edit/"] [name="value"]').evaluate("input => input.required = false")
    submit(page, f"/me/facts/{tea.pk}/edit/")
    assert page.locator("#error").is_visible()  # at the top, in view
    assert page.evaluate("window.scrollY") == 0

    page.focus("#language-select")
    first = page.evaluate("document.querySelector('#language-select').selectedIndex === 0")
    page.keyboard.press("ArrowDown" if first else "ArrowUp")
    assert page.input_value("#language-select") == "zh-hans"  # the key chose the other language …
    page.wait_for_timeout(700)
    assert page.url.endswith(f"/me/facts/{tea.pk}/edit/") and page.locator("html").get_attribute("lang") == "en"
    with page.expect_navigation() as navigation:
        page.locator("form.language-form button[type=submit]").click()
    assert navigation.value.status == 200
    assert page.url.endswith(f"/me/facts/#fact-{tea.pk}")
    assert page.locator("html").get_attribute("lang") == "zh-hans"
    shot(page, artifacts, "keys", "facts-after-switch")
    context.close()


def test_sharing_many_facts_without_javascript(live_server, transactional_db, browser, artifacts):
    """SPEC W-5, W-6: filter, tick all the filter shows, page on with ticks kept, save — JavaScript off."""
    from apps.consent.selectors.fact_lists import SHARES_PER_PAGE

    data = world("many")
    user, connection = data["user"], data["connection"]
    walks = [fact_create(owner=user, category="habits", label=f"Walk {i}", value="Evening walk")
             for i in range(SHARES_PER_PAGE + 3)]
    context = browser.new_context(locale="en-US", java_script_enabled=False, viewport=PHONE)
    page = context.new_page()
    page.set_default_timeout(15000)
    path = f"/me/assistants/{connection.pk}/"
    page.goto(live_server.url + path)
    log_in(page, user.username, path)
    action = f"/me/assistants/{connection.pk}/shares/"
    boxes = page.locator('.share-form input[name="share"]')
    page.fill("#id_q", "walk")
    with page.expect_navigation():
        page.locator("#id_q").press("Enter")  # Enter in the words field filters
    assert "q=walk" in page.url and boxes.count() == SHARES_PER_PAGE
    submit(page, action, 'button[value="all"]')
    assert page.locator('.share-form input[name="share"]:checked').count() == SHARES_PER_PAGE
    submit(page, action, 'button[name="go"]')  # the next page: its boxes are ticked too
    assert page.locator('.share-form input[name="share"]:checked').count() == boxes.count() == 3
    page.locator(f'input[name="share"][value="{walks[-1].pk}"]').uncheck()
    assert not visible_facts(connection=connection).filter(category="habits").exists()  # nothing saved yet
    submit(page, action, SAVE)
    assert set(visible_facts(connection=connection).filter(category="habits")) == set(walks[:-1])
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    shot(page, artifacts, "nojs", "assistant-many")
    context.close()
