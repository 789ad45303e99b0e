"""Proposals: what an assistant suggests and the person decides (SPEC P-1 … P-7, D-5, J-2).

Design notes: docs/design.md.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import Case, Value, When

from apps.common import clock
from apps.consent.models import Connection, FactShare, Proposal
from apps.consent.selectors.slots import CHANGE, KNOWN, SlotMatch, slot_judge_one
from apps.consent.selectors.visibility import connection_categories, shareable_facts, visible_facts
from apps.consent.services.connections import ConsentError
from apps.consent.services.proposal_checks import (
    ADD,
    ARCHIVE,
    CATEGORY_NOT_ALLOWED,
    CONTENT_FIELDS,
    DUPLICATE_PROCESSED,
    INVALID_ARGUMENT,
    NOT_FOUND,
    PROPOSAL_EXPIRED,
    TOO_MANY_PENDING,
    ProposalArguments,
    ProposalError,
    check_content,
    check_text,
    fingerprint,
    parse_arguments,
)
from apps.memory.models import Category, Fact, FactStatus
from apps.memory.services import fact_archive, fact_create, fact_update
from apps.memory.services.facts import FactArchived, FactVersionConflict

if TYPE_CHECKING:
    from apps.accounts.models import User

# SPEC P-5 (home)
PROPOSAL_LIFETIME = timedelta(days=30)  # SPEC P-5, D-5

# Codes of refused actions on the page (not MCP tool codes).
FORBIDDEN = "forbidden"
NOT_PENDING = "not_pending"
SLOT_CHANGED = "slot_changed"  # SPEC P-9: the person's facts changed what the suggestion is; shown again

# How the person resolves an ``add`` that changes a fact (SPEC P-9): the default replaces it.
REPLACE, KEEP = "replace", "keep"

Status = Proposal.Status

__all__ = [
    "PROPOSAL_LIFETIME",
    "ProposalError",
    "proposal_confirm",
    "proposal_edit",
    "proposal_expire",
    "proposal_expire_due",
    "proposal_ignore",
    "proposal_submit",
]


def _is_due(proposal: Proposal, now: datetime) -> bool:
    return proposal.status == Status.PENDING and now >= proposal.expires_at


def _expire(proposal: Proposal, now: datetime) -> None:
    proposal.status, proposal.decided_at = Status.EXPIRED, now
    proposal.save(update_fields=["status", "decided_at"])


def _expired_error() -> ProposalError:
    return ProposalError(
        PROPOSAL_EXPIRED, "this proposal expired 30 days after it was made and can no longer be acted on"
    )


# --- Submitting (the assistant, through MCP) ---------------------------------------------------

def _check_target_and_category(connection: Connection, args: ProposalArguments) -> Fact | None:
    target = None
    if args.target_fact_id is not None:
        target = visible_facts(connection=connection).filter(pk=args.target_fact_id).first()
        if target is None:
            raise ProposalError(NOT_FOUND, f"fact {args.target_fact_id} is not a fact this assistant can see",
                                "target_fact_id")
    allowed = connection_categories(connection)
    if args.category and args.category not in allowed:
        raise ProposalError(
            CATEGORY_NOT_ALLOWED,
            f"category {args.category!r} is not shared with this assistant; allowed: {', '.join(allowed) or 'none'}",
            "category",
        )
    return target


def _earlier(connection: Connection, digest: str, now: datetime) -> Proposal | ProposalError | None:
    """What an identical earlier proposal means for this one (SPEC P-4), read in one statement.

    One query, so a concurrent identical submission is seen either as pending or not at all.
    """
    earlier = (
        Proposal.objects.filter(connection=connection, fingerprint=digest)
        .annotate(live=Case(When(status=Status.PENDING, then=Value(0)), default=Value(1)))
        .order_by("live", "-created_at", "-id")
        .first()
    )
    if earlier is None:
        return None
    if earlier.status == Status.PENDING:
        if not _is_due(earlier, now):
            return earlier  # the same proposal, the same id
        _expire(earlier, now)
        return _expired_error()
    if earlier.status == Status.EXPIRED:
        return _expired_error()
    # The same words whatever the person decided: a proposal confirmed but not shared must not tell
    # the assistant that the fact now exists (SPEC C-8).
    return ProposalError(DUPLICATE_PROCESSED, "an identical proposal was already handled by the person")


# SPEC P-8 (home)
def _pending_cap_error(connection: Connection, now: datetime) -> ProposalError | None:
    """SPEC P-8: ``too_many_pending`` when the connection already holds the most pending proposals allowed.

    Counted under the connection row's lock; expired proposals do not count, swept or not (SPEC J-2).
    """
    limit = settings.PROPOSAL_PENDING_LIMIT
    Connection.objects.select_for_update().filter(pk=connection.pk).exists()
    pending = Proposal.objects.filter(connection=connection, status=Status.PENDING, expires_at__gt=now)
    if pending[:limit].count() < limit:
        return None
    return ProposalError(
        TOO_MANY_PENDING,
        f"this assistant already has {limit} suggestions waiting for the person; no more are accepted until "
        "the person confirms or ignores some of them",
    )


def _submit(connection: Connection, args: ProposalArguments) -> Proposal | ProposalError:
    target = _check_target_and_category(connection, args)
    now = clock.now()
    digest = fingerprint(args)
    earlier = _earlier(connection, digest, now)
    if earlier is not None:
        return earlier
    if (refused := _pending_cap_error(connection, now)) is not None:
        return refused
    proposal = Proposal(
        owner_id=connection.user_id, source=Proposal.Source.ASSISTANT, connection=connection, op=args.op,
        category=args.category, label=args.label, value=args.value,
        evidence=args.evidence, target_fact=target, target_version=target.version if target else None,
        status=Status.PENDING, fingerprint=digest, created_at=now, expires_at=now + PROPOSAL_LIFETIME,
    )
    if args.op == ADD:  # SPEC P-9: judged once here, shown from the row; the answer stays P-4's
        slot_store(proposal, slot_judge_one(owner_id=connection.user_id, category=args.category,
                                            label=args.label, value=args.value), save=False)
    try:
        with transaction.atomic():
            proposal.save()
    except IntegrityError:
        # Under concurrency an identical proposal committed first (the partial unique
        # constraint refused ours): answer with it.
        earlier = _earlier(connection, digest, now)
        if earlier is None:
            raise
        return earlier
    return proposal


# SPEC P-4 (home)
def proposal_submit(*, connection: Connection, arguments: dict[str, Any]) -> Proposal:
    """Store an assistant's proposal as pending, or answer the identical pending one (SPEC P-1 … P-4, P-8).

    Refuses with ``ProposalError``; the op's scope is checked by the caller. Safe under concurrency.
    """
    args = parse_arguments(arguments)
    check_content(args)
    if connection.revoked_at is not None:
        raise ConsentError("revoked", "this assistant's access was revoked")
    with transaction.atomic():
        outcome = _submit(connection, args)
    if isinstance(outcome, ProposalError):
        raise outcome
    return outcome


# --- Deciding (the person, on the web page) ----------------------------------------------------

def _lock(proposal: Proposal, user: User) -> Proposal:
    """The proposal, row-locked, if it belongs to one of ``user``'s connections."""
    locked = (
        Proposal.objects.select_for_update(of=("self",)).select_related("connection").filter(pk=proposal.pk).first()
    )
    if locked is None or locked.owner_id != user.pk:
        raise ProposalError(FORBIDDEN, "this proposal is not one of your suggestions")
    return locked


