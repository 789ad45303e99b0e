"""Reads on token families (SPEC A-3)."""

from __future__ import annotations

import uuid

from apps.oauth.models import TokenFamily


def family_of_code(*, code: str) -> uuid.UUID | None:
    """The family an authorization code was exchanged for, if it ever was (by the code's hash), whoever's it was."""
    return TokenFamily.objects.filter(code=code).values_list("family", flat=True).first()
