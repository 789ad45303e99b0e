"""SPEC P-1 … P-7, D-5, J-2: what assistants may propose and what confirming does."""

from __future__ import annotations

from datetime import timedelta

import pytest

from apps.consent.models import FactShare, Proposal
from apps.consent.selectors.proposals import proposal_for_user
from apps.consent.selectors.visibility import visible_facts
from apps.consent.services import (
    ProposalError,
    connection_narrow,
    proposal_confirm,
    proposal_edit,
    proposal_expire_due,
    proposal_ignore,
    proposal_submit,
)
from apps.memory.models import Fact
from apps.memory.services import fact_archive, fact_update
from tests.consent.factories import make_connection, make_fact, share

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("frozen_clock")]

ADD = {"op": "add", "category": "preferences", "label": "Coffee", "value": "Flat white, no sugar"}
THIRTY_DAYS = timedelta(days=30)
SECOND = timedelta(seconds=1)


@pytest.fixture
def conn(user):
    return make_connection(user)


@pytest.fixture
def shared(conn, user):
    fact = make_fact(user)
    share(conn, fact)
    return fact


def refused(conn, arguments) -> ProposalError:
    with pytest.raises(ProposalError) as caught:
        proposal_submit(connection=conn, arguments=arguments)
    return caught.value


# --- SPEC P-1: the arguments ----------------------------------------------------------------------

def test_add_is_stored_pending(conn):
    proposal = proposal_submit(connection=conn, arguments={**ADD, "evidence": "ordered it twice"})
    assert (proposal.status, proposal.op, proposal.label, proposal.evidence) == (
        "pending", "add", "Coffee", "ordered it twice")
    assert proposal.expires_at == proposal.created_at + THIRTY_DAYS  # SPEC D-5


def test_unknown_field_is_refused(conn):
    error = refused(conn, {**ADD, "confidence": 0.9})
    assert (error.code, error.field) == ("invalid_argument", "confidence")
    assert "confidence" in error.message


@pytest.mark.parametrize(
    "arguments,field",
    [
        ({"category": "preferences", "label": "x", "value": "y"}, "op"),
        ({**ADD, "op": "delete"}, "op"),
        ({**ADD, "label": 42}, "label"),
        ({**ADD, "value": None}, "value"),
        ({**ADD, "category": "secrets"}, "category"),
        ({**ADD, "target_fact_id": 1}, "target_fact_id"),
        ({"op": "add", "category": "preferences", "label": "Coffee"}, "value"),
        ({"op": "add", "category": "preferences", "value": "Flat white"}, "label"),
        ({"op": "add", "label": "Coffee", "value": "Flat white"}, "category"),
        ({**ADD, "label": "   "}, "label"),
        ({"op": "update", "value": "Espresso"}, "target_fact_id"),
        ({"op": "archive"}, "target_fact_id"),
        ({"op": "update", "target_fact_id": "abc", "value": "x"}, "target_fact_id"),
        ({"op": "update", "target_fact_id": True, "value": "x"}, "target_fact_id"),
    ],
    ids=["op-missing", "op-unknown", "label-type", "value-null", "category-unknown", "add-with-target",
         "add-without-value", "add-without-label", "add-without-category", "label-blank",
         "update-without-target", "archive-without-target", "target-not-an-id", "target-bool"],
)
def test_wrong_shape_is_invalid_argument(conn, arguments, field):
    error = refused(conn, arguments)
    assert (error.code, error.field) == ("invalid_argument", field)
    assert field in error.message
    assert not Proposal.objects.exists()


def test_update_needs_new_content(conn, shared):
    error = refused(conn, {"op": "update", "target_fact_id": shared.pk, "evidence": "said so"})
    assert error.code == "invalid_argument"


def test_archive_may_omit_content(conn, shared):
    proposal = proposal_submit(connection=conn, arguments={"op": "archive", "target_fact_id": str(shared.pk)})
    assert (proposal.target_fact_id, proposal.target_version) == (shared.pk, shared.version)


# --- SPEC P-2: limits at their edges --------------------------------------------------------------

@pytest.mark.parametrize("field,limit", [("label", 40), ("value", 300), ("evidence", 300)])
def test_length_limit_edges(conn, field, limit):
    ok = proposal_submit(connection=conn, arguments={**ADD, field: "字" * limit})
    assert len(getattr(ok, field)) == limit
    error = refused(conn, {**ADD, field: "字" * (limit + 1)})
    assert (error.code, error.field) == ("invalid_argument", field)
    assert str(limit) in error.message and field in error.message


