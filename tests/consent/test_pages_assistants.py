"""A connection's page: sharing, narrowing, revoking — and crafted POSTs that change nothing (SPEC W-3, C-1 … C-7)."""

from __future__ import annotations

import pytest

from apps.consent.models import FactShare
from apps.consent.selectors.visibility import visible_facts
from apps.consent.services import access_event_record
from apps.consent.services.export import export_for
from tests.consent.factories import make_application, make_connection, make_fact, share
from tests.consent.test_pages_support import client_for, compiled_catalogs, snapshot  # noqa: F401  (fixtures)

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("compiled_catalogs")]


@pytest.fixture
def connection(user):
    return make_connection(user, scopes={"profile:read", "profile:propose", "context:search"},
                           categories={"basic", "preferences", "work_study"})


def test_sharing_form_lists_shareable_facts_and_the_rest_apart(user, connection):
    tea = make_fact(user)
    goal = make_fact(user, category="goals", label="Marathon")  # category not granted
    make_fact(user, category="health", label="Allergy")  # never shareable
    make_fact(user, label="Salary", sensitive=True)
    make_fact(user, label="Maybe cats", certainty="guess")
    client = client_for(user)
    body = client.get(f"/me/assistants/{connection.pk}/").content.decode()
    # SPEC W-6: the facts that cannot be shared are counted; their list is one link away (no JavaScript needed).
    assert 'href="?blocked=1#not-shareable">4 facts cannot be shared with' in body
    assert "Marked sensitive." not in body
    body = client.get(f"/me/assistants/{connection.pk}/?blocked=1").content.decode()
    assert f'name="share" value="{tea.pk}"' in body
    assert f'name="share" value="{goal.pk}"' not in body
    assert "This assistant was not given access to Goals." in body
    assert "Health facts are never shared with assistants." in body
    assert "Marked sensitive." in body
    assert "Only a guess" in body
    assert body.count('name="share"') == 1


# SPEC W-6: the sharing form shows a long value cut to 140 characters, escaped; a short one whole.
def test_sharing_form_cuts_long_values(user, connection):
    long = make_fact(user, label="Notes", value="<b>" + "x" * 200)
    short = make_fact(user, label="Short", value="y" * 140)
    body = client_for(user).get(f"/me/assistants/{connection.pk}/").content.decode()
    assert f'<span class="fact-value">&lt;b&gt;{"x" * 136}…</span>' in body, long.value
    assert f'<span class="fact-value">{short.value}</span>' in body


def test_save_sharing_selection(user, connection):
    tea, job, name = make_fact(user), make_fact(user, category="work_study"), make_fact(user, category="basic")
    client = client_for(user)
    response = client.post(f"/me/assistants/{connection.pk}/shares/", {"share": [tea.pk, job.pk]})
    assert response.status_code == 302 and response["Location"].endswith("#sharing")
    assert set(visible_facts(connection=connection)) == {tea, job}
    client.post(f"/me/assistants/{connection.pk}/shares/", {"share": [name.pk]})  # untick two, tick one
    assert set(visible_facts(connection=connection)) == {name}
    client.post(f"/me/assistants/{connection.pk}/shares/", {})
    assert not FactShare.objects.exists()


def test_reconfirming_a_changed_fact(user, connection):
    from apps.memory.services import fact_update

    tea = make_fact(user)
    share(connection, tea)
    fact_update(fact=tea, value="Oolong")
    assert not visible_facts(connection=connection).exists()
    client_for(user).post(f"/me/assistants/{connection.pk}/shares/", {"share": [tea.pk]})
    assert list(visible_facts(connection=connection)) == [tea]


