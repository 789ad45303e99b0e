"""What the consent page offered, carried to its POST signed, never trusted from form fields.

Also SPEC A-9. Design notes: docs/design.md.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from datetime import timedelta
from typing import TYPE_CHECKING, Any

from django.core import signing

from apps.common import clock
from apps.consent import scopes as scope_rules

if TYPE_CHECKING:
    from django.contrib.auth.base_user import AbstractBaseUser
    from django.contrib.auth.models import AnonymousUser

SALT = "apps.oauth.offers"
MAX_AGE = timedelta(minutes=15)


class OfferInvalid(Exception):
    """The signed offer is missing, tampered with, someone else's, or too old."""


# SPEC A-9 (home)
@dataclass(frozen=True)
class Offer:
    client_id: str
    redirect_uri: str
    state: str | None
    code_challenge: str
    code_challenge_method: str
    resource: str
    scopes: tuple[str, ...]  # what the assistant asked for, in canonical order
    issued_at: float = field(default_factory=lambda: clock.now().timestamp())

    @classmethod
    def from_request(cls, *, scopes: Iterable[str], credentials: dict[str, Any], resource: str) -> Offer:
        return cls(
            client_id=credentials["client_id"],
            redirect_uri=credentials["redirect_uri"],
            state=credentials.get("state"),
            code_challenge=credentials["code_challenge"],
            code_challenge_method=credentials["code_challenge_method"],
            resource=resource,
            scopes=tuple(scope_rules.ordered(scopes)),
        )

    def sign(self, *, user: AbstractBaseUser | AnonymousUser) -> str:
        return signing.dumps({"user": user.pk, "offer": asdict(self)}, salt=SALT, compress=True)

    @classmethod
    def unsign(cls, value: str, *, user: AbstractBaseUser | AnonymousUser) -> Offer:
        try:
            payload = signing.loads(value or "", salt=SALT)
            if payload["user"] != user.pk:
                raise OfferInvalid("offer made to someone else")
            data = dict(payload["offer"])
            data["scopes"] = tuple(data["scopes"])
            offer = cls(**data)
        except (signing.BadSignature, KeyError, TypeError, ValueError) as exc:
            raise OfferInvalid(str(exc)) from exc
        if clock.now().timestamp() - offer.issued_at > MAX_AGE.total_seconds():
            raise OfferInvalid("offer expired")
        return offer

    def credentials(self) -> dict:
        """The authorization request, as django-oauth-toolkit's code creation expects it."""
        return {
            "client_id": self.client_id,
            "redirect_uri": self.redirect_uri,
            "response_type": "code",
            "state": self.state,
            "code_challenge": self.code_challenge,
            "code_challenge_method": self.code_challenge_method,
            "resource": [self.resource],
        }
