"""One fact per slot (SPEC P-9): an added fact the person already has a fact for is a change, or already known."""

from __future__ import annotations

import pytest
from django.db import connection as db_connection
from django.test.utils import CaptureQueriesContext

from apps.consent.models import Proposal
from apps.consent.selectors.slots import SlotText, slot_judge, slot_judge_one
from apps.consent.selectors.visibility import visible_facts
from apps.consent.services import ProposalError, proposal_confirm, proposal_edit, proposal_submit, proposals_confirm
from apps.memory.models import Fact, FactStatus
from apps.memory.services import fact_archive, fact_update
from tests.consent.factories import make_connection, make_fact, share

pytestmark = [pytest.mark.django_db]


@pytest.fixture
def connection(user):
    return make_connection(user)


@pytest.fixture
def city(user):
    return make_fact(user, category="basic", label="City", value="Shanghai", evidence="")


def propose(connection, label="City", value="Beijing", category="basic", **more):
    return proposal_submit(connection=connection,
                           arguments={"op": "add", "category": category, "label": label, "value": value, **more})


def cities(user):
    return list(Fact.objects.filter(owner=user, category="basic", status=FactStatus.ACTIVE).values_list("value",
                                                                                                          flat=True))


# --- The judgement ---------------------------------------------------------------------------------

@pytest.mark.parametrize("label", ["City", "city", "Lives in", "常住城市", "居住城市", "User's city", "我的城市"])
def test_an_equivalent_label_in_either_language_is_the_same_slot(user, city, label):
    # SPEC P-9: "City" / "Lives in" / "常住城市" name one slot.
    match = slot_judge_one(owner_id=user.pk, category="basic", label=label, value="Beijing")
    assert (match.kind, match.fact) == ("change", city)


@pytest.mark.parametrize("label", ["Hometown", "家乡", "Favourite city", "Work city"])
def test_a_label_of_another_slot_is_a_new_fact(user, city, label):
    assert slot_judge_one(owner_id=user.pk, category="basic", label=label, value="Beijing").kind == ""


def test_the_same_label_in_another_category_is_another_slot(user, city):
    # SPEC P-9: same category and the same or an equivalent label.
    assert slot_judge_one(owner_id=user.pk, category="work_study", label="City", value="Beijing").kind == ""


def test_an_archived_fact_has_no_slot_any_more(user, city):
    fact_archive(fact=city)
    assert slot_judge_one(owner_id=user.pk, category="basic", label="City", value="Beijing").kind == ""


def test_another_persons_fact_is_never_a_slot(user, other_user, city):
    assert slot_judge_one(owner_id=other_user.pk, category="basic", label="City", value="Beijing").kind == ""


@pytest.mark.parametrize(("label", "value"), [
    ("City", "Shanghai"), ("Lives in", "shanghai"), ("City", "  SHANGHAI "), ("Lives in", "Shanghai."),
])
def test_saying_what_the_fact_says_is_already_known(user, city, label, value):
    match = slot_judge_one(owner_id=user.pk, category="basic", label=label, value=value)
    assert (match.kind, match.fact) == ("known", city)


def test_a_restatement_with_filler_words_is_already_known(user):
    pet = make_fact(user, category="basic", label="Pet", value="Golden retriever Mochi")
    match = slot_judge_one(owner_id=user.pk, category="basic", label="Dog", value="Has a golden retriever named Mochi")
    assert (match.kind, match.fact) == ("known", pet)


def test_a_value_that_says_more_is_a_change_not_a_restatement(user, city):
    # "Shanghai, Xuhui district" adds to "Shanghai": confirming it must be able to change the fact.
    assert slot_judge_one(owner_id=user.pk, category="basic", label="City", value="Shanghai, Xuhui").kind == "change"


def test_chinese_restatement_by_words(user):
    fact = make_fact(user, category="preferences", label="饮食", value="不喝酒")
    match = slot_judge_one(owner_id=user.pk, category="preferences", label="Diet", value="用户不喝酒")
    assert (match.kind, match.fact) == ("known", fact)


