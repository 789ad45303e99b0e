"""The person's POST actions under crafted input (SPEC W-2, W-3, W-5, C-5, P-6).

A logged-in person (alice) sends generated POSTs to every /me/ action URL:
ids of her own objects, of another person's (bob's), of nothing; form fields
with wrong types, huge, multi-line, NUL and broken-UTF-8 values, repeated
fields, odd content types. Properties:

* never a 5xx;
* nothing of bob's changes: his facts, shares, connection and proposals are
  exactly as they were (another person's object does not exist for alice);
* alice's pages still render afterwards.

Bounded and repeatable: fixed seed, few examples.
"""

from __future__ import annotations

from urllib.parse import urlencode

import pytest
from django.test import Client
from hypothesis import given, settings
from hypothesis import strategies as st

from apps.consent.models import Connection, FactShare, Proposal
from apps.consent.services import proposal_submit
from apps.memory.models import Fact
from tests.consent.factories import make_connection, make_fact, share
from tests.reliability.conftest import FUZZ

pytestmark = pytest.mark.django_db

ACTIONS = [
    "/me/facts/add/",
    "/me/facts/{fact}/edit/",
    "/me/facts/{fact}/archive/",
    "/me/facts/{fact}/sensitive/",
    "/me/assistants/{connection}/shares/",
    "/me/assistants/{connection}/narrow/",
    "/me/assistants/{connection}/revoke/",
    "/me/proposals/{proposal}/confirm/",
    "/me/proposals/{proposal}/edit/",
    "/me/proposals/{proposal}/ignore/",
]
FIELDS = ["category", "label", "value", "evidence", "certainty", "version", "sensitive", "share", "scopes",
          "categories", "action", "csrfmiddlewaretoken", "owner", "user", "connection", "status", "id"]
SPECIAL = ["\x00", "\ud800", "\r\n", "\n", "\u2028", "\ufeff", "😀", "中", "<b>", "' OR 1=1 --", "%00", "\x7f"]
TEXT = st.lists(st.one_of(st.characters(), st.sampled_from(SPECIAL)), max_size=20).map("".join)
VALUES = st.one_of(
    TEXT,
    st.sampled_from(["basic", "health", "relationships", "uncategorized", "preferences", "nope", "confirmed",
                     "guess", "1", "0", "on", "confirm", "profile:read", "context:search", "profile:propose",
                     "memory:todo:read", "", "-1", "0", "1e3", "2147483648", "9223372036854775808", str(10**40)]),
    st.integers(-(2**70), 2**70).map(str),
    st.integers(30, 400).map(lambda n: "x" * n),
    st.integers(1, 5).map(lambda n: "中" * (40 * n)),
)


def owned_ids(person) -> dict[str, list[int]]:
    return {
        "fact": list(Fact.objects.filter(owner=person).values_list("pk", flat=True)),
        "connection": list(Connection.objects.filter(user=person).values_list("pk", flat=True)),
        "proposal": list(Proposal.objects.filter(connection__user=person).values_list("pk", flat=True)),
    }


def state_of(person) -> list:
    """Everything of ``person``'s that an action could change."""
    return [
        list(Fact.objects.filter(owner=person).order_by("pk").values_list(
            "pk", "category", "label", "value", "evidence", "certainty", "sensitive", "status", "version")),
        list(Connection.objects.filter(user=person).order_by("pk").values_list(
            "pk", "scopes", "categories", "revoked_at")),
        list(FactShare.objects.filter(connection__user=person).order_by("pk").values_list(
            "connection_id", "fact_id", "fact_version")),
        list(Proposal.objects.filter(connection__user=person).order_by("pk").values_list(
            "pk", "status", "category", "label", "value", "evidence", "result_fact_id")),
    ]


