"""Personal info: add, edit, archive, mark sensitive — and only one's own facts (SPEC W-2, C-2)."""

from __future__ import annotations

import pytest

from apps.memory.models import Fact
from apps.memory.services import fact_update
from tests.consent.factories import make_connection, make_fact, share
from tests.consent.test_pages_support import client_for, compiled_catalogs, snapshot, visible_text  # noqa: F401  (fixtures)

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("compiled_catalogs")]


def edit_data(fact, **overrides):
    data = {"category": fact.category, "label": fact.label, "value": fact.value, "evidence": fact.evidence,
            "certainty": fact.certainty, "version": fact.version}
    return {**data, **overrides}


def test_facts_grouped_by_category_with_translated_names(user):
    make_fact(user, category="goals", label="Marathon", value="Run one in 2027")
    make_fact(user, category="health", label="Allergy", value="Peanuts")
    body = client_for(user, "zh-CN").get("/me/facts/").content.decode()
    goals, health = body.index('id="cat-goals-title">目标<'), body.index('id="cat-health-title">健康<')
    assert goals < body.index("Marathon") < health < body.index("Allergy")
    assert "未分类" in body  # every category is listed, even when empty


def test_add_fact(user):
    response = client_for(user).post("/me/facts/add/", {
        "category": "habits", "label": "Walk", "value": "Every evening", "evidence": "", "certainty": "confirmed",
    })
    fact = Fact.objects.get(owner=user)
    assert response.status_code == 302 and response["Location"] == f"/me/facts/#fact-{fact.pk}"
    assert (fact.category, fact.label, fact.version, fact.sensitive) == ("habits", "Walk", 1, False)


# The add form sent twice (a double click on a slow network) adds one fact; a new form adds again, and a
# form the rules refused can be corrected and sent again.
def test_the_same_add_form_sent_twice_adds_once(user):
    import re
    import uuid

    client = client_for(user)
    page = client.get("/me/facts/").content.decode()
    submission = re.search(r'name="submission" value="([0-9a-f]{32})"', page).group(1)
    data = {"category": "habits", "label": "Walk", "value": "Every evening", "certainty": "confirmed",
            "submission": submission}
    first, second = client.post("/me/facts/add/", data), client.post("/me/facts/add/", data)
    fact = Fact.objects.get(owner=user)
    assert first["Location"] == second["Location"] == f"/me/facts/#fact-{fact.pk}"
    another = uuid.uuid4().hex
    refused = client.post("/me/facts/add/", {**data, "label": "", "submission": another})
    assert refused.status_code == 400 and f'name="submission" value="{another}"' in refused.content.decode()
    client.post("/me/facts/add/", {**data, "label": "Run", "submission": another})
    script = {**data, "label": "Swim", "submission": ""}  # no submission value (a script): always acted on
    client.post("/me/facts/add/", script)
    client.post("/me/facts/add/", script)
    assert sorted(Fact.objects.filter(owner=user).values_list("label", flat=True)) == ["Run", "Swim", "Swim", "Walk"]


# A request that failed with a server error is not "already sent": pressing the button again adds the fact.
def test_the_add_form_sent_again_after_a_server_error_adds(user, monkeypatch):
    import re

    from django.db import DatabaseError
    from django.test import Client

    from apps.consent.views import facts as facts_views

    client = Client(raise_request_exception=False)
    client.force_login(user)
    submission = re.search(r'name="submission" value="([0-9a-f]{32})"',
                           client.get("/me/facts/").content.decode()).group(1)
    data = {"category": "habits", "label": "Walk", "value": "Every evening", "certainty": "confirmed",
            "submission": submission}
    real, failures = facts_views.fact_create, [DatabaseError("the database went away")]

    def fails_once(**kwargs):
        if failures:
            raise failures.pop()
        return real(**kwargs)

    monkeypatch.setattr(facts_views, "fact_create", fails_once)
    assert client.post("/me/facts/add/", data).status_code == 500
    client.post("/me/facts/add/", data)
    assert Fact.objects.filter(owner=user, label="Walk").count() == 1


def test_add_fact_marked_sensitive(user):
    client_for(user).post("/me/facts/add/", {"category": "basic", "label": "ID", "value": "x", "certainty": "confirmed",
                                             "sensitive": "on"})
    assert Fact.objects.get(owner=user).sensitive is True


