"""SPEC C-1 … C-3, C-5, C-7: what a connection may see, decided in one selector."""

import pytest

from apps.consent.models import FactShare
from apps.consent.selectors.visibility import visible_facts
from apps.consent.services import ConsentError, connection_narrow, connection_revoke, shares_set
from apps.memory.services import fact_archive, fact_update
from tests.consent.factories import make_connection, make_fact, share

pytestmark = pytest.mark.django_db


def visible_ids(connection):
    return list(visible_facts(connection=connection).values_list("id", flat=True))


# SPEC C-3: granting categories shares nothing by itself.
def test_nothing_visible_until_shared(user):
    connection = make_connection(user)
    make_fact(user)
    assert visible_ids(connection) == []


# SPEC C-1: a confirmed, shared, current, non-sensitive fact in a granted shareable category.
def test_shared_fact_is_visible(user):
    connection = make_connection(user)
    fact = make_fact(user)
    share(connection, fact)
    assert visible_ids(connection) == [fact.pk]


# SPEC C-1: each condition on its own hides the fact.
@pytest.mark.parametrize(
    "change",
    [
        lambda fact: fact_update(fact=fact, sensitive=True),
        lambda fact: fact_update(fact=fact, certainty="guess"),
        lambda fact: fact_archive(fact=fact),
    ],
    ids=["sensitive", "guess", "archived"],
)
def test_each_condition_hides(user, change):
    connection = make_connection(user)
    fact = make_fact(user)
    share(connection, fact)
    change(fact)
    assert visible_ids(connection) == []


# SPEC C-1: a share row at the current version in a non-shareable category still never counts.
def test_closed_category_never_visible_even_with_a_share_row(user):
    connection = make_connection(user)
    fact = make_fact(user, category="health", label="Allergy", value="Peanuts")
    FactShare.objects.create(connection=connection, fact=fact, fact_version=fact.version, shared_at=fact.created_at)
    assert visible_ids(connection) == []


# SPEC C-1: same owner only, even with a forged share row.
def test_other_owners_fact_never_visible(user, other_user):
    connection = make_connection(user)
    foreign = make_fact(other_user)
    FactShare.objects.create(connection=connection, fact=foreign, fact_version=1, shared_at=foreign.created_at)
    assert visible_ids(connection) == []


# SPEC C-2: editing content voids the share until confirmed again; evidence does not.
def test_content_edit_voids_share_until_reconfirmed(user):
    connection = make_connection(user)
    fact = make_fact(user)
    share(connection, fact)
    fact_update(fact=fact, evidence="mentioned it again")
    assert visible_ids(connection) == [fact.pk]
    fact_update(fact=fact, value="Oolong in the afternoon")
    assert visible_ids(connection) == []
    share(connection, fact)
    assert visible_ids(connection) == [fact.pk]
    assert FactShare.objects.get(connection=connection, fact=fact).fact_version == 2


# SPEC C-1: only ids the user may share are accepted, and a bad id refuses the whole set.
def test_shares_set_refuses_ineligible_as_a_whole(user, other_user):
    connection = make_connection(user)
    mine = make_fact(user)
    sensitive = make_fact(user, label="Card", value="note", sensitive=True)
    foreign = make_fact(other_user)
    for bad in (sensitive, foreign):
        with pytest.raises(ConsentError):
            shares_set(connection=connection, fact_ids={mine.pk, bad.pk})
    assert not FactShare.objects.exists()


# SPEC C-5, C-6: narrowing a category hides its facts; widening is refused.
def test_narrowing_hides_and_widening_is_refused(user):
    connection = make_connection(user, categories={"preferences", "habits"})
    tea = make_fact(user)
    run = make_fact(user, category="habits", label="Running", value="5 km on Sundays")
    share(connection, tea, run)
    connection = connection_narrow(connection=connection, categories={"habits"})
    assert visible_ids(connection) == [run.pk]
    with pytest.raises(ConsentError) as refused:
        connection_narrow(connection=connection, categories={"habits", "goals"})
    assert refused.value.code == "widening_refused"
    with pytest.raises(ConsentError):
        connection_narrow(connection=connection, scopes={"profile:read", "unknown:scope"})


# SPEC A-5: removing profile:read also removes context:search.
def test_removing_read_removes_search(user):
    connection = make_connection(user)
    connection = connection_narrow(connection=connection, scopes={"profile:propose", "context:search"})
    assert connection.scopes == ["profile:propose"]


# SPEC C-7: revocation hides everything at once and drops the shares.
def test_revocation_hides_everything(user):
    connection = make_connection(user)
    fact = make_fact(user)
    share(connection, fact)
    connection_revoke(connection=connection)
    connection.refresh_from_db()
    assert visible_ids(connection) == []
    assert not FactShare.objects.filter(connection=connection).exists()
    with pytest.raises(ConsentError):
        shares_set(connection=connection, fact_ids={fact.pk})


# SPEC C-4, A-5: closed categories and search without read cannot be granted.
@pytest.mark.parametrize(
    "scopes,categories,code",
    [
        ({"profile:read"}, {"health"}, "category_not_allowed"),
        ({"context:search"}, {"basic"}, "invalid_scope"),
        ({"profile:write"}, {"basic"}, "invalid_scope"),
    ],
)
def test_authorize_refuses_what_cannot_be_granted(user, scopes, categories, code):
    with pytest.raises(ConsentError) as refused:
        make_connection(user, scopes=scopes, categories=categories)
    assert refused.value.code == code