# SPEC C-2, D-4: a sharing form opened before a fact changed never shares the new version, which the person
# has not seen: nothing is saved, the page says why, and the person's other ticks are kept.
def test_a_sharing_form_from_before_an_edit_shares_nothing_unseen(user, connection):
    import re

    from apps.memory.services import fact_update

    tea, job, name = make_fact(user), make_fact(user, category="work_study"), make_fact(user, category="basic")
    share(connection, tea)
    client = client_for(user)
    page = client.get(f"/me/assistants/{connection.pk}/").content.decode()
    form = page[page.index('class="share-form"'):]
    hidden = re.findall(r'<input type="hidden" name="([a-z]+)" value="([^"]*)"', form[:form.index("</form>")])
    fact_update(fact=tea, value="Oolong, from my employer's kitchen")  # in another tab, meanwhile
    before = snapshot()
    data = {"share": [tea.pk, job.pk]}
    for field, value in hidden:
        data.setdefault(field, []).append(value)
    response = client.post(f"/me/assistants/{connection.pk}/shares/", data)
    assert response.status_code == 409
    assert snapshot() == before and not visible_facts(connection=connection).exists()
    body = response.content.decode()
    assert "changed after this page was loaded" in body
    assert f'value="{tea.pk}" id="share-box-{tea.pk}">' in body  # unticked: look at it first
    assert f'value="{job.pk}" id="share-box-{job.pk}" checked>' in body  # the person's choice, kept
    assert f'value="{name.pk}" id="share-box-{name.pk}">' in body
    resent = re.findall(r'name="seen" value="([^"]*)"', body)
    assert f"{tea.pk}:2" in resent  # saving the page as shown now shares what it shows
    client.post(f"/me/assistants/{connection.pk}/shares/", {"share": [tea.pk, job.pk], "seen": resent})
    assert set(visible_facts(connection=connection)) == {tea, job}
    garbled = client.post(f"/me/assistants/{connection.pk}/shares/", {"share": [name.pk], "seen": [f"{name.pk}"]})
    assert garbled.status_code == 400 and set(visible_facts(connection=connection)) == {tea, job}


def test_a_refused_sharing_form_keeps_the_persons_other_ticks(user, connection):
    # SPEC C-1, W-2: a fact that cannot be shared refuses the whole save; the page comes back with the
    # person's other choices still ticked, so saving again is one click, not the whole list again.
    from apps.memory.services import fact_update

    tea, job = make_fact(user), make_fact(user, category="work_study")
    secret = make_fact(user, category="basic")
    fact_update(fact=secret, sensitive=True)  # meanwhile, in another tab
    client = client_for(user)
    before = snapshot()
    response = client.post(f"/me/assistants/{connection.pk}/shares/", {"share": [tea.pk, job.pk, secret.pk]})
    assert response.status_code == 400 and snapshot() == before
    body = response.content.decode()
    assert f'value="{tea.pk}" id="share-box-{tea.pk}" checked>' in body
    assert f'value="{job.pk}" id="share-box-{job.pk}" checked>' in body
    assert f'id="share-box-{secret.pk}" checked' not in body


def test_narrow_removes_scopes_and_categories(user, connection):
    response = client_for(user).post(f"/me/assistants/{connection.pk}/narrow/", {
        "scopes": ["profile:read"], "categories": ["preferences"],
    })
    assert response.status_code == 302
    connection.refresh_from_db()
    assert connection.scopes == ["profile:read"] and connection.categories == ["preferences"]


def test_narrow_dropping_read_drops_search(user, connection):
    client_for(user).post(f"/me/assistants/{connection.pk}/narrow/", {
        "scopes": ["context:search"], "categories": ["basic"],
    })
    connection.refresh_from_db()
    assert connection.scopes == []


