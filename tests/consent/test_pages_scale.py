"""The pages at real sizes: filtered, paged, small, in a fixed number of queries (SPEC W-6, P-8, W-5).

Every step here is the form as a browser without JavaScript sends it: its
hidden and text fields, its ticked boxes, and the one button pressed.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser

import pytest

from apps.consent.models import Connection, Proposal
from apps.consent.selectors.fact_lists import FACTS_PER_PAGE, SHARES_PER_PAGE
from apps.consent.selectors.pages import HISTORY_PER_PAGE, ITEMS_PER_EVENT, PROPOSALS_PER_PAGE
from apps.consent.selectors.visibility import visible_facts
from apps.consent.services import access_event_record, proposal_submit
from apps.memory.services import fact_update
from tests.consent.factories import make_connection, make_fact, share
from tests.consent.test_pages_support import client_for, compiled_catalogs, snapshot  # noqa: F401  (fixtures)

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("compiled_catalogs")]


class _Fields(HTMLParser):
    """What a browser sends for the form posting to ``action``, before the button pressed."""

    def __init__(self, action):
        super().__init__()
        self.action, self.inside, self.select, self.fields = action, False, None, []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "form":
            self.inside = attrs.get("action") == self.action
        elif not self.inside:
            return
        elif tag == "input" and "name" in attrs:
            kind = attrs.get("type", "text")
            if kind in ("hidden", "text", "search") or (kind == "checkbox" and "checked" in attrs):
                self.fields.append((attrs["name"], attrs.get("value", "")))
        elif tag == "select":
            self.select = attrs["name"]
        elif tag == "option" and self.select and "selected" in attrs:
            self.fields.append((self.select, attrs.get("value", "")))

    def handle_endtag(self, tag):
        if tag == "form":
            self.inside = False
        elif tag == "select":
            self.select = None


def sent(html: str, form_action: str, *, tick=(), untick=(), **changes) -> dict[str, list[str]]:
    """The form as sent after ticking/unticking share boxes and changing fields (a button is a field too)."""
    reader = _Fields(form_action)
    reader.feed(html)
    data: dict[str, list[str]] = {}
    for name, value in reader.fields:
        data.setdefault(name, []).append(value)
    shares = (set(data.get("share", [])) | {str(pk) for pk in tick}) - {str(pk) for pk in untick}
    data["share"] = sorted(shares)
    data.update({name: [str(value)] for name, value in changes.items()})
    return data


@pytest.fixture
def connection(user):
    return make_connection(user, categories={"basic", "preferences", "work_study", "habits"})


def facts(user, count, **fields):
    return [make_fact(user, label=f"{fields.pop('prefix', 'Fact')} {i}", **fields) for i in range(count)]


def shares_url(connection):
    return f"/me/assistants/{connection.pk}/shares/"


# SPEC W-6: a page of the sharing form posts its own facts only, so no person's save ever
# meets the request's field limit (Django's 1,000 by default) — whatever their number of facts.
def test_the_sharing_form_posts_one_page_of_facts_and_ticks_survive_paging(user, connection, settings):
    many = facts(user, SHARES_PER_PAGE + 20)
    settings.DATA_UPLOAD_MAX_NUMBER_FIELDS = 2 * len(many)  # the old form sent 2 fields per fact and more
    client = client_for(user)
    page1 = client.get(f"/me/assistants/{connection.pk}/").content.decode()
    assert page1.count('name="share"') == SHARES_PER_PAGE
    first, last = many[0], many[-1]
    # Tick one here, go to the next page (a button of the form: no JavaScript), tick one there, save.
    response = client.post(shares_url(connection), sent(page1, shares_url(connection), tick=[first.pk], go=2))
    assert response.status_code == 302 and "page=2" in response["Location"]
    assert not visible_facts(connection=connection).exists()  # paging saves nothing
    page2 = client.get(response["Location"]).content.decode()
    assert f'id="share-box-{last.pk}"' in page2 and "1 change not saved yet." in page2
    data = sent(page2, shares_url(connection), tick=[last.pk], action="save")
    assert sum(len(values) for values in data.values()) < 2 * 20 + 20
    response = client.post(shares_url(connection), data)
    assert response.status_code == 302
    assert set(visible_facts(connection=connection)) == {first, last}
    back = client.get(f"/me/assistants/{connection.pk}/").content.decode()
    assert f'value="{first.pk}" id="share-box-{first.pk}" checked>' in back  # saved: the draft is gone
    assert "not saved yet" not in back


# SPEC W-6: filter by category, words and sharing state; tick or untick all a filter shows, on every page.
def test_filter_and_select_all_or_none_of_what_it_shows(user, connection):
    teas = facts(user, SHARES_PER_PAGE + 5, prefix="Tea", value="Green tea")
    jobs = facts(user, 3, prefix="Job", category="work_study", value="Engineer")
    share(connection, jobs[0])
    client = client_for(user)
    url = f"/me/assistants/{connection.pk}/"
    page = client.get(url + "?q=tea").content.decode()
    assert f"{len(teas)} facts shown here." in page and f'share-box-{jobs[0].pk}"' not in page
    response = client.post(shares_url(connection), sent(page, shares_url(connection), action="all"))
    page = client.get(response["Location"]).content.decode()
    assert f"{len(teas)} changes not saved yet." in page
    client.post(shares_url(connection), sent(page, shares_url(connection), action="save"))
    assert set(visible_facts(connection=connection)) == {*teas, jobs[0]}  # the others stay as they were

    shared_jobs = client.get(url + "?category=work_study&state=shared").content.decode()
    assert shared_jobs.count('name="share"') == 1 and f'share-box-{jobs[0].pk}"' in shared_jobs
    fact_update(fact=teas[0], value="Oolong")
    changed = client.get(url + "?state=changed").content.decode()
    assert changed.count('name="share"') == 1 and "Changed since shared" in changed
    not_shared = client.get(url + "?state=not_shared&category=work_study").content.decode()
    assert not_shared.count('name="share"') == 2

    page = client.get(url + "?q=tea").content.decode()
    response = client.post(shares_url(connection), sent(page, shares_url(connection), action="none"))
    page = client.get(response["Location"]).content.decode()
    client.post(shares_url(connection), sent(page, shares_url(connection), action="save"))
    assert set(visible_facts(connection=connection)) == {jobs[0]}


# SPEC C-2: ticks kept across pages still never share a version the person was not shown.
def test_a_kept_tick_of_a_fact_changed_since_shares_nothing(user, connection):
    tea, job = make_fact(user), make_fact(user, category="work_study")
    client = client_for(user)
    page = client.get(f"/me/assistants/{connection.pk}/").content.decode()
    client.post(shares_url(connection), sent(page, shares_url(connection), tick=[tea.pk, job.pk], action="filter"))
    fact_update(fact=tea, value="Oolong")  # in another tab
    before = snapshot()
    page = client.get(f"/me/assistants/{connection.pk}/").content.decode()
    fields = sent(page, shares_url(connection), action="save")
    fields["seen"] = [s for s in fields["seen"] if not s.startswith(f"{tea.pk}:")]  # as the old page showed
    fields["share"] = [str(job.pk)]
    response = client.post(shares_url(connection), fields)
    assert response.status_code == 409 and snapshot() == before
    body = response.content.decode()
    assert f'value="{tea.pk}" id="share-box-{tea.pk}">' in body  # unticked: look at it first
    assert f'value="{job.pk}" id="share-box-{job.pk}" checked>' in body
    # A script posting ``share`` alone still shares exactly that (SPEC I-5).
    client.post(shares_url(connection), {"share": [tea.pk]})
    assert list(visible_facts(connection=connection)) == [tea]


# SPEC W-2, W-6: personal info is paged and filtered; an edit leads back to the page that holds the fact.
def test_personal_info_is_filtered_and_paged(user, connection):
    many = facts(user, FACTS_PER_PAGE + 3)
    job = make_fact(user, category="work_study", label="Job", value="Engineer")
    share(connection, many[1])
    client = client_for(user)
    body = client.get("/me/facts/").content.decode()
    assert body.count('<article class="fact') == FACTS_PER_PAGE and "Page 1 of 2" in body
    assert client.get("/me/facts/?q=engineer").content.decode().count('<article class="fact') == 1
    assert client.get("/me/facts/?category=work_study").content.decode().count(f'id="fact-{job.pk}"') == 1
    shared = client.get("/me/facts/?state=shared").content.decode()
    assert shared.count('<article class="fact') == 1 and f'id="fact-{many[1].pk}"' in shared
    fact_update(fact=many[1], value="Changed")
    assert f'id="fact-{many[1].pk}"' in client.get("/me/facts/?state=changed").content.decode()
    assert client.get("/me/facts/?state=not_shared&page=x&category=nope").status_code == 200  # ignored, not 500
    response = client.post(f"/me/facts/{job.pk}/edit/", {
        "category": "work_study", "label": "Job", "value": "Teacher", "evidence": "", "certainty": "confirmed",
        "version": 1})
    assert response["Location"] == f"/me/facts/?page=2#fact-{job.pk}"
    assert f'id="fact-{job.pk}"' in client.get(response["Location"]).content.decode()


def suggest(connection, count, prefix="Goal"):
    return [proposal_submit(connection=connection, arguments={
        "op": "add", "category": "habits", "label": f"{prefix} {i}", "value": f"Walk {i} km"}) for i in range(count)]


# SPEC P-8: the inbox is paged, and suggestions are ignored many at a time.
def test_suggestions_are_paged_and_ignored_in_bulk(user, connection, other_user):
    proposals = suggest(connection, 4 * PROPOSALS_PER_PAGE + 5)
    client = client_for(user)
    url = f"/me/assistants/{connection.pk}/"
    first = client.get(url).content.decode()
    assert first.count('class="proposal ') == PROPOSALS_PER_PAGE
    assert f"{len(proposals)} suggestions are waiting for you." in first
    assert client.get(url + "?suggestions=5").content.decode().count('class="proposal ') == 5
    ignore = f"/me/assistants/{connection.pk}/suggestions/ignore/"
    picked = [proposals[-1].pk, proposals[-2].pk]
    response = client.post(ignore, {"action": "selected", "proposals": picked})
    assert response.status_code == 302
    assert set(Proposal.objects.filter(status="ignored").values_list("pk", flat=True)) == set(picked)
    assert client.post(ignore, {"action": "selected"}).status_code == 400  # nothing ticked: nothing done
    newest = int(re.search(r'name="up_to" value="(\d+)"', client.get(url).content.decode()).group(1))
    late = suggest(connection, 1, prefix="Late")[0]  # arrives after the page was loaded
    client.post(ignore, {"action": "all", "up_to": newest})
    assert set(Proposal.objects.filter(status="pending").values_list("pk", flat=True)) == {late.pk}
    # SPEC W-6: the decided ones are counted on a link, and listed (paged) only when asked for.
    body = client.get(url).content.decode()
    assert body.count('class="proposal ') == 1
    assert f'href="?earlier=1#earlier">Earlier suggestions ({len(proposals)})' in body
    second = client.get(url + "?earlier=2").content.decode()
    assert second.count('class="proposal is-ignored"') == PROPOSALS_PER_PAGE
    assert 'href="?earlier=1#earlier" rel="prev"' in second  # back to the first page, the list still open
    before = list(Proposal.objects.values_list("pk", "status"))
    stranger = client_for(other_user)
    assert stranger.post(ignore, {"action": "all"}).status_code == 404
    assert list(Proposal.objects.values_list("pk", "status")) == before


# SPEC D-8, W-6: the access history is paged; one call that sent thousands of facts stays one short entry.
def test_access_history_is_paged(user, connection):
    tea = make_fact(user)
    for i in range(2 * HISTORY_PER_PAGE + 5):
        access_event_record(connection=connection, tool=f"tool_{i}", facts=[(tea.pk, 1)])
    access_event_record(connection=connection, tool="big_call", facts=[(tea.pk + n, 1) for n in range(500)])
    client = client_for(user)
    body = client.get(f"/me/assistants/{connection.pk}/").content.decode()
    assert body.count('class="history-event"') == HISTORY_PER_PAGE
    assert f"and {500 - ITEMS_PER_EVENT} more facts" in body
    assert client.get(f"/me/assistants/{connection.pk}/?history=3").content.decode().count(
        'class="history-event"') == min(HISTORY_PER_PAGE, 6)  # 2 pages, then the 6 left (or a page of them)


# SPEC W-6: each page runs the same SQL statements for a few facts, suggestions and assistants as for many.
def test_statements_per_page_do_not_grow_with_facts_suggestions_or_assistants(user):
    from django.db import connection as db_connection
    from django.test.utils import CaptureQueriesContext

    from apps.consent.selectors.visibility import visible_counts

    main = make_connection(user, categories={"basic", "preferences", "work_study", "habits"})

    def grow(count):
        made = facts(user, count, prefix=f"F{count}")
        made += facts(user, count, prefix=f"H{count}", category="health")
        fact_update(fact=made[0], value=f"Changed {count}")
        share(main, *made[: count // 2 + 1])
        suggest(main, count, prefix=f"S{count}")
        for _ in range(count // 3 or 1):
            other = make_connection(user, categories={"preferences"})
            share(other, made[1])
        for _ in range(count):
            access_event_record(connection=main, tool="get_user_context", facts=[(f.pk, 1) for f in made])

    def statements():
        client = client_for(user)
        client.get("/me/facts/")  # warm the session
        counts = {}
        for url in ("/me/facts/", "/me/facts/?state=shared&q=F", "/me/assistants/", f"/me/assistants/{main.pk}/",
                    f"/me/assistants/{main.pk}/?state=changed&category=preferences&page=2&suggestions=2&history=2"):
            with CaptureQueriesContext(db_connection) as queries:
                assert client.get(url).status_code == 200
            counts[url] = len(queries)
        return counts

    grow(3)
    small = statements()
    grow(45)
    large = statements()
    assert small == large, (small, large)

    connections = list(Connection.objects.filter(user=user))
    assert visible_counts(connections=connections) == {
        c.pk: visible_facts(connection=c).count() for c in connections}  # the one-query count agrees
