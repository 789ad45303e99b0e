"""What every page's header needs: how many suggestions wait for the person (SPEC W-7)."""

from __future__ import annotations

from django.utils.functional import SimpleLazyObject

from apps.consent.selectors.notices import Waiting, waiting


def waiting_for(request) -> Waiting:
    """The person's waiting suggestions, read once per request, whoever asks first (the header, a page)."""
    found = getattr(request, "_waiting_suggestions", None)
    if found is None:
        found = waiting(user=request.user) if request.user.is_authenticated else Waiting()
        request._waiting_suggestions = found
    return found


def waiting_suggestions(request) -> dict[str, object]:
    """``waiting``, read only when a template uses it: pages without the header (the admin) pay nothing."""
    return {"waiting": SimpleLazyObject(lambda: waiting_for(request))}
