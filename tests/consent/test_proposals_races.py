"""SPEC P-4, P-6 under real concurrency (PostgreSQL: row locks and the partial unique index).

Each thread has its own database connection, closed when the thread ends.
"""

from __future__ import annotations

import threading
import time

import pytest
from django.db import connection as db_connection
from django.db import transaction

from apps.consent.models import Proposal
from apps.consent.services import proposal_confirm, proposal_submit
from apps.memory.models import Fact
from apps.memory.services import fact_update
from tests.consent.factories import make_connection, make_fact, share

pytestmark = [pytest.mark.postgres_only, pytest.mark.django_db(transaction=True)]

HOLD = 0.5  # seconds a thread keeps its transaction open while the other one waits


def run_threads(*targets):
    """Run each target in its own thread with its own connection; re-raise the first error."""
    errors, results = [], [None] * len(targets)

    def wrap(index, target):
        try:
            results[index] = target()
        except BaseException as error:  # handed to the test below
            errors.append(error)
        finally:
            db_connection.close()

    threads = [threading.Thread(target=wrap, args=(i, t)) for i, t in enumerate(targets)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert not any(thread.is_alive() for thread in threads), "a thread hung"
    if errors:
        raise errors[0]
    return results


# SPEC P-4: twenty identical submissions at once make one proposal, and all get its id.
def test_twenty_identical_submissions_make_one_proposal(user):
    conn = make_connection(user)
    arguments = {"op": "add", "category": "preferences", "label": "Coffee", "value": "Flat white"}
    barrier = threading.Barrier(20)

    def submit():
        barrier.wait()
        return proposal_submit(connection=conn, arguments=dict(arguments)).pk

    ids = run_threads(*[submit] * 20)
    assert Proposal.objects.count() == 1
    assert set(ids) == {Proposal.objects.get().pk}


@pytest.fixture
def update_proposal(user):
    conn = make_connection(user)
    fact = make_fact(user, label="Tea", value="Green tea")
    share(conn, fact)
    proposal = proposal_submit(connection=conn, arguments={"op": "update", "target_fact_id": fact.pk,
                                                           "value": "Jasmine tea"})
    return fact, proposal


# SPEC P-6: the person's edit commits first while the confirm waits → conflict, the edit stays.
def test_edit_first_then_confirm_is_a_conflict(user, update_proposal):
    fact, proposal = update_proposal
    barrier = threading.Barrier(2)

    def edit():
        with transaction.atomic():
            fact_update(fact=fact, value="Edited by the person")
            barrier.wait()  # the fact row is locked now
            time.sleep(HOLD)

    def confirm():
        barrier.wait()
        started = time.monotonic()
        result = proposal_confirm(proposal=proposal, user=user)
        return result.status, time.monotonic() - started

    _, (status, waited) = run_threads(edit, confirm)
    assert waited >= HOLD * 0.8  # it really waited for the edit's lock
    assert status == "conflict"
    fact = Fact.objects.get(pk=fact.pk)
    assert (fact.value, fact.version) == ("Edited by the person", 2)


# SPEC P-6: the confirm commits first while the edit waits → the edit lands on top, never lost.
def test_confirm_first_then_edit_lands_on_top(user, update_proposal):
    fact, proposal = update_proposal
    barrier = threading.Barrier(2)

    def confirm():
        with transaction.atomic():
            status = proposal_confirm(proposal=proposal, user=user).status
            barrier.wait()  # the proposal and the fact are locked now
            time.sleep(HOLD)
        return status

    def edit():
        barrier.wait()
        started = time.monotonic()
        fact_update(fact=fact, value="Edited by the person")
        return time.monotonic() - started

    status, waited = run_threads(confirm, edit)
    assert waited >= HOLD * 0.8
    assert status == "confirmed"
    fact = Fact.objects.get(pk=fact.pk)
    assert (fact.value, fact.version) == ("Edited by the person", 3)
