"""People in admin (SPEC AD-1)."""

import pytest
from django.urls import reverse

from apps.memory.services import fact_archive, fact_create

pytestmark = pytest.mark.django_db


# SPEC AD-1: the user list is useful — searchable, filterable, with each person's active fact count.
def test_user_changelist_search_and_counts(admin_client, user, other_user):
    fact_create(owner=user, category="basic", label="称呼", value="小林")
    fact_archive(fact=fact_create(owner=user, category="basic", label="Old", value="gone"))
    listing = admin_client.get(reverse("admin:accounts_user_changelist"))
    assert listing.status_code == 200
    counts = {u.username: u.active_fact_count for u in listing.context["cl"].result_list}
    assert counts["alice"] == 1 and counts["bob"] == 0
    found = admin_client.get(reverse("admin:accounts_user_changelist"), {"q": "ali"})
    assert [u.username for u in found.context["cl"].result_list] == ["alice"]
    staff = admin_client.get(reverse("admin:accounts_user_changelist"), {"is_staff__exact": "1"})
    assert [u.username for u in staff.context["cl"].result_list] == ["admin"]


# SPEC AD-1: a person's page links to their facts, and that filtered list works.
def test_user_change_page_links_to_facts(admin_client, user):
    fact_create(owner=user, category="basic", label="称呼", value="小林")
    page = admin_client.get(reverse("admin:accounts_user_change", args=[user.pk]))
    assert page.status_code == 200
    link = reverse("admin:memory_fact_changelist") + f"?owner__id__exact={user.pk}"
    assert link in page.content.decode()
    facts = admin_client.get(link)
    assert facts.status_code == 200 and facts.context["cl"].result_count == 1


# SPEC AD-1: adding a person in admin still works with the custom user model.
def test_user_add_page(admin_client):
    assert admin_client.get(reverse("admin:accounts_user_add")).status_code == 200