# SPEC C-5, R-11: a memory read scope shows in plain words on the connection page and can be removed there.
def test_narrow_removes_a_memory_scope(user):
    connection = make_connection(user, scopes={"profile:read", "memory:todo:read", "memory:episode:read"},
                                 categories={"basic"})
    client = client_for(user)
    body = client.get(f"/me/assistants/{connection.pk}/").content.decode()
    assert 'name="scopes" value="memory:todo:read"' in body
    assert "List, search and read your to-dos (without their notes)" in body
    response = client.post(f"/me/assistants/{connection.pk}/narrow/", {
        "scopes": ["profile:read", "memory:episode:read"], "categories": ["basic"],
    })
    assert response.status_code == 302
    connection.refresh_from_db()
    assert connection.scopes == ["profile:read", "memory:episode:read"]
    # ... and never adds one back (SPEC C-5).
    response = client.post(f"/me/assistants/{connection.pk}/narrow/", {
        "scopes": ["profile:read", "memory:episode:read", "memory:todo:read"], "categories": ["basic"],
    })
    assert response.status_code == 400
    connection.refresh_from_db()
    assert connection.scopes == ["profile:read", "memory:episode:read"]


def test_narrow_page_explains_it_cannot_widen(user, connection):
    body = client_for(user).get(f"/me/assistants/{connection.pk}/").content.decode()
    assert "has to ask again" in body
    assert 'name="scopes" value="profile:correct"' not in body  # not granted: not offered
    assert 'name="categories" value="goals"' not in body


def test_revoke(user, connection):
    tea = make_fact(user)
    share(connection, tea)
    response = client_for(user).post(f"/me/assistants/{connection.pk}/revoke/", follow=True)
    connection.refresh_from_db()
    assert connection.revoked_at is not None
    assert not FactShare.objects.filter(connection=connection).exists()
    assert "cannot be recalled" in response.content.decode()


def test_revoke_warning_is_on_the_page(user, connection):
    body = client_for(user).get(f"/me/assistants/{connection.pk}/").content.decode()
    assert "already sent cannot be recalled" in body


# --- Crafted POSTs: 400/403/404, and nothing changes --------------------------------


@pytest.fixture
def world(user, other_user, connection):
    """The person's shared fact, another person's fact and connection: what an attack aims at."""
    mine = make_fact(user)
    share(connection, mine)
    theirs = make_fact(other_user, label="Bob's")
    their_connection = make_connection(other_user, application=make_application("Bob's assistant"))
    share(their_connection, theirs)
    return {"mine": mine, "theirs": theirs, "their_connection": their_connection}


@pytest.mark.parametrize("action", ["", "shares/", "narrow/", "revoke/"])
def test_another_persons_connection_is_not_found(user, world, action):
    target = world["their_connection"]
    before = snapshot()
    client = client_for(user)
    if action:
        data = {"share": [world["mine"].pk], "scopes": [], "categories": []}
        response = client.post(f"/me/assistants/{target.pk}/{action}", data)
    else:
        response = client.get(f"/me/assistants/{target.pk}/")
    assert response.status_code == 404
    assert snapshot() == before


@pytest.mark.parametrize("kind", ["theirs", "sensitive", "guess", "health", "not_granted", "archived", "garbage",
                                  "unicode_digit"])
def test_sharing_what_may_not_be_shared_is_refused(user, connection, world, kind):
    from apps.memory.services import fact_archive

    ids = {
        "theirs": lambda: world["theirs"].pk,
        "sensitive": lambda: make_fact(user, label="PIN", sensitive=True).pk,
        "guess": lambda: make_fact(user, label="Maybe", certainty="guess").pk,
        "health": lambda: make_fact(user, category="health", label="Allergy").pk,
        "not_granted": lambda: make_fact(user, category="goals", label="Marathon").pk,
        "archived": lambda: fact_archive(fact=make_fact(user, label="Old")).pk,
        "garbage": lambda: "1 OR 1=1",
        "unicode_digit": lambda: "\u00b2",  # "²" counts as a digit to str.isdigit(), not to int()
    }[kind]()
    before = snapshot()
    response = client_for(user).post(f"/me/assistants/{connection.pk}/shares/", {"share": [world["mine"].pk, ids]})
    assert response.status_code == 400
    assert snapshot() == before
    assert 'role="alert"' in response.content.decode()
    assert f'name="next" value="/me/assistants/{connection.pk}/"' in response.content.decode()  # SPEC W-4