@pytest.mark.parametrize("bad", [
    {"label": "x" * 41}, {"value": ""}, {"category": "secrets"}, {"evidence": "two\nlines"}, {"certainty": "sure"},
])
def test_add_fact_refuses_bad_shape(user, bad):
    data = {"category": "habits", "label": "Walk", "value": "Every evening", "certainty": "confirmed", **bad}
    response = client_for(user).post("/me/facts/add/", data)
    assert response.status_code == 400
    assert not Fact.objects.exists()
    assert 'class="field-error"' in response.content.decode()


def test_edit_fact_bumps_version_and_warns_when_shared(user):
    fact = make_fact(user)
    connection = make_connection(user)
    share(connection, fact)
    client = client_for(user)
    before = client.get("/me/facts/").content.decode()
    assert "Shared with 1 assistant — editing asks you to confirm again." in before
    response = client.post(f"/me/facts/{fact.pk}/edit/", edit_data(fact, value="Oolong"), follow=True)
    fact.refresh_from_db()
    assert (fact.value, fact.version) == ("Oolong", 2)
    body = response.content.decode()
    assert "Saved as version 2" in body and "Changed since shared with 1 assistant" in body
    page = client.get(f"/me/assistants/{connection.pk}/").content.decode()
    assert "Changed since shared — confirm again" in page
    assert f'value="{fact.pk}" id="share-box-{fact.pk}">' in page  # offered again, not ticked


# SPEC C-1: a guess reaches no assistant, even one it was shared with; the page says so rather than
# "shared with 1 assistant", and says what confirming it would do.
def test_a_shared_guess_is_not_called_shared(user):
    fact = make_fact(user)
    share(make_connection(user), fact)
    fact_update(fact=fact, certainty="guess")
    body = visible_text(client_for(user).get("/me/facts/").content.decode())
    assert "Shared with 1 assistant" not in body
    assert "A guess: no assistant sees it while it is one." in body
    assert "Confirming it lets the 1 assistant you shared it with see it again." in body


def test_edit_of_evidence_keeps_version(user):
    fact = make_fact(user)
    client_for(user).post(f"/me/facts/{fact.pk}/edit/", edit_data(fact, evidence="said twice"))
    fact.refresh_from_db()
    assert (fact.evidence, fact.version) == ("said twice", 1)


# SPEC C-2: an edit made from an older version is refused, and says so.
def test_stale_edit_is_refused_with_both_versions(user):
    fact = make_fact(user, value="Green tea")
    stale = edit_data(fact, value="Black tea")
    fact_update(fact=fact, value="White tea")  # changed elsewhere meanwhile
    response = client_for(user).post(f"/me/facts/{fact.pk}/edit/", stale)
    assert response.status_code == 409
    fact.refresh_from_db()
    assert (fact.value, fact.version) == ("White tea", 2)
    body = response.content.decode()
    assert "changed while you were editing it" in body and "White tea" in body and "Black tea" in body
    assert 'name="version" value="2"' in body  # saving again applies over the new version


# SPEC C-2, W-2: the same edit sent twice (a double click on a slow network) is saved once and said so; the
# second request is no conflict, since it overwrites nothing.
def test_the_same_edit_sent_twice_is_saved_once(user):
    fact = make_fact(user, value="Green tea")
    data = edit_data(fact, value="Black tea")
    client = client_for(user)
    first, second = (client.post(f"/me/facts/{fact.pk}/edit/", data) for _ in range(2))
    assert first.status_code == second.status_code == 302
    assert first["Location"] == second["Location"] == f"/me/facts/#fact-{fact.pk}"
    fact.refresh_from_db()
    assert (fact.value, fact.version) == ("Black tea", 2)