@pytest.mark.parametrize("separator", ["\n", "\r\n", "\r", "\u2028"])
def test_evidence_must_be_one_line(conn, separator):
    assert proposal_submit(connection=conn, arguments={**ADD, "evidence": "said it at lunch"})
    error = refused(conn, {**ADD, "evidence": f"said it at lunch{separator}and again at dinner"})
    assert (error.code, error.field) == ("invalid_argument", "evidence")
    assert "single line" in error.message


def test_surrounding_whitespace_does_not_count_toward_limits(conn):
    assert proposal_submit(connection=conn, arguments={**ADD, "label": "  " + "x" * 40 + "\n"}).label == "x" * 40


# --- SPEC P-2: conversations and secrets ----------------------------------------------------------

@pytest.mark.parametrize(
    "value",
    [
        "User: what coffee do I like? Assistant: You like flat whites.",
        "用户：我喜欢什么咖啡？\n助手：你喜欢澳白。",
        "Human: hi\nAI: hello\nHuman: remember I like tea",
        "[09:01] Alice: coffee?\n[09:02] Bob: sure\n[09:03] Alice: flat white",
        "Q1: a\nQ2: b\nQ3: c\nQ4: d\nQ5: e\nQ6: f",
    ],
    ids=["english-turns", "chinese-turns", "three-turns", "speakers-alternate", "many-speaker-lines"],
)
def test_pasted_conversation_is_refused(conn, value):
    error = refused(conn, {**ADD, "value": value})
    assert (error.code, error.field) == ("conversation_refused", "value")


@pytest.mark.parametrize(
    "value",
    ["Prefers the assistant to answer briefly", "Likes: tea\nDislikes: coffee", "Plan A: run; plan B: swim"],
)
def test_facts_that_mention_roles_pass(conn, value):
    assert proposal_submit(connection=conn, arguments={**ADD, "value": value}).status == "pending"


@pytest.mark.parametrize(
    "field,text",
    [
        ("value", "My email password: Hunter2!x"),
        ("value", "OpenAI key sk-proj4f9a8b7c6d5e4f3a2b1c0d9e8f7"),
        ("value", "Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.abc"),
        ("value", "-----BEGIN RSA PRIVATE KEY----- MIIEow"),
        ("value", "Visa 4111 1111 1111 1111"),
        ("value", "验证码：482913"),
        ("evidence", "the login code is 482913"),
        ("label", "密码是abc12345"),
        ("value", "my password is sunflower"),
        ("value", "the wifi password is sunflower"),
        ("value", "password sunflower"),
        ("value", "login: alice / pass: sunflower"),
        ("value", "口令 sunflower"),
        ("value", "api key abcd1234efgh5678ijkl"),
        ("value", "OpenAI key sk-abc123def456ghi789"),
        ("value", "AWS secret access key wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"),
        ("evidence", "secret: wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"),
        ("value", "my password is also sunflower"),
        ("value", "the password for my bank is Sunflower"),
        ("value", "7HJ2K-9QXPL-M3V8R-T6YWB-4DCFN"),
    ],
    ids=["password", "api-key", "token", "private-key", "card", "verification-code", "code-in-evidence",
         "password-in-label", "plain-word-password", "wifi-password", "password-no-separator", "pass-colon",
         "chinese-kouling", "api-key-no-colon", "openai-key-short", "aws-secret-access-key", "secret-colon",
         "password-after-filler", "password-for-what", "licence-key"],
)
def test_secrets_are_refused(conn, field, text):
    error = refused(conn, {**ADD, field: text})
    assert (error.code, error.field) == ("secret_detected", field)
    assert text not in error.message  # the refusal never repeats the secret
    assert not Proposal.objects.exists()


# SPEC P-2: a statement about a password, key or token is an ordinary fact, not a secret.
@pytest.mark.parametrize(
    "value",
    [
        "my password manager is 1Password",
        "my password is strong",
        "I keep keys in a drawer",
        "API design is my job",
        "my favourite token is the Chinese 福 character",
        "my password is also strong",
        "the password for my bank is stored in Bitwarden",
        "order 123e4567-e89b-12d3-a456-426614174000",
    ],
)
def test_statements_about_secrets_pass(conn, value):
    assert proposal_submit(connection=conn, arguments={**ADD, "value": value}).status == "pending"


