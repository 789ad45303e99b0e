"""Expiring one proposal by hand leaves every other as it is (SPEC P-5)."""

import pytest

from apps.consent.models import Proposal
from apps.consent.services import proposal_expire, proposal_submit
from tests.consent.factories import make_connection

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("frozen_clock")]


def add(connection, label):
    return proposal_submit(connection=connection, arguments={
        "op": "add", "category": "preferences", "label": label, "value": "Every morning"})


# SPEC P-5: staff expire one pending proposal among several; the others stay pending and confirmable.
def test_expiring_one_proposal_leaves_the_others_pending(user, other_user):
    mine = make_connection(user)
    theirs = make_connection(other_user)
    # The one to expire is neither the first nor the last row.
    neighbour, target, elsewhere = add(mine, "Tea"), add(mine, "Coffee"), add(theirs, "Coffee")
    expired = proposal_expire(proposal=target)
    assert expired.pk == target.pk and expired.status == "expired" and expired.decided_at is not None
    statuses = dict(Proposal.objects.values_list("pk", "status"))
    assert statuses == {target.pk: "expired", neighbour.pk: "pending", elsewhere.pk: "pending"}


# SPEC P-5: a proposal no longer pending is left as decided.
def test_expiring_a_decided_proposal_changes_nothing(user):
    connection = make_connection(user)
    proposal = add(connection, "Coffee")
    Proposal.objects.filter(pk=proposal.pk).update(status="ignored")
    assert proposal_expire(proposal=proposal).status == "ignored"
    assert Proposal.objects.get(pk=proposal.pk).status == "ignored"
