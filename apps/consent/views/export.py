"""Download of the person's own data (JSON)."""

from __future__ import annotations

import json

from django.http import HttpResponse

from apps.common import clock
from apps.consent.services.export import export_for
from apps.consent.views.mixins import MePage


class ExportView(MePage):
    """A read, so a GET link; the answer is a file, never cached (MePage)."""

    def get(self, request):
        body = json.dumps(export_for(user=request.user), ensure_ascii=False, indent=2)
        response = HttpResponse(body, content_type="application/json; charset=utf-8")
        name = f"lifeos-memory-{clock.now():%Y%m%d}.json"
        response["Content-Disposition"] = f'attachment; filename="{name}"'
        return response  # never cached: MePage (SPEC A-11)