def test_the_newest_fact_of_a_slot_is_the_one_changed(user, city):
    newer = make_fact(user, category="basic", label="Lives in", value="Hangzhou")
    assert slot_judge_one(owner_id=user.pk, category="basic", label="City", value="Beijing").fact == newer


BATCH = [
    SlotText("basic", "City", "Beijing"), SlotText("basic", "Lives in", "beijing"),
    SlotText("basic", "City", "Hangzhou"), SlotText("basic", "Pet", "Mochi"),
    SlotText("basic", "Hometown", "Beijing"),  # the same words in another slot: not a repeat
    SlotText("preferences", "Tea", "Oolong"), SlotText("habits", "Tea", "Oolong"),  # one list, two headings
    SlotText("goals", "Next trip", "Beijing"),  # another category, another label: not a repeat
]


def test_within_a_batch_a_restatement_of_an_earlier_item_is_a_duplicate(user):
    judged = slot_judge(owner_id=user.pk, within=True, items=BATCH)
    assert [m.kind for m in judged] == ["", "duplicate", "", "", "", "", "duplicate", ""]
    assert (judged[1].earlier, judged[6].earlier) == (0, 5)


def test_outside_a_batch_nothing_is_a_duplicate(user):
    assert [m.kind for m in slot_judge(owner_id=user.pk, items=BATCH)] == [""] * len(BATCH)


def test_a_value_of_filler_words_alone_says_nothing_known(user, city):
    assert slot_judge_one(owner_id=user.pk, category="basic", label="City", value="The").kind == "change"


def test_judging_many_costs_a_fixed_number_of_queries(user):
    for number in range(30):
        make_fact(user, category="basic", label=f"Thing {number}", value=f"value {number}")
    with CaptureQueriesContext(db_connection) as few:
        slot_judge(owner_id=user.pk, items=[SlotText("basic", "City", "Beijing")])
    with CaptureQueriesContext(db_connection) as many:
        slot_judge(owner_id=user.pk, items=[SlotText("basic", f"City {n}", "Beijing") for n in range(200)])
    assert len(many) == len(few) <= 2


# --- The meaning model (the shipped encoder) --------------------------------------------------------

def test_meaning_finds_a_translated_value_already_known(user, meaning):
    # SPEC P-9, S-4: "上海" says what "Shanghai" says, in the other language.
    city = make_fact(user, category="basic", label="City", value="Shanghai")
    match = slot_judge_one(owner_id=user.pk, category="basic", label="常住城市", value="上海")
    assert (match.kind, match.fact) == ("known", city)
    assert slot_judge_one(owner_id=user.pk, category="basic", label="常住城市", value="北京").kind == "change"


def test_meaning_reads_the_suggested_value_as_written(user, meaning):
    # A name keeps its capital: "Shanghai" / "上海" is 0.92, "shanghai" / "上海" 0.76.
    city = make_fact(user, category="basic", label="常住城市", value="上海")
    assert slot_judge_one(owner_id=user.pk, category="basic", label="City", value="Shanghai").fact == city
    assert slot_judge_one(owner_id=user.pk, category="basic", label="City", value="Shanghai").kind == "known"


def test_meaning_within_its_bounds_across_languages(user, meaning):
    # "北京" / "Beijing" is 0.87: known across the languages (0.85), though below the bar within one (0.92).
    city = make_fact(user, category="basic", label="City", value="Beijing")
    assert slot_judge_one(owner_id=user.pk, category="basic", label="常住城市", value="北京").kind == "known"
    # A label the table does not know, beside one it knows: the model decides ("所住城市" / "city" 0.85).
    match = slot_judge_one(owner_id=user.pk, category="basic", label="所住城市", value="上海")
    assert (match.kind, match.fact) == ("change", city)


def test_a_fact_not_embedded_yet_is_judged_by_its_words(user, meaning, settings):
    # Vectors are written by a task in production: until then the fact is compared by its words alone.
    saved, settings.SEARCH_EMBEDDINGS = settings.SEARCH_EMBEDDINGS, {}
    colour = make_fact(user, category="preferences", label="Favourite colour", value="Green")
    settings.SEARCH_EMBEDDINGS = saved
    assert slot_judge_one(owner_id=user.pk, category="preferences", label="最喜欢的颜色", value="蓝色").kind == ""
    match = slot_judge_one(owner_id=user.pk, category="preferences", label="Favourite colour", value="Green")
    assert (match.kind, match.fact) == ("known", colour)