# --- SPEC P-1, P-3: the target and the category ---------------------------------------------------

@pytest.mark.parametrize("op", ["update", "archive"])
def test_target_must_be_visible(conn, user, other_user, op):
    unshared = make_fact(user, label="Tea", value="Oolong")
    theirs = make_fact(other_user, label="Tea", value="Oolong")
    for target in (unshared.pk, theirs.pk, 10**9):
        error = refused(conn, {"op": op, "target_fact_id": target, "value": "Green tea"})
        assert (error.code, error.field) == ("not_found", "target_fact_id")


def test_target_changed_since_shared_is_not_found(conn, shared):
    fact_update(fact=shared, value="Black tea")
    assert refused(conn, {"op": "update", "target_fact_id": shared.pk, "value": "Green tea"}).code == "not_found"


def test_category_must_be_granted(user):
    conn = make_connection(user, categories={"preferences", "habits"})
    error = refused(conn, {**ADD, "category": "goals"})
    assert (error.code, error.field) == ("category_not_allowed", "category")
    error = refused(conn, {**ADD, "category": "health"})  # never shareable (D-2)
    assert error.code == "category_not_allowed"
    connection_narrow(connection=conn, categories={"habits"})
    conn.refresh_from_db()
    assert refused(conn, ADD).code == "category_not_allowed"  # narrowing applies at once (C-6)


# --- SPEC P-4: identical proposals ----------------------------------------------------------------

def test_identical_pending_proposal_answers_the_same_id(conn):
    first = proposal_submit(connection=conn, arguments=ADD)
    again = proposal_submit(connection=conn, arguments={**ADD, "label": " coffee ", "value": "Flat  white, NO sugar"})
    assert again.pk == first.pk
    assert Proposal.objects.count() == 1


def test_different_arguments_or_connection_make_another_proposal(conn, user):
    first = proposal_submit(connection=conn, arguments=ADD)
    assert proposal_submit(connection=conn, arguments={**ADD, "evidence": "said so"}).pk != first.pk
    other = make_connection(user, application=None)
    assert proposal_submit(connection=other, arguments=ADD).pk != first.pk


@pytest.mark.parametrize("decide", [
    lambda p, user: proposal_confirm(proposal=p, user=user),
    lambda p, user: proposal_ignore(proposal=p, user=user),
], ids=["confirmed", "ignored"])
def test_identical_to_a_processed_one_is_duplicate_processed(conn, user, decide):
    decide(proposal_submit(connection=conn, arguments=ADD), user)
    assert refused(conn, ADD).code == "duplicate_processed"


def test_identical_to_a_conflicted_one_is_duplicate_processed(conn, user, shared):
    arguments = {"op": "update", "target_fact_id": shared.pk, "value": "Green tea"}
    proposal = proposal_submit(connection=conn, arguments=arguments)
    fact_update(fact=shared, value="Black tea")
    share(conn, shared)
    assert proposal_confirm(proposal=proposal, user=user).status == "conflict"
    assert refused(conn, arguments).code == "duplicate_processed"


def test_identical_to_an_expired_one_is_proposal_expired(conn, frozen_clock):
    proposal_submit(connection=conn, arguments=ADD)
    frozen_clock.advance(THIRTY_DAYS)
    assert refused(conn, ADD).code == "proposal_expired"  # no sweep has run (J-2)
    assert Proposal.objects.get().status == "expired"  # and now it is recorded
    assert refused(conn, ADD).code == "proposal_expired"


# --- SPEC P-5, J-2: expiry with the injected clock ------------------------------------------------

def test_one_second_before_thirty_days_it_is_still_pending_and_confirmable(conn, user, frozen_clock):
    proposal = proposal_submit(connection=conn, arguments=ADD)
    frozen_clock.advance(THIRTY_DAYS - SECOND)
    assert proposal_submit(connection=conn, arguments=ADD).pk == proposal.pk
    assert proposal_expire_due() == 0
    assert proposal_confirm(proposal=proposal, user=user).status == "confirmed"


