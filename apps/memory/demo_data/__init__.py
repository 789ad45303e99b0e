"""Demo data for the local default (SPEC I-2, O-1): one person, N facts, one week of records.

Design notes: docs/design.md.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from django.contrib.auth import get_user_model

from apps.memory.demo_data.facts import FactsSeeded, demo_facts, seed_facts
from apps.memory.demo_data.records import seed_records

if TYPE_CHECKING:
    from apps.accounts.models import User

__all__ = ["FactsSeeded", "demo_facts", "seed_demo", "seed_facts", "seed_records", "seed_user"]


def seed_user(*, username: str, password: str) -> User:
    """The demo user, created if missing; the password is reset only when it differs."""
    user, _ = get_user_model().objects.get_or_create(username=username)
    if not user.check_password(password):
        # The demo password is chosen by the operator ("demo"): validators are for real accounts.
        user.set_password(password)
        user.save(update_fields=["password"])
    return user


def seed_demo(
    *, username: str, password: str, facts: int, progress: Callable[[int, int], None] | None = None,
) -> tuple[User, FactsSeeded]:
    user = seed_user(username=username, password=password)
    seeded = seed_facts(owner=user, count=facts, progress=progress)
    seed_records(owner=user)
    return user, seeded
