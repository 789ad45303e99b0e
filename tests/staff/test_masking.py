"""What staff see of a person's rows without a reveal: structure, sizes, never content (SPEC AD-2)."""

from __future__ import annotations

import pytest
from django.contrib import admin
from django.test import RequestFactory
from django.urls import reverse
from oauth2_provider.models import get_application_model

from apps.common.errors import CodedError
from apps.memory.admin import FactAdmin
from apps.memory.models import Contact, Fact
from apps.memory.services import contact_create, fact_create
from apps.staff.masking import PersonalAdmin
from apps.staff.models import AccessRecord
from apps.staff.selectors import revealed_person_id
from apps.staff.services import staff_access_record, staff_reveal

pytestmark = pytest.mark.django_db

REASON = "Checking a record the person reported"


@pytest.fixture
def fact(user):
    return fact_create(owner=user, category="habits", label="Coffee", value="Two cups each morning")


# SPEC AD-2: a list keeps its structure — id link, owner, category, version, flags, checkboxes — and shows each
# content cell as "hidden" with its size.
def test_the_masked_list_keeps_structure(admin_client, user, fact):
    contact = contact_create(owner=user, display_name="Wang", aliases=["Xiao Wang"], relation="colleague")
    html = admin_client.get(reverse("admin:memory_fact_changelist"), HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "Two cups" not in html and "Coffee" not in html
    assert "hidden · 21 characters" in html and "hidden · 6 characters" in html
    assert f'href="/admin/memory/fact/{fact.pk}/change/' in html and 'class="action-select"' in html
    assert ">alice<" in html and "Habits" in html
    row = admin_client.get(reverse("admin:memory_contact_changelist"), HTTP_ACCEPT_LANGUAGE="en")
    html = row.content.decode()
    assert "hidden · 4 characters" in html and "hidden</td>" in html  # display name; the alias list (a method)
    assert "Wang" not in html and "colleague" not in html
    change = admin_client.get(reverse("admin:memory_contact_change", args=[contact.pk]), HTTP_ACCEPT_LANGUAGE="en")
    assert "hidden · 1 item" in change.content.decode()


# SPEC AD-2: lists filter by structure only: no filter reads a value out of the person's rows.
def test_filters_are_structure(admin_client, user, fact):
    contact_create(owner=user, display_name="Wang", relation="colleague")
    def filtered_by(url):
        specs = admin_client.get(url).context["cl"].filter_specs
        return {getattr(spec, "field_path", None) or spec.parameter_name for spec in specs}

    assert filtered_by(reverse("admin:memory_contact_changelist")) == {"deleted", "created_at"}
    assert {"category", "certainty", "sensitive", "status"} <= filtered_by(reverse("admin:memory_fact_changelist"))


# SPEC AD-2: a masked change form offers the reveal; a form with nothing hidden (a token family) does not.
def test_the_masked_form_offers_the_reveal(admin_client, user, admin_user, fact, frozen_clock):
    url = reverse("admin:memory_fact_change", args=[fact.pk])
    reveal = reverse("admin:staff_accessrecord_reveal") + f"?person={user.pk}"
    assert reveal in admin_client.get(url).content.decode()
    masked = admin_client.get(url).content.decode()
    assert masked.index(reveal) < masked.index("field-hidden__")  # the reveal comes before the first hidden field
    staff_reveal(staff=admin_user, person=user, reason=REASON)
    page = admin_client.get(url).content.decode()
    assert reveal not in page and "Two cups each morning" in page
    assert "staff_reveal_link" not in str(admin_client.get(reverse("admin:memory_fact_add")).context["adminform"])


# SPEC AD-2: rows of fields on one line are masked like single fields.
def test_fields_on_one_line_are_masked(user, admin_user, fact):
    class Lined(PersonalAdmin):
        fields = (("category", "label"), "value", "certainty")
        shown = ("category", "certainty")

    lined = Lined(Fact, admin.site)
    request = RequestFactory().get("/")
    request.user = admin_user
    [(_, options)] = lined.get_fieldsets(request, fact)[1:]
    assert options["fields"] == [("category", "hidden__label"), "hidden__value", "certainty"]
    assert {"hidden__label", "hidden__value"} <= set(lined.get_readonly_fields(request, fact))
    assert lined.get_fieldsets(request, None) == [(None, {"fields": Lined.fields})]


# SPEC AD-2: the reveal ends when the staff member stops being active staff.
@pytest.mark.parametrize("flag", ["is_staff", "is_active"])
def test_the_reveal_needs_active_staff(user, admin_user, frozen_clock, flag):
    staff_reveal(staff=admin_user, person=user, reason=REASON)
    assert revealed_person_id(staff=admin_user) == user.pk
    setattr(admin_user, flag, False)
    assert revealed_person_id(staff=admin_user) is None


# SPEC AD-2: the limits of what is written: a reason of 10 to 2000 characters, a ticket of at most 100, an
# action code of 1 to 64.
def test_the_limits(user, admin_user, frozen_clock):
    staff_reveal(staff=admin_user, person=user, reason="x" * 10, ticket="t" * 100)
    staff_reveal(staff=admin_user, person=user, reason="x" * 2000)
    for reason, ticket in [("x" * 9, ""), ("x" * 2001, ""), (REASON, "t" * 101)]:
        with pytest.raises(CodedError):
            staff_reveal(staff=admin_user, person=user, reason=reason, ticket=ticket)
    staff_access_record(staff=admin_user, person=user, action="a" * 64)
    for action in ["", "a" * 65]:
        with pytest.raises(CodedError):
            staff_access_record(staff=admin_user, person=user, action=action)
    assert AccessRecord.objects.count() == 3


# SPEC AD-2: a bulk deletion from the list is recorded like one from a record's page.
def test_a_bulk_deletion_is_recorded(admin_client, user, other_user, fact):
    theirs = fact_create(owner=other_user, category="basic", label="Name", value="Bob")
    url = reverse("admin:memory_fact_changelist")
    selection = {"action": "delete_selected", "_selected_action": [fact.pk, theirs.pk]}
    admin_client.post(url, selection)  # the confirmation page: nothing deleted, nothing recorded
    assert not AccessRecord.objects.exists()
    admin_client.post(url, {**selection, "post": "yes"})
    assert not Fact.objects.exists()
    assert sorted((r.person.username, r.action, r.records) for r in AccessRecord.objects.all()) == [
        ("alice", "delete", [f"fact:{fact.pk}"]), ("bob", "delete", [f"fact:{theirs.pk}"])]


# SPEC AD-2: every admin of a person's rows masks through the one base, and every registered model that
# belongs to a person has such an admin.
def test_every_personal_model_has_the_masking_admin():
    personal = {Fact, Contact}
    for model, model_admin in admin.site._registry.items():
        if model is get_application_model():
            continue  # an OAuth client's ``user`` is who registered it; the client holds nobody's data
        owner_fields = {f.name for f in model._meta.get_fields()
                        if f.concrete and f.is_relation and f.name in ("owner", "user", "connection")}
        if owner_fields or model in personal:
            assert isinstance(model_admin, PersonalAdmin), model
    assert isinstance(admin.site._registry[Fact], FactAdmin)


# SPEC AD-2: the revealed person's rows show in a list as the admin shows them unmasked — a field by its
# display (a choice by its label), a method column by its value.
def test_the_revealed_list_shows_content_as_the_admin_does(admin_client, user, admin_user, frozen_clock):
    contact_create(owner=user, display_name="Wang", aliases=["Xiao Wang"], relation="colleague")
    staff_reveal(staff=admin_user, person=user, reason=REASON)
    html = admin_client.get(reverse("admin:memory_contact_changelist"), HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "Wang" in html and "Xiao Wang" in html and "hidden ·" not in html.split("<tbody>", 1)[1]


# SPEC AD-2: whatever a change form lays out — its own ``fields`` or the model's — each content field has its
# masked stand-in, so the form renders for every row.
def test_every_content_field_has_its_stand_in(admin_user, rf, user, fact):
    class Undeclared(PersonalAdmin):
        shown = ("id", "owner", "category")

    model_admin = Undeclared(Fact, admin.site)
    request = rf.get("/")
    request.user = admin_user
    names = [name for _, options in model_admin.get_fieldsets(request, fact) for name in options["fields"]]
    assert "hidden__value" in names and "hidden__evidence" in names
    assert all(hasattr(model_admin, name) for name in names if name.startswith("hidden__"))
    staff_reveal(staff=admin_user, person=user, reason=REASON)  # revealed: the fields, and no stand-in beside them
    request = rf.get("/")
    request.user = admin_user
    names = [name for _, options in model_admin.get_fieldsets(request, fact) for name in options["fields"]]
    assert "value" in names and not any(name.startswith("hidden__") for name in names)


# SPEC AD-2: in a form of several fieldsets the reveal comes first, before any of them.
def test_the_reveal_comes_before_every_fieldset(admin_user, rf, fact):
    class Sectioned(PersonalAdmin):
        shown = ("id", "owner", "category")
        fieldsets = ((None, {"fields": ("owner", "category")}), ("Content", {"fields": ("label", "value")}))

    request = rf.get("/")
    request.user = admin_user
    fieldsets = Sectioned(Fact, admin.site).get_fieldsets(request, fact)
    assert fieldsets[0] == (None, {"fields": ["staff_reveal_link"]})
    assert [options["fields"] for _, options in fieldsets[1:]] == [["owner", "category"],
                                                                   ["hidden__label", "hidden__value"]]
