"""Fact writes (SPEC D-1, C-2)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from django.core.exceptions import ValidationError
from django.db import transaction

from apps.common import clock
from apps.memory.detectors import looks_sensitive
from apps.memory.models import Certainty, Fact, FactStatus
from apps.memory.projection import record_written

if TYPE_CHECKING:
    from apps.accounts.models import User

# SPEC C-2: only these changes void earlier shares.
VERSIONED_FIELDS = ("category", "label", "value")
EDITABLE_FIELDS = (*VERSIONED_FIELDS, "evidence", "certainty", "sensitive")


class FactVersionConflict(Exception):
    """The fact changed since the caller read it."""

    def __init__(self, fact: Fact) -> None:
        super().__init__(f"fact {fact.pk} is at version {fact.version}")
        self.fact = fact


class FactArchived(Exception):
    """The fact was archived since the caller read it; an edit meant for the live fact changes nothing."""

    def __init__(self, fact: Fact) -> None:
        super().__init__(f"fact {fact.pk} is archived")
        self.fact = fact


def _save(fact: Fact, update_fields: list[str] | None = None) -> Fact:
    # Field validators give the friendly errors; the check constraints stay in the
    # database, where checking them costs nothing (validating them here is a query each).
    fact.full_clean(exclude=["owner"], validate_constraints=False)
    fact.save(update_fields=update_fields)
    record_written(fact)
    return fact


@transaction.atomic
def fact_create(
    *,
    owner: User,
    category: str,
    label: str,
    value: str,
    evidence: str = "",
    certainty: str = Certainty.CONFIRMED,
    sensitive: bool | None = None,
) -> Fact:
    """Create an active fact. ``sensitive=None`` lets the detector decide."""
    now = clock.now()
    fact = Fact(
        owner=owner,
        category=category,
        label=label.strip(),
        value=value.strip(),
        evidence=evidence.strip(),
        certainty=certainty,
        sensitive=looks_sensitive(label, value) if sensitive is None else sensitive,
        created_at=now,
        updated_at=now,
    )
    return _save(fact)


# SPEC C-2 (home)
@transaction.atomic
def fact_update(*, fact: Fact, expected_version: int | None = None, active_only: bool = False, **changes: Any) -> Fact:
    """Apply ``changes``; the version moves only when category, label or value change (SPEC C-2).

    Stale ``expected_version``: ``FactVersionConflict``, unless already saved; ``active_only``: ``FactArchived``.
    """
    unknown = set(changes) - set(EDITABLE_FIELDS)
    if unknown:
        raise ValidationError({name: "This field cannot be edited." for name in sorted(unknown)})
    locked = Fact.objects.select_for_update().get(pk=fact.pk)
    if active_only and locked.status == FactStatus.ARCHIVED:
        raise FactArchived(locked)
    for name in ("label", "value", "evidence"):
        if isinstance(changes.get(name), str):
            changes[name] = changes[name].strip()
    changed = [name for name, new in changes.items() if getattr(locked, name) != new]
    if not changed:
        return locked
    if expected_version is not None and locked.version != expected_version:
        raise FactVersionConflict(locked)
    for name in changed:
        setattr(locked, name, changes[name])
    if any(name in VERSIONED_FIELDS for name in changed):
        locked.version += 1
        # New content is checked again; the detector only ever turns the flag on.
        if "sensitive" not in changes and looks_sensitive(locked.label, locked.value):
            locked.sensitive = True
            changed.append("sensitive")
        changed.append("version")
    locked.updated_at = clock.now()
    return _save(locked, update_fields=[*set(changed), "updated_at"])


@transaction.atomic
def fact_archive(*, fact: Fact) -> Fact:
    """Archive a fact: it stays for the owner's record and is never visible to assistants."""
    locked = Fact.objects.select_for_update().get(pk=fact.pk)
    if locked.status == FactStatus.ARCHIVED:
        return locked
    locked.status = FactStatus.ARCHIVED
    locked.updated_at = clock.now()
    return _save(locked, update_fields=["status", "updated_at"])


@transaction.atomic
def fact_restore(*, fact: Fact) -> Fact:
    """Bring an archived fact back as a new version (SPEC W-2, C-2): no share given before counts again.

    Restoring is a change to what assistants could be sent, so the version goes up by one and the person
    confirms the fact again for each assistant; an active fact is returned as it is (a form sent twice).
    """
    locked = Fact.objects.select_for_update().get(pk=fact.pk)
    if locked.status == FactStatus.ACTIVE:
        return locked
    locked.status = FactStatus.ACTIVE
    locked.version += 1
    locked.updated_at = clock.now()
    return _save(locked, update_fields=["status", "version", "updated_at"])
