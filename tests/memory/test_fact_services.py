import pytest
from django.core.exceptions import ValidationError
from django.db import DataError, IntegrityError, transaction

from apps.memory.models import Fact
from apps.memory.services import FactArchived, FactVersionConflict, fact_archive, fact_create, fact_update

pytestmark = pytest.mark.django_db


def make_fact(owner, **overrides):
    fields = {"category": "preferences", "label": "Coffee", "value": "Flat white, no sugar", "evidence": "said so"}
    return fact_create(owner=owner, **{**fields, **overrides})


# SPEC C-2
@pytest.mark.parametrize("field,new", [("category", "habits"), ("label", "Morning coffee"), ("value", "Espresso")])
def test_version_bumps_on_content_change(user, field, new):
    fact = make_fact(user)
    assert fact.version == 1
    updated = fact_update(fact=fact, **{field: new})
    assert updated.version == 2
    assert Fact.objects.get(pk=fact.pk).version == 2


# SPEC C-2: evidence, certainty and the sensitive flag are not content.
@pytest.mark.parametrize("field,new", [("evidence", "mentioned twice"), ("certainty", "guess"), ("sensitive", True)])
def test_no_version_bump_on_non_content_change(user, field, new):
    fact = make_fact(user)
    updated = fact_update(fact=fact, **{field: new})
    assert getattr(updated, field) == new
    assert updated.version == 1


def test_unchanged_values_do_not_bump(user):
    fact = make_fact(user)
    assert fact_update(fact=fact, label="Coffee", value=" Flat white, no sugar ").version == 1


def test_stale_expected_version_is_refused(user):
    fact = make_fact(user)
    fact_update(fact=fact, value="Latte")
    with pytest.raises(FactVersionConflict):
        fact_update(fact=fact, expected_version=1, value="Mocha")
    assert Fact.objects.get(pk=fact.pk).value == "Latte"


# SPEC C-2: a stale edit asking for exactly what is saved now overwrites nothing, so it is no conflict.
def test_stale_edit_that_changes_nothing_is_no_conflict(user):
    fact = make_fact(user)
    fact_update(fact=fact, value="Latte")
    again = fact_update(fact=fact, expected_version=1, value=" Latte ")
    assert (again.value, again.version) == ("Latte", 2)


# SPEC W-2, C-2: an edit meant for the live fact, checked under the row's lock, changes nothing once it is
# archived (a page opened before the archive); others may still edit an archived fact.
def test_an_edit_for_the_live_fact_refuses_an_archived_one(user):
    fact = fact_archive(fact=make_fact(user))
    with pytest.raises(FactArchived):
        fact_update(fact=fact, expected_version=1, active_only=True, value="Latte")
    fact.refresh_from_db()
    assert (fact.value, fact.version) != ("Latte", 2)
    assert fact_update(fact=fact, sensitive=True).sensitive


def test_archive_keeps_version(user):
    fact = fact_archive(fact=make_fact(user))
    assert (fact.status, fact.version) == ("archived", 1)


@pytest.mark.parametrize(
    "overrides",
    [
        {"label": "x" * 41}, {"value": "x" * 301}, {"evidence": "x" * 301}, {"evidence": "two\nlines"},
        {"category": "secrets"},
    ],
)
def test_service_refuses_bad_fields(user, overrides):
    with pytest.raises(ValidationError):
        make_fact(user, **overrides)
    assert not Fact.objects.exists()


def test_limits_at_the_edge_pass(user):
    fact = make_fact(user, label="x" * 40, value="y" * 300, evidence="z" * 300)
    assert (len(fact.label), len(fact.value), len(fact.evidence)) == (40, 300, 300)


# The database itself holds the invariants, whoever writes.
@pytest.mark.parametrize(
    "column,bad",
    [
        ("category", "secrets"),
        ("certainty", "maybe"),
        ("status", "deleted"),
        ("version", 0),
        ("label", "x" * 41),
        ("value", "y" * 301),
        ("evidence", "line one\nline two"),
        ("evidence", "e" * 301),
        ("label", ""),
    ],
)
def test_database_constraints_reject_bad_rows(user, column, bad):
    fact = make_fact(user)
    with pytest.raises((IntegrityError, DataError)), transaction.atomic():
        Fact.objects.filter(pk=fact.pk).update(**{column: bad})


# SPEC D-1: `sensitive` is set by detection when the caller does not decide.
@pytest.mark.parametrize(
    "label,value",
    [("手机", "13812345678"), ("身份证", "11010519491231002X"), ("Wi-Fi", "password: hunter2")],
)
def test_detector_marks_new_fact_sensitive(user, label, value):
    assert make_fact(user, label=label, value=value).sensitive is True


# SPEC D-1: an explicit choice of the user wins over detection.
def test_explicit_sensitive_choice_is_kept(user):
    assert make_fact(user, label="Phone", value="13812345678", sensitive=False).sensitive is False
    assert make_fact(user, label="Diagnosis", value="Mild asthma", sensitive=True).sensitive is True


# SPEC D-1, C-1: new content is checked again; a fact that now holds a secret is no longer shareable.
def test_update_with_secret_turns_sensitive_on(user):
    fact = make_fact(user, label="Wi-Fi", value="Home network is fast")
    assert fact.sensitive is False and Fact.objects.shareable().filter(pk=fact.pk).exists()
    updated = fact_update(fact=fact, value="家里 WiFi 密码：lifeos2024")
    assert updated.sensitive is True and not Fact.objects.shareable().filter(pk=fact.pk).exists()
    assert Fact.objects.get(pk=fact.pk).sensitive is True
