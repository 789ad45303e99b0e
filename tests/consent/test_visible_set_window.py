"""The visible set's one read returns facts only when asked for a window (SPEC C-1, M-4)."""

import pytest

from apps.consent.selectors.visible_set import visible_set_read
from tests.consent.factories import make_connection, make_fact, share

pytestmark = pytest.mark.django_db


# SPEC C-1, M-4: without a window the read is the digests of the whole set and no fact; the facts come
# only in the window asked for.
def test_the_default_read_is_digests_only(user):
    connection = make_connection(user)
    facts = [make_fact(user, label=f"Label {i}", value=f"Value {i}") for i in range(3)]
    share(connection, *facts)
    read = visible_set_read(connection=connection)
    assert read.count == 3 and read.rows == ()
    assert [row[0] for row in visible_set_read(connection=connection, limit=2).rows] == [f.pk for f in facts[:2]]