# SPEC W-2, W-4: a refused save says so at the top of the page, with a link to the form, and the language
# switch there returns to the page itself — the action's own address answers only POST.
@pytest.mark.parametrize("refusal", ["stale", "bad_shape", "add"])
def test_a_refused_save_says_so_on_top_and_the_language_switch_returns_to_the_page(user, refusal):
    fact = make_fact(user, value="Green tea")
    client = client_for(user)
    if refusal == "add":
        response = client.post("/me/facts/add/", {"category": "preferences", "label": "", "value": "x"})
        status, anchor, wording = 400, "#add", "The fact was not added"
    else:
        data = edit_data(fact, value="Black tea") if refusal == "stale" else edit_data(fact, label="")
        if refusal == "stale":
            fact_update(fact=fact, value="White tea")
        response = client.post(f"/me/facts/{fact.pk}/edit/", data)
        status, anchor = (409 if refusal == "stale" else 400), f"#fact-{fact.pk}"
        wording = "the fact changed meanwhile" if refusal == "stale" else "Your edit was not saved: please correct"
    assert response.status_code == status
    body = response.content.decode()
    banner = body.index('id="error"')
    assert banner < body.index('id="add"') and wording in body[banner:banner + 400]
    assert f'href="{anchor}"' in body[banner:banner + 400]
    assert f'name="next" value="/me/facts/{anchor}"' in body
    switched = client.post("/i18n/setlang/", {"language": "zh-hans", "next": f"/me/facts/{anchor}"}, follow=True)
    assert switched.status_code == 200 and switched.redirect_chain[-1][0] == f"/me/facts/{anchor}"


# SPEC W-2: an edit sent from a page opened before the fact was archived (in another tab) saves nothing —
# an archived fact stays as it was — and says so; the person's wording waits in the add form.
def test_an_edit_of_a_fact_archived_meanwhile_saves_nothing_and_keeps_the_wording(user):
    from apps.memory.services import fact_archive

    fact = make_fact(user, value="Green tea")
    data = edit_data(fact, value="Black tea")
    fact_archive(fact=fact)
    before = snapshot()
    response = client_for(user).post(f"/me/facts/{fact.pk}/edit/", data)
    assert response.status_code == 409 and snapshot() == before
    body = response.content.decode()
    assert "was archived meanwhile" in body[body.index('id="error"'):body.index('id="add"')]
    add_form = body[body.index('id="add"'):body.index("</details>", body.index('id="add"'))]
    assert 'id="add" open' in body and "Black tea</textarea>" in add_form


def test_edit_with_bad_shape_is_refused(user):
    fact = make_fact(user)
    response = client_for(user).post(f"/me/facts/{fact.pk}/edit/", edit_data(fact, label=""))
    assert response.status_code == 400
    fact.refresh_from_db()
    assert fact.version == 1


def test_archive_fact(user):
    fact = make_fact(user)
    client = client_for(user)
    assert client.post(f"/me/facts/{fact.pk}/archive/").status_code == 302
    fact.refresh_from_db()
    assert fact.status == "archived"
    body = client.get("/me/facts/").content.decode()
    assert "Archived (1)" in body


def test_mark_and_unmark_sensitive(user):
    fact = make_fact(user)
    client = client_for(user)
    client.post(f"/me/facts/{fact.pk}/sensitive/", {"sensitive": "1"})
    fact.refresh_from_db()
    assert fact.sensitive and fact.version == 1
    assert "Sensitive: never shared with any assistant." in client.get("/me/facts/").content.decode()
    client.post(f"/me/facts/{fact.pk}/sensitive/", {"sensitive": "0"})
    fact.refresh_from_db()
    assert not fact.sensitive


def test_sensitive_needs_an_explicit_value(user):
    fact = make_fact(user)
    assert client_for(user).post(f"/me/facts/{fact.pk}/sensitive/", {"sensitive": "yes"}).status_code == 400
    fact.refresh_from_db()
    assert not fact.sensitive


# Another person's fact does not exist on these pages: 404 and nothing changes.
@pytest.mark.parametrize("action,data", [
    ("edit", {"category": "basic", "label": "Owned", "value": "now", "certainty": "confirmed", "version": 1}),
    ("archive", {}),
    ("sensitive", {"sensitive": "1"}),
])
def test_actions_on_another_persons_fact_are_not_found(user, other_user, action, data):
    foreign = make_fact(other_user)
    before = snapshot()
    response = client_for(user).post(f"/me/facts/{foreign.pk}/{action}/", data)
    assert response.status_code == 404
    assert snapshot() == before


def test_page_never_shows_another_persons_facts(user, other_user):
    make_fact(other_user, label="Bob only")
    assert "Bob only" not in client_for(user).get("/me/facts/").content.decode()
