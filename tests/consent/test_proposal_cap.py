"""SPEC P-8: one connection holds at most PROPOSAL_PENDING_LIMIT pending proposals (default 100).

Issue 19 #4: there was no cap; an assistant made 300 proposals and the
person's connection page (the one with the share form and the revoke button)
grew to 1.5 MB and 1.2 s. Beyond the cap ``propose_memory`` answers
``too_many_pending`` until the person decides some.
"""

from __future__ import annotations

import threading
from datetime import timedelta

import pytest
from django.conf import settings

from apps.consent.models import Proposal
from apps.consent.services import proposal_confirm, proposal_ignore, proposal_submit
from apps.consent.services.proposal_checks import TOO_MANY_PENDING, ProposalError
from tests.consent.factories import make_connection

pytestmark = pytest.mark.django_db


def arguments(i: int) -> dict:
    return {"op": "add", "category": "preferences", "label": f"Tea {i}", "value": f"Cup number {i}"}


def fill(connection, count: int, start: int = 0) -> list[Proposal]:
    return [proposal_submit(connection=connection, arguments=arguments(i)) for i in range(start, start + count)]


@pytest.fixture
def cap(settings):
    settings.PROPOSAL_PENDING_LIMIT = 5
    return 5


def test_the_default_cap_is_100():
    assert settings.PROPOSAL_PENDING_LIMIT == 100


def test_the_cap_at_its_default(user):
    connection = make_connection(user)
    fill(connection, 100)
    with pytest.raises(ProposalError) as refused:
        proposal_submit(connection=connection, arguments=arguments(100))
    assert refused.value.code == TOO_MANY_PENDING
    assert Proposal.objects.filter(connection=connection).count() == 100


def test_beyond_the_cap_too_many_pending_and_nothing_stored(user, cap):
    connection = make_connection(user)
    fill(connection, cap)
    with pytest.raises(ProposalError) as refused:
        proposal_submit(connection=connection, arguments=arguments(cap))
    assert refused.value.code == TOO_MANY_PENDING
    assert str(cap) in refused.value.message and "person" in refused.value.message
    assert Proposal.objects.filter(connection=connection).count() == cap


def test_an_identical_pending_proposal_still_answers_its_id_at_the_cap(user, cap):
    connection = make_connection(user)
    made = fill(connection, cap)
    assert proposal_submit(connection=connection, arguments=arguments(0)).pk == made[0].pk


def test_deciding_some_makes_room(user, cap):
    connection = make_connection(user)
    made = fill(connection, cap)
    proposal_ignore(proposal=made[0], user=user)
    proposal_confirm(proposal=made[1], user=user, share_with_connection=False)
    fill(connection, 2, start=cap)
    with pytest.raises(ProposalError):
        proposal_submit(connection=connection, arguments=arguments(cap + 2))


def test_expired_proposals_do_not_count_even_before_the_sweep(frozen_clock, user, cap):
    connection = make_connection(user)
    fill(connection, cap)
    frozen_clock.advance(timedelta(days=31))
    assert Proposal.objects.filter(connection=connection, status="pending").count() == cap  # not swept yet
    fill(connection, cap, start=cap)


def test_the_cap_is_per_connection(user, other_user, cap):
    fill(make_connection(user), cap)
    fill(make_connection(other_user), cap)
    fill(make_connection(user, application=None), cap)  # another assistant of the same person


# Under real concurrency the count and the insert are one decision: 8 submissions racing for the last 3 places.
@pytest.mark.postgres_only
@pytest.mark.django_db(transaction=True)
def test_racing_submissions_never_pass_the_cap(user, cap):
    from django.db import connection as db_connection

    connection = make_connection(user)
    fill(connection, cap - 3)
    barrier = threading.Barrier(8)
    outcomes = []

    def submit(i):
        try:
            barrier.wait()
            proposal_submit(connection=connection, arguments=arguments(100 + i))
            outcomes.append("ok")
        except ProposalError as error:
            outcomes.append(error.code)
        finally:
            db_connection.close()

    threads = [threading.Thread(target=submit, args=(i,)) for i in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert sorted(outcomes) == ["ok"] * 3 + [TOO_MANY_PENDING] * 5
    assert Proposal.objects.filter(connection=connection, status="pending").count() == cap