@pytest.mark.parametrize("data", [
    {"scopes": ["profile:read", "profile:correct"], "categories": ["basic"]},  # a scope not granted
    {"scopes": ["profile:read"], "categories": ["basic", "goals"]},  # a category not granted
    {"scopes": ["profile:read"], "categories": ["health"]},  # a category never grantable
    {"scopes": ["admin"], "categories": []},
])
def test_narrow_cannot_widen(user, connection, world, data):
    before = snapshot()
    response = client_for(user).post(f"/me/assistants/{connection.pk}/narrow/", data)
    assert response.status_code == 400
    assert snapshot() == before


def test_revoked_connection_cannot_be_shared_with_or_narrowed(user, connection, world):
    client = client_for(user)
    client.post(f"/me/assistants/{connection.pk}/revoke/")
    before = snapshot()
    assert client.post(f"/me/assistants/{connection.pk}/shares/", {"share": [world["mine"].pk]}).status_code == 400
    assert client.post(f"/me/assistants/{connection.pk}/narrow/", {"scopes": []}).status_code == 400
    assert snapshot() == before


# SPEC A-7, W-3: what an assistant wrote itself — its name, its suggestions — is shown as isolated text, so
# a direction control in it (U+202E RIGHT-TO-LEFT OVERRIDE …) never turns the page's own sentences around.
def test_an_assistants_own_text_cannot_turn_the_page_around(user):
    import re

    from apps.consent.services import proposal_submit

    controls = re.compile("[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")
    connection = make_connection(user, application=make_application("Evil \u202eBot\u2066"))
    tea = make_fact(user)
    proposal_submit(connection=connection, arguments={
        "op": "add", "category": "preferences", "label": "Walk \u202e", "value": "Every \u202eevening",
        "evidence": "Said so \u202b"})
    client = client_for(user)
    bodies = [client.get(path).content.decode() for path in ("/me/assistants/", f"/me/assistants/{connection.pk}/")]
    bodies.append(client.post(f"/me/assistants/{connection.pk}/shares/", {"share": [tea.pk]}, follow=True)
                  .content.decode())
    for body in bodies:
        assert "<bdi>Evil Bot</bdi>" in body
        # An isolate, or a form field's own value (a paragraph of its own), holds them; nothing else does.
        contained = r"<bdi>[^<]*</bdi>|<textarea[^>]*>[^<]*</textarea>|<input [^>]*>"
        assert not controls.findall(re.sub(contained, "", body))
    assert "Tick the facts <bdi>Evil Bot</bdi> may read." in bodies[1]
    assert "<bdi>Walk \u202e</bdi>" in bodies[1]  # the suggestion as it would be saved, contained


# SPEC D-8, M-11, W-3: memory records an assistant was sent show in its access history, and in the download.
def test_history_shows_memory_records_sent(user, connection):
    access_event_record(connection=connection, tool="memory_search", refs=["todo:7", "episode:3"])
    client = client_for(user)
    body = client.get(f"/me/assistants/{connection.pk}/").content.decode()
    assert "Memory records sent:" in body and "<code>todo:7</code>" in body and "<code>episode:3</code>" in body
    assert "No facts were sent." not in body
    history = export_for(user=user)["assistants"][0]["access_history"]
    assert history[0]["records"] == ["todo:7", "episode:3"] and history[0]["facts"] == []


# SPEC A-7, W-3: the host shown is every host the assistant may send the person back to, not just the first
# it registered: an assistant could list a well-known host first and use another one.
def test_every_redirect_host_is_shown(user):
    application = make_application(redirect_uri="https://assistant.example/cb https://elsewhere.example/cb")
    connection = make_connection(user, application=application)
    client = client_for(user)
    for url in (f"/me/assistants/{connection.pk}/", "/me/assistants/"):
        body = client.get(url).content.decode()
        assert "assistant.example" in body and "elsewhere.example" in body, url