def _act(
    proposal: Proposal, user: User, action: Callable[[Proposal, datetime], Proposal | ProposalError],
) -> Proposal:
    """Run ``action(locked, now)`` on a live proposal; record an expiry noticed on the way (J-2)."""
    outcome: Proposal | ProposalError
    with transaction.atomic():
        locked = _lock(proposal, user)
        now = clock.now()
        if _is_due(locked, now):
            _expire(locked, now)
            outcome = _expired_error()
        elif locked.status == Status.EXPIRED:
            outcome = _expired_error()
        elif locked.status != Status.PENDING:
            outcome = ProposalError(NOT_PENDING, f"this proposal was already handled (status: {locked.status})")
        else:
            outcome = action(locked, now)
    if isinstance(outcome, ProposalError):
        raise outcome
    return outcome


def _decide(proposal: Proposal, status: str, now: datetime, result_fact: Fact | None = None) -> Proposal:
    proposal.status, proposal.decided_at = status, now
    fields = ["status", "decided_at"]
    if result_fact is not None:
        proposal.result_fact = result_fact
        fields.append("result_fact")
    proposal.save(update_fields=fields)
    return proposal


def slot_store(proposal: Proposal, match: SlotMatch, *, save: bool = True) -> Proposal:
    """Record what an ``add`` is to the person's facts (SPEC P-9), as ``slot_judge`` found it."""
    proposal.slot = match.kind if match.kind in (CHANGE, KNOWN) else Proposal.Slot.NEW
    proposal.slot_fact = match.fact if proposal.slot else None
    proposal.slot_version = match.fact.version if proposal.slot and match.fact is not None else None
    if save:
        proposal.save(update_fields=["slot", "slot_fact", "slot_version"])
    return proposal


