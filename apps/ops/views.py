"""Health endpoints for load balancers and orchestrators (SPEC O-3).

Design notes: docs/design.md.
"""

from __future__ import annotations

from django.conf import settings
from django.http import HttpRequest, JsonResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_safe

from apps.ops import health


@never_cache
@require_safe
def healthz(request: HttpRequest) -> JsonResponse:
    """The process is up and serving. Touches no database, cache or storage."""
    return JsonResponse({"status": "ok"})


@never_cache
@require_safe
def readyz(request: HttpRequest) -> JsonResponse:
    """The process can serve requests: database, Redis (if configured) and storage answer."""
    checks = health.readiness()
    ready = health.is_ready(checks)
    body: dict[str, object] = {"status": "ok" if ready else "unavailable"}
    if _is_staff(request):
        body["checks"] = checks
    return JsonResponse(body, status=200 if ready else 503)


def _is_staff(request: HttpRequest) -> bool:
    # Without a session cookie there is nobody to look up: no database query
    # for the load balancer's probes, and no failure when the database is down.
    if settings.SESSION_COOKIE_NAME not in request.COOKIES:
        return False
    try:
        return bool(request.user.is_active and request.user.is_staff)
    except Exception:
        return False
