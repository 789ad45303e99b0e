"""Wrong second factors are throttled like wrong passwords (SPEC A-11, AD-3).

django-axes counts password failures, and resets an account's count when its password is right: a second
factor given after that password needs a count of its own, or knowing the password would reset it. So the
same approach, with the same limits: each wrong code or refused passkey is a database row (every web worker
sees it); ``LOGIN_FAILURE_LIMIT`` of them for one account, or from one address, within
``LOGIN_COOLOFF_MINUTES`` pause second factors for that account or address until the oldest is that old.
The right factor clears the account's rows. django-otp's own per-device back-off (1, 2, 4 … seconds
after consecutive failures) comes on top.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.conf import settings
from django.db.models import Q

from apps.accounts.models import SecondFactorFailure
from apps.common import clock

if TYPE_CHECKING:
    from apps.accounts.models import User


def _recent(*, user: User, address: str | None) -> tuple[int, int]:
    since = clock.now() - settings.AXES_COOLOFF_TIME
    rows = SecondFactorFailure.objects.filter(at__gt=since)
    by_user = rows.filter(user=user).count()
    by_address = rows.filter(ip_address=address).count() if address else 0
    return by_user, by_address


def second_factor_locked(*, user: User, address: str | None) -> bool:
    """Whether this account, or this address, has had the limit of wrong second factors within the cool-off."""
    by_user, by_address = _recent(user=user, address=address)
    return max(by_user, by_address) >= settings.AXES_FAILURE_LIMIT


def second_factor_failed(*, user: User, address: str | None) -> None:
    SecondFactorFailure.objects.create(user=user, ip_address=address, at=clock.now())
    # Rows older than the cool-off count for nothing: drop this account's, so the table stays small.
    SecondFactorFailure.objects.filter(Q(user=user), at__lte=clock.now() - settings.AXES_COOLOFF_TIME).delete()


def second_factor_succeeded(*, user: User) -> None:
    SecondFactorFailure.objects.filter(user=user).delete()