def _share(connection: Connection | None, fact: Fact, *, only_if_shared: bool) -> None:
    """Share ``fact`` at its current version with ``connection`` when the rules allow (SPEC C-1, C-3).

    Locks the connection row, so a share never lands on a connection being revoked. An import has none.
    """
    if connection is None:
        return
    locked = Connection.objects.select_for_update().get(pk=connection.pk)
    if locked.revoked_at is not None or not shareable_facts(connection=locked).filter(pk=fact.pk).exists():
        return
    existing = FactShare.objects.filter(connection=locked, fact=fact)
    if only_if_shared and not existing.exists():
        return
    if not existing.update(fact_version=fact.version, shared_at=clock.now()):
        FactShare.objects.create(connection=locked, fact=fact, fact_version=fact.version, shared_at=clock.now())


def _confirm_slot(locked: Proposal, now: datetime, user: User, share: bool) -> Proposal | ProposalError | None:
    """SPEC P-9: confirm an ``add`` as the page showed it — replace the fact, or close it as already known.

    Judged again first: when the person's facts now make it something else, it is recorded and refused, so
    the person decides on what is true now. None: it is a new fact.
    """
    fresh = slot_judge_one(owner_id=user.pk, category=locked.category, label=locked.label, value=locked.value)
    fresh_fact = fresh.fact.pk if fresh.fact is not None and fresh.kind in (CHANGE, KNOWN) else None
    if (fresh.kind if fresh_fact else "", fresh_fact) != (locked.slot, locked.slot_fact_id):
        slot_store(locked, fresh)
        return ProposalError(SLOT_CHANGED, "your facts changed what this suggestion is; look at it again")
    if fresh.fact is None:
        return None
    if fresh.kind == KNOWN:  # what a fact already says: nothing changes
        return _decide(locked, Status.CONFIRMED, now, result_fact=fresh.fact)
    changes = {"value": locked.value, **({"evidence": locked.evidence} if locked.evidence else {})}
    try:  # SPEC P-6, C-2: an update of the fact at the version the suggestion was judged against
        fact = fact_update(fact=fresh.fact, expected_version=locked.slot_version, active_only=True, **changes)
    except (FactVersionConflict, FactArchived):
        return _decide(locked, Status.CONFLICT, now)
    if share:
        _share(locked.connection, fact, only_if_shared=True)  # kept shared with the assistant that suggested it
    return _decide(locked, Status.CONFIRMED, now, result_fact=fact)


def _confirm(locked: Proposal, now: datetime, user: User, share_with_connection: bool,
             resolution: str = REPLACE) -> Proposal | ProposalError:
    if locked.op == ADD:
        if resolution != KEEP:
            decided = _confirm_slot(locked, now, user, share_with_connection)
            if decided is not None:
                return decided
        fact = fact_create(owner=user, category=locked.category, label=locked.label, value=locked.value,
                           evidence=locked.evidence)
        if share_with_connection:
            _share(locked.connection, fact, only_if_shared=False)  # SPEC P-6: offered, the person chose
        return _decide(locked, Status.CONFIRMED, now, result_fact=fact)
    # SPEC P-6: the target must still be what the assistant saw; the row lock makes a concurrent
    # edit either land first (then we see the new version: conflict) or wait for us.
    # Past ADD, every op names its target (parse_arguments); the stubs cannot see that.
    target = Fact.objects.select_for_update().filter(pk=locked.target_fact_id).first()  # type: ignore[misc]
    if (
        target is None
        or target.owner_id != user.pk
        or target.status != FactStatus.ACTIVE
        or target.version != locked.target_version
    ):
        return _decide(locked, Status.CONFLICT, now)
    if locked.op == ARCHIVE:
        fact = fact_archive(fact=target)
    else:
        changes = {name: getattr(locked, name) for name in CONTENT_FIELDS if getattr(locked, name)}
        if locked.evidence:
            changes["evidence"] = locked.evidence
        fact = fact_update(fact=target, expected_version=locked.target_version, **changes)
        if share_with_connection:
            # The assistant saw the old version and suggested this one: keep it shared (C-2, re-confirmed).
            _share(locked.connection, fact, only_if_shared=True)
    return _decide(locked, Status.CONFIRMED, now, result_fact=fact)