def test_meaning_finds_a_translated_label_the_table_does_not_know(user, meaning):
    colour = make_fact(user, category="preferences", label="Favourite colour", value="Green")
    match = slot_judge_one(owner_id=user.pk, category="preferences", label="最喜欢的颜色", value="蓝色")
    assert (match.kind, match.fact) == ("change", colour)


@pytest.mark.parametrize(("old", "new"), [("Short-term goal", "Long-term goal"),
                                          ("Weekday routine", "Weekend routine"), ("早晨习惯", "晚上习惯")])
def test_meaning_keeps_apart_labels_of_one_language_that_only_look_alike(user, meaning, old, new):
    make_fact(user, category="goals", label=old, value="Run a half marathon")
    assert slot_judge_one(owner_id=user.pk, category="goals", label=new, value="Learn Spanish").kind == ""


def test_a_plural_label_is_the_same_slot(user):
    hobby = make_fact(user, category="preferences", label="Hobby", value="Film photography")
    assert slot_judge_one(owner_id=user.pk, category="preferences", label="Hobbies", value="Go").fact == hobby


# --- Submitting: judged once, the answer unchanged ---------------------------------------------------

def test_the_assistant_answer_is_unchanged_and_the_judgement_is_stored(user, connection, city):
    # SPEC P-4, P-9: the assistant learns nothing of the person's facts from the answer.
    proposal = propose(connection)
    assert proposal.status == "pending"
    stored = Proposal.objects.get(pk=proposal.pk)
    assert (stored.slot, stored.slot_fact_id, stored.slot_version) == ("change", city.pk, city.version)
    assert stored.owner_id == user.pk and stored.source == "assistant"


def test_a_new_fact_has_no_slot(user, connection):
    proposal = propose(connection)
    assert (proposal.slot, proposal.slot_fact_id) == ("", None)


# --- Confirming -------------------------------------------------------------------------------------

def test_confirming_a_change_replaces_the_fact_and_withdraws_it(user, connection, city):
    # SPEC P-9, C-2: one city; its version moves, so no assistant sees it until shared again.
    share(connection, city)
    other = make_connection(user)
    share(other, city)
    result = proposal_confirm(proposal=propose(connection, label="Lives in"), user=user, share_with_connection=False)
    city.refresh_from_db()
    assert result.status == "confirmed" and result.result_fact_id == city.pk
    assert cities(user) == ["Beijing"] and city.version == 2 and city.label == "City"
    assert not visible_facts(connection=connection).exists() and not visible_facts(connection=other).exists()


def test_replacing_may_keep_it_shared_with_the_suggesting_assistant(user, connection, city):
    share(connection, city)
    proposal_confirm(proposal=propose(connection), user=user, share_with_connection=True)
    assert list(visible_facts(connection=connection).values_list("value", flat=True)) == ["Beijing"]


def test_replacing_takes_the_suggestions_note_or_keeps_the_facts(user, connection):
    noted = make_fact(user, category="basic", label="City", value="Shanghai", evidence="my note")
    proposal_confirm(proposal=propose(connection, value="Beijing"), user=user)
    noted.refresh_from_db()
    assert (noted.value, noted.evidence) == ("Beijing", "my note")
    proposal_confirm(proposal=propose(connection, value="Hangzhou", evidence="moved in May"), user=user)
    noted.refresh_from_db()
    assert (noted.value, noted.evidence) == ("Hangzhou", "moved in May")


def test_keep_both_adds_a_second_fact(user, connection, city):
    result = proposal_confirm(proposal=propose(connection), user=user, resolution="keep")
    assert sorted(cities(user)) == ["Beijing", "Shanghai"] and result.result_fact_id != city.pk
    city.refresh_from_db()
    assert city.version == 1