def people_with_things(user, other_user):
    """alice and bob each with facts, a connection with shares, and pending proposals."""
    for person in (user, other_user):
        connection = make_connection(person)
        facts = [make_fact(person, label=f"Tea {i}", value=f"Green tea {i}") for i in range(3)]
        share(connection, *facts)
        proposal_submit(connection=connection, arguments={"op": "add", "category": "preferences",
                                                          "label": "Coffee", "value": "Flat white"})
        proposal_submit(connection=connection, arguments={"op": "update", "target_fact_id": facts[0].pk,
                                                          "value": "Jasmine tea"})


@pytest.fixture
def browser(user, other_user):
    people_with_things(user, other_user)
    client = Client(headers={"accept-language": "en"})
    client.force_login(user)
    return client


@st.composite
def crafted_posts(draw, mine: dict, theirs: dict):
    action = draw(st.sampled_from(ACTIONS))
    ids = {}
    for kind in ("fact", "connection", "proposal"):
        ids[kind] = draw(st.one_of(st.sampled_from(theirs[kind]), st.sampled_from(mine[kind]),
                                   st.sampled_from([0, 999_999, 2**31, 2**63 - 1, 2**63, 10**30])))
    fields = draw(st.lists(st.tuples(st.one_of(st.sampled_from(FIELDS), TEXT), VALUES), max_size=8))
    # Someone else's ids in the fields as well: a share of bob's fact, a narrowing naming bob's scopes.
    fields += [("share", str(fact)) for fact in draw(st.lists(st.sampled_from(theirs["fact"] + mine["fact"]),
                                                              max_size=3))]
    content_type = draw(st.sampled_from(["application/x-www-form-urlencoded"] * 4 + [
        "application/json", "text/plain", "multipart/form-data; boundary=nothing", ""]))
    return action.format(**ids), fields, content_type


def encode(fields) -> bytes:
    """A form body as a browser (or a broken client) would send it; lone surrogates become invalid UTF-8."""
    return urlencode([(name.encode("utf-8", "surrogatepass"), value.encode("utf-8", "surrogatepass"))
                      for name, value in fields]).encode("ascii")


def test_crafted_posts_never_fail_and_never_touch_another_persons_things(browser, user, other_user):
    mine, theirs = owned_ids(user), owned_ids(other_user)
    bob_before = state_of(other_user)
    statuses: dict[int, int] = {}

    @settings(FUZZ, max_examples=80)
    @given(post=crafted_posts(mine, theirs))
    def check(post):
        url, fields, content_type = post
        response = browser.generic("POST", url, data=encode(fields), content_type=content_type)
        assert response.status_code < 500, (url, fields, response.status_code)
        statuses[response.status_code] = statuses.get(response.status_code, 0) + 1
        assert state_of(other_user) == bob_before, (url, fields)

    check()
    # Both sides were reached: refusals (400/404) and actions that went through (302).
    assert 404 in statuses and 302 in statuses and 400 in statuses, statuses
    for page in ("/me/facts/", "/me/assistants/", *(f"/me/assistants/{pk}/" for pk in mine["connection"])):
        assert browser.get(page).status_code == 200, page


# Every action, aimed at each of bob's objects with a well-formed body, is a 404 and changes nothing.
@pytest.mark.parametrize("action", ACTIONS[1:])
def test_every_action_on_another_persons_object_is_not_found(browser, user, other_user, action):
    theirs = owned_ids(other_user)
    bob_before = state_of(other_user)
    fact = Fact.objects.get(pk=theirs["fact"][0])
    body = {"category": "preferences", "label": "Mine now", "value": "Taken over", "evidence": "",
            "certainty": "confirmed", "version": str(fact.version), "sensitive": "1", "share": str(fact.pk),
            "scopes": "profile:read", "categories": "basic", "action": "confirm"}
    for kind in ("fact", "connection", "proposal"):
        for pk in theirs[kind]:
            url = action.format(fact=pk, connection=pk, proposal=pk)
            if "{" + kind + "}" not in action:
                continue
            response = browser.post(url, data=body)
            assert response.status_code == 404, (url, response.status_code)
    assert state_of(other_user) == bob_before
