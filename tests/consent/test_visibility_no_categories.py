"""A connection without a shareable category sees nothing, whatever was shared with it (SPEC C-1, D-2)."""

import pytest

from apps.consent.selectors.visibility import visible_facts
from apps.consent.selectors.visible_set import EMPTY_READ, WINDOW_FIELDS, visible_fact_values, visible_set_read
from apps.memory.models import Fact
from tests.consent.factories import make_connection, make_fact, share

pytestmark = pytest.mark.django_db


# SPEC C-1, D-2: health is never shareable; a connection holding only it reads an empty set, as a list.
def test_only_unshareable_categories_read_an_empty_set(user):
    connection = make_connection(user, categories=["preferences"])
    share(connection, make_fact(user))
    connection.categories = ["health"]
    connection.save(update_fields=["categories"])
    assert Fact.objects.filter(shares__connection=connection).count() == 1
    assert visible_fact_values(connection=connection, fields=WINDOW_FIELDS) == []
    assert list(visible_facts(connection=connection)) == []
    assert visible_set_read(connection=connection, limit=None) == EMPTY_READ