def test_one_second_after_thirty_days_it_is_expired_and_not_confirmable(conn, user, frozen_clock):
    proposal = proposal_submit(connection=conn, arguments=ADD)
    frozen_clock.advance(THIRTY_DAYS + SECOND)
    assert proposal.status_at(frozen_clock.now()) == "expired"  # J-2: before any sweep
    for act in (lambda: proposal_confirm(proposal=proposal, user=user),
                lambda: proposal_ignore(proposal=proposal, user=user),
                lambda: proposal_edit(proposal=proposal, user=user, label="Tea")):
        with pytest.raises(ProposalError) as caught:
            act()
        assert caught.value.code == "proposal_expired"
    assert not Fact.objects.filter(label="Coffee").exists()
    assert Proposal.objects.get().status == "expired"


def test_sweep_records_expired_proposals(conn, frozen_clock):
    due = proposal_submit(connection=conn, arguments=ADD)
    frozen_clock.advance(timedelta(days=10))
    fresh = proposal_submit(connection=conn, arguments={**ADD, "label": "Tea"})
    frozen_clock.advance(timedelta(days=20))
    assert proposal_expire_due() == 1  # the sweep the beat task runs (ops.proposals_expire)
    due.refresh_from_db()
    fresh.refresh_from_db()
    assert (due.status, due.decided_at, fresh.status) == ("expired", frozen_clock.now(), "pending")
    assert proposal_expire_due() == 0


# --- SPEC P-6: confirm, ignore, edit ---------------------------------------------------------------

def test_confirm_add_creates_a_confirmed_fact_shared_with_the_assistant(conn, user):
    proposal = proposal_submit(connection=conn, arguments={**ADD, "evidence": "ordered it twice"})
    confirmed = proposal_confirm(proposal=proposal, user=user)
    fact = confirmed.result_fact
    assert (confirmed.status, fact.owner, fact.certainty, fact.label, fact.evidence) == (
        "confirmed", user, "confirmed", "Coffee", "ordered it twice")
    assert list(visible_facts(connection=conn)) == [fact]


def test_confirm_add_without_sharing(conn, user):
    fact = proposal_confirm(proposal=proposal_submit(connection=conn, arguments=ADD), user=user,
                            share_with_connection=False).result_fact
    assert Fact.objects.filter(pk=fact.pk).exists()
    assert list(visible_facts(connection=conn)) == []


def test_confirm_add_never_shares_with_a_narrowed_connection(conn, user):
    proposal = proposal_submit(connection=conn, arguments=ADD)
    connection_narrow(connection=conn, categories={"habits"})
    proposal_confirm(proposal=proposal, user=user)
    assert not FactShare.objects.exists()


def test_confirm_update_applies_and_keeps_it_shared(conn, user, shared):
    proposal = proposal_submit(connection=conn, arguments={"op": "update", "target_fact_id": shared.pk,
                                                           "value": "Jasmine tea", "evidence": "said so today"})
    proposal_confirm(proposal=proposal, user=user)
    fact = Fact.objects.get(pk=shared.pk)
    assert (fact.value, fact.version, fact.label, fact.evidence) == ("Jasmine tea", 2, "Tea", "said so today")
    assert list(visible_facts(connection=conn)) == [fact]


def test_confirm_archive(conn, user, shared):
    proposal = proposal_submit(connection=conn, arguments={"op": "archive", "target_fact_id": shared.pk})
    assert proposal_confirm(proposal=proposal, user=user).status == "confirmed"
    assert Fact.objects.get(pk=shared.pk).status == "archived"


@pytest.mark.parametrize("move", [
    lambda fact: fact_update(fact=fact, value="Black tea"),
    lambda fact: fact_update(fact=fact, category="habits"),
    lambda fact: fact_archive(fact=fact),
], ids=["value-edited", "category-edited", "archived"])
@pytest.mark.parametrize("op", ["update", "archive"])
def test_confirm_on_a_moved_target_is_a_conflict(conn, user, shared, move, op):
    proposal = proposal_submit(connection=conn, arguments={"op": op, "target_fact_id": shared.pk, "value": "Green"})
    move(shared)
    before = Fact.objects.get(pk=shared.pk)
    result = proposal_confirm(proposal=proposal, user=user)
    assert (result.status, result.decided_at is not None) == ("conflict", True)
    after = Fact.objects.get(pk=shared.pk)
    assert (after.value, after.category, after.status, after.version) == (
        before.value, before.category, before.status, before.version)


