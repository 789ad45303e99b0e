"""What one Dynamic Client Registration costs (issue: registration cost): CPU milliseconds per call.

    .venv/bin/python -m bench.registration [--calls 20]

Registers ``--calls`` public clients (``token_endpoint_auth_method: none``) and as many confidential ones
(``client_secret_basic``) through ``POST /oauth/register/``, in this process through Django's whole stack
on a throwaway SQLite database, with the password hasher the product runs with (not the suite's fast one).
Prints this process's CPU time per call (``time.process_time``), p50 and mean, per kind, and the stored
secret's form. A secret nobody will present is what the public case must not pay for; the confidential
client's secret is returned once and stored hashed (SPEC A-1), which is what its case pays for.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

BASE_DIR = Path(__file__).resolve().parents[1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--calls", type=int, default=20)
    args = parser.parse_args()

    folder = tempfile.mkdtemp(prefix="bench-registration-")
    os.environ["DATABASE_URL"] = f"sqlite:///{folder}/db.sqlite3"
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    os.environ["OAUTH_REGISTRATION_UNLIMITED_NETWORKS"] = "127.0.0.0/8"
    os.environ["SEARCH_EMBEDDINGS"] = "off"
    sys.path.insert(0, str(BASE_DIR))
    import django

    django.setup()
    from django.core.management import call_command
    from django.test import Client
    from oauth2_provider.models import get_application_model

    call_command("migrate", verbosity=0)
    client = Client(HTTP_HOST="127.0.0.1")
    application = get_application_model()

    def register(method: str, n: int) -> float:
        body = {"client_name": f"Bench {method} {n}", "redirect_uris": ["http://127.0.0.1:9/callback"],
                "grant_types": ["authorization_code", "refresh_token"], "response_types": ["code"],
                "token_endpoint_auth_method": method}
        start = time.process_time()
        response = client.post("/oauth/register/", json.dumps(body), content_type="application/json")
        spent = time.process_time() - start
        assert response.status_code == 201, response.status_code
        return spent * 1000

    for method in ("none", "client_secret_basic"):
        register(method, -1)  # warm-up: imports, templates, the first statements
        times = [register(method, n) for n in range(args.calls)]
        stored = application.objects.filter(name=f"Bench {method} 0").values_list("client_secret", flat=True).get()
        form = stored.split("$", 1)[0] if "$" in stored else ("(empty)" if not stored else "(plain)")
        print(f"{method:>20}: {statistics.median(times):8.1f} ms CPU p50, {statistics.fmean(times):8.1f} ms mean "
              f"over {args.calls} calls; stored secret: {form}")


if __name__ == "__main__":
    main()
