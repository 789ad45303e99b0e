"""Only a fact's content, evidence, certainty and sensitive flag can be edited (SPEC C-1, C-2, D-1).

Who owns a fact, whether it is archived and which version it is at are the
conditions C-1 and C-2 decide on; ``fact_update`` refuses to set them, so
no edit can move a fact to another person, revive it or re-validate an
old share by turning its version back.
"""

import pytest
from django.core.exceptions import ValidationError

from apps.memory.models import Fact
from apps.memory.services import fact_create, fact_update

pytestmark = pytest.mark.django_db


# SPEC C-1, C-2: owner, status and version are not editable; nothing is saved.
@pytest.mark.parametrize("field", ["owner", "status", "version", "created_at"])
def test_fields_outside_the_editable_ones_are_refused(user, other_user, field):
    fact = fact_create(owner=user, category="preferences", label="Coffee", value="Flat white")
    new = {"owner": other_user, "status": "archived", "version": 7, "created_at": fact.created_at}[field]
    before = Fact.objects.values().get(pk=fact.pk)
    with pytest.raises(ValidationError) as caught:
        fact_update(fact=fact, label="Tea", **{field: new})
    assert field in caught.value.message_dict
    assert Fact.objects.values().get(pk=fact.pk) == before