# SPEC P-6 (home)
def proposal_confirm(*, proposal: Proposal, user: User, share_with_connection: bool = True,
                     resolution: str = REPLACE) -> Proposal:
    """Apply a pending proposal for its owner (SPEC P-5, P-6, P-9).

    An update or archive of a fact changed since becomes ``conflict`` (returned, not raised). An ``add`` that
    changes a fact replaces it (``resolution=KEEP``: added beside it); one already known changes nothing.
    """
    if resolution not in (REPLACE, KEEP):
        raise ProposalError(INVALID_ARGUMENT, f"resolution must be {REPLACE} or {KEEP}", "resolution")
    return _act(proposal, user, lambda locked, now: _confirm(locked, now, user, share_with_connection, resolution))


def proposal_ignore(*, proposal: Proposal, user: User) -> Proposal:
    """Decline a pending proposal; an identical one later answers ``duplicate_processed``."""
    return _act(proposal, user, lambda locked, now: _decide(locked, Status.IGNORED, now))


def _edit(locked: Proposal, user: User, changes: dict[str, str]) -> Proposal | ProposalError:
    for name, text in changes.items():
        if not isinstance(text, str):
            return ProposalError(INVALID_ARGUMENT, f"{name} must be a string", name)
        changes[name] = text.strip()
        try:
            check_text(name, changes[name])
        except ProposalError as error:
            return error
    if changes.get("category", locked.category) and changes.get("category", locked.category) not in Category.values:
        return ProposalError(INVALID_ARGUMENT, f"category must be one of {', '.join(Category.values)}", "category")
    merged = {name: changes.get(name, getattr(locked, name)) for name in ("category", "label", "value", "evidence")}
    if locked.op == ADD and not all(merged[name] for name in CONTENT_FIELDS):
        missing = next(name for name in CONTENT_FIELDS if not merged[name])
        return ProposalError(INVALID_ARGUMENT, f"{missing} cannot be empty", missing)
    if locked.op != ADD and locked.op != ARCHIVE and not any(merged[name] for name in CONTENT_FIELDS):
        return ProposalError(INVALID_ARGUMENT, "an update needs new content", "value")
    try:
        check_content(ProposalArguments(op=locked.op, **merged))
    except ProposalError as error:
        return error
    for name, text in merged.items():
        setattr(locked, name, text)
    # The fingerprint stays that of what the assistant sent: sending it again finds this proposal.
    locked.save(update_fields=list(merged))
    if locked.op == ADD:  # SPEC P-9: new words may fill another slot, or none
        slot_store(locked, slot_judge_one(owner_id=user.pk, category=locked.category, label=locked.label,
                                          value=locked.value))
    return locked


def proposal_edit(*, proposal: Proposal, user: User, category: str | None = None, label: str | None = None,
                  value: str | None = None, evidence: str | None = None) -> Proposal:
    """Reword a pending proposal before confirming it (SPEC P-6); it stays pending.

    ``None`` keeps a field; a submission's limits apply; any category may be chosen.
    """
    given = {"category": category, "label": label, "value": value, "evidence": evidence}
    changes = {name: text for name, text in given.items() if text is not None}
    return _act(proposal, user, lambda locked, now: _edit(locked, user, changes))


# --- Expiry (SPEC P-5, J-1, J-2) ------------------------------------------------------------------

@transaction.atomic
def proposal_expire_due() -> int:
    """Record every pending proposal at or past ``expires_at`` as expired; returns how many."""
    now = clock.now()
    return Proposal.objects.filter(status=Status.PENDING, expires_at__lte=now).update(
        status=Status.EXPIRED, decided_at=now
    )


@transaction.atomic
def proposal_expire(*, proposal: Proposal) -> Proposal:
    """Expire one pending proposal now (the staff action in admin). Others are left as they are."""
    locked = Proposal.objects.select_for_update().get(pk=proposal.pk)
    if locked.status == Status.PENDING:
        _expire(locked, clock.now())
    return locked