def test_confirming_what_is_already_known_changes_nothing(user, connection, city):
    proposal = propose(connection, label="Lives in", value="Shanghai")
    before = Fact.objects.count()
    result = proposal_confirm(proposal=proposal, user=user)
    city.refresh_from_db()
    assert (result.status, result.slot, result.result_fact_id) == ("confirmed", "known", city.pk)
    assert Fact.objects.count() == before and city.version == 1


def test_a_fact_changed_since_is_a_conflict_and_not_overwritten(user, connection, city):
    # SPEC P-6: the replace is an update at the version the suggestion was judged against.
    proposal = propose(connection)
    fact_update(fact=city, value="Shanghai, Xuhui")
    result = proposal_confirm(proposal=proposal, user=user)
    assert result.status == "conflict"
    assert cities(user) == ["Shanghai, Xuhui"]


def test_a_fact_archived_since_makes_it_new_and_asks_again(user, connection, city):
    proposal = propose(connection)
    fact_archive(fact=city)
    with pytest.raises(ProposalError) as refused:
        proposal_confirm(proposal=proposal, user=user)
    assert refused.value.code == "slot_changed"
    proposal.refresh_from_db()
    assert (proposal.status, proposal.slot, proposal.slot_fact_id) == ("pending", "", None)
    assert proposal_confirm(proposal=proposal, user=user).result_fact.value == "Beijing"


def test_a_fact_added_after_the_suggestion_is_seen_before_confirming(user, connection):
    proposal = propose(connection)
    city = make_fact(user, category="basic", label="City", value="Shanghai")
    with pytest.raises(ProposalError) as refused:
        proposal_confirm(proposal=proposal, user=user)
    assert refused.value.code == "slot_changed" and cities(user) == ["Shanghai"]
    proposal.refresh_from_db()
    assert (proposal.slot, proposal.slot_fact_id) == ("change", city.pk)


def test_rewording_judges_again(user, connection, city):
    proposal = propose(connection, label="Hometown", value="Hangzhou")
    assert proposal.slot == ""
    edited = proposal_edit(proposal=proposal, user=user, label="Lives in")
    assert (edited.slot, edited.slot_fact_id) == ("change", city.pk)


def test_bulk_confirm_follows_the_same_rules(user, connection, city):
    # SPEC P-9: replace, already known, a second change of the same fact conflicts, a new fact is added.
    known = propose(connection, label="常住城市", value="Shanghai")  # oldest first: it is still known then
    first = propose(connection, value="Beijing")
    second = propose(connection, label="Lives in", value="Hangzhou")
    new = propose(connection, category="preferences", label="Tea", value="Oolong")
    done = proposals_confirm(connection=connection, user=user, ids={first.pk, second.pk, known.pk, new.pk})
    assert (done.confirmed, done.known, done.conflicts, done.left) == (2, 1, 1, 0)
    statuses = dict(Proposal.objects.values_list("pk", "status"))
    assert statuses[second.pk] == "conflict" and statuses[known.pk] == "confirmed"
    assert cities(user) == ["Beijing"]
    assert Fact.objects.filter(owner=user, label="Tea").count() == 1
    assert not visible_facts(connection=connection).exists()  # confirming many shares nothing


def test_bulk_confirm_never_fills_one_new_slot_twice(user, connection):
    first = propose(connection, label="City", value="Beijing")
    second = propose(connection, label="Lives in", value="Hangzhou")
    third = propose(connection, category="preferences", label="Tea", value="Oolong")  # after the one left
    done = proposals_confirm(connection=connection, user=user, ids={first.pk, second.pk, third.pk})
    assert (done.confirmed, done.left) == (2, 1)
    second.refresh_from_db()
    assert second.status == "pending" and second.slot == "change"
    assert cities(user) == ["Beijing"]


def test_bulk_confirm_takes_only_the_persons_own(user, other_user, connection, city):
    theirs = propose(make_connection(other_user), value="Paris")
    with pytest.raises(ProposalError):
        proposals_confirm(connection=connection, user=other_user, ids={theirs.pk})
    done = proposals_confirm(connection=connection, user=user, ids={theirs.pk})
    assert done.confirmed == 0 and Proposal.objects.get(pk=theirs.pk).status == "pending"