def test_ignore(conn, user):
    proposal = proposal_ignore(proposal=proposal_submit(connection=conn, arguments=ADD), user=user)
    assert proposal.status == "ignored"
    assert not Fact.objects.exists()
    with pytest.raises(ProposalError) as caught:
        proposal_confirm(proposal=proposal, user=user)
    assert caught.value.code == "not_pending"


def test_edit_before_confirming(conn, user):
    proposal = proposal_submit(connection=conn, arguments=ADD)
    edited = proposal_edit(proposal=proposal, user=user, label="Morning coffee", value="Oat flat white")
    assert (edited.status, edited.label, edited.value, edited.fingerprint) == (
        "pending", "Morning coffee", "Oat flat white", proposal.fingerprint)
    assert proposal_submit(connection=conn, arguments=ADD).pk == proposal.pk  # the assistant's words still find it
    assert proposal_confirm(proposal=edited, user=user).result_fact.label == "Morning coffee"


@pytest.mark.parametrize("changes,code,field", [
    ({"label": "x" * 41}, "invalid_argument", "label"),
    ({"value": "x" * 301}, "invalid_argument", "value"),
    ({"evidence": "one\ntwo"}, "invalid_argument", "evidence"),
    ({"label": ""}, "invalid_argument", "label"),
    ({"category": "secrets"}, "invalid_argument", "category"),
    ({"value": "User: hi Assistant: hello"}, "conversation_refused", "value"),
    ({"value": "password: Hunter2!x"}, "secret_detected", "value"),
])
def test_edit_is_checked_again(conn, user, changes, code, field):
    proposal = proposal_submit(connection=conn, arguments=ADD)
    with pytest.raises(ProposalError) as caught:
        proposal_edit(proposal=proposal, user=user, **changes)
    assert (caught.value.code, caught.value.field) == (code, field)
    proposal.refresh_from_db()
    assert (proposal.label, proposal.value, proposal.status) == ("Coffee", "Flat white, no sugar", "pending")


def test_edit_limits_at_their_edges(conn, user):
    proposal = proposal_submit(connection=conn, arguments=ADD)
    edited = proposal_edit(proposal=proposal, user=user, label="x" * 40, value="y" * 300, evidence="z" * 300)
    assert (len(edited.label), len(edited.value), len(edited.evidence)) == (40, 300, 300)


# --- SPEC P-7: a pending proposal changes nothing and is never visible ---------------------------

def test_pending_proposals_are_never_visible_and_change_nothing(conn, user, shared):
    before = list(Fact.objects.values())
    visible_before = list(visible_facts(connection=conn).values_list("id", "version"))
    proposal_submit(connection=conn, arguments=ADD)
    proposal_submit(connection=conn, arguments={"op": "update", "target_fact_id": shared.pk, "value": "Black"})
    proposal_submit(connection=conn, arguments={"op": "archive", "target_fact_id": shared.pk})
    assert list(Fact.objects.values()) == before
    assert list(visible_facts(connection=conn).values_list("id", "version")) == visible_before
    assert Proposal.objects.filter(status="pending").count() == 3


# --- Ownership: a person acts only on their own assistants' proposals ---------------------------

def test_another_users_proposal_is_refused(conn, user, other_user):
    proposal = proposal_submit(connection=conn, arguments=ADD)
    for act in (lambda: proposal_confirm(proposal=proposal, user=other_user),
                lambda: proposal_ignore(proposal=proposal, user=other_user),
                lambda: proposal_edit(proposal=proposal, user=other_user, label="Tea")):
        with pytest.raises(ProposalError) as caught:
            act()
        assert caught.value.code == "forbidden"
    assert proposal_for_user(user=other_user, proposal_id=proposal.pk) is None
    assert proposal_for_user(user=user, proposal_id=proposal.pk) == proposal
    proposal.refresh_from_db()
    assert proposal.status == "pending" and not Fact.objects.filter(owner=other_user).exists()


def test_revoked_connection_cannot_propose(conn):
    from apps.consent.services import ConsentError, connection_revoke

    connection_revoke(connection=conn)
    conn.refresh_from_db()
    with pytest.raises(ConsentError):
        proposal_submit(connection=conn, arguments=ADD)
