"""Browser tests: Playwright driving Debian's Chromium against pytest-django's live server.

Never run ``playwright install``: the browser is the system's ``/usr/bin/chromium``.
Screenshots of every page go to ``test-artifacts/e2e/<database>/`` (gitignored).
``public_origin`` makes the live server the product's public origin; ``assistants``
and ``people`` give an MCP SDK client and a person's browser against it (assistant.py).
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from django.core.cache import cache

from tests.consent.test_pages_support import compiled_catalogs  # noqa: F401  (fixture)
from tests.e2e.assistant import Assistant, Person

CHROMIUM = os.environ.get("E2E_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--no-first-run", "--disable-sync"]
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "e2e"


def pytest_collection_modifyitems(config, items):
    if shutil.which(CHROMIUM) or Path(CHROMIUM).exists():
        return
    skip = pytest.mark.skip(reason=f"no Chromium at {CHROMIUM} (apt-get install chromium)")
    for item in items:
        if "tests/e2e/" in str(item.fspath):
            item.add_marker(skip)


@pytest.fixture
def browser(monkeypatch):
    """One Chromium per test, so Playwright's event loop never outlives the test that needs it."""
    from playwright.sync_api import sync_playwright

    # Playwright's sync API runs an event loop in this thread; the ORM calls the test makes
    # between browser steps are ordinary synchronous code, so Django's async guard is lifted
    # for this test only.
    monkeypatch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        yield chromium
        chromium.close()


@pytest.fixture
def artifacts():
    from tests.conftest import DATABASE_LABEL

    folder = ARTIFACTS / DATABASE_LABEL
    folder.mkdir(parents=True, exist_ok=True)
    return folder


@pytest.fixture
def public_origin(live_server, settings):
    """The live server as the product's public origin (SPEC I-1): ``PUBLIC_BASE_URL`` is its URL.

    Discovery documents, the issuer, the ``/mcp`` resource that tokens are bound
    to and the ``resource_metadata`` of a 401 all name ``PUBLIC_BASE_URL``; an
    MCP client checks that they match the server it talks to, so for a client
    over real HTTP they must name the live server. Restored after the test.
    """
    origin = live_server.url
    settings.PUBLIC_BASE_URL = origin
    settings.MCP_RESOURCE_URL = origin + "/mcp"
    settings.CSRF_TRUSTED_ORIGINS = [origin]
    settings.OAUTH2_PROVIDER = {
        **settings.OAUTH2_PROVIDER,
        "OIDC_ISS_ENDPOINT": origin,
        "OAUTH2_PROTECTED_RESOURCE_IDENTIFIER": origin + "/mcp",
        "OAUTH2_PROTECTED_RESOURCE_AUTHORIZATION_SERVERS": [origin],
    }
    return origin


@pytest.fixture
def fresh_cache():
    """Registration is rate-limited per address in the cache: each test starts at zero."""
    cache.clear()
    yield
    cache.clear()


@pytest.fixture
def assistants(public_origin, fresh_cache):
    """``assistants(consent, mode=…, name=…)`` → an ``Assistant`` (see assistant.py), closed after the test."""
    made = []

    def make(consent, **options):
        made.append(Assistant(public_origin, consent, **options))
        return made[-1]

    yield make
    for assistant in made:
        assistant.close()


@pytest.fixture
def people(browser, public_origin, artifacts):
    """``people(username, locale=…, prefix=…)`` → a ``Person``: a page of its own, closed after the test."""
    made = []

    def make(username, *, locale="en-US", prefix="en"):
        made.append(Person(browser, public_origin, username=username, locale=locale, artifacts=artifacts,
                           prefix=prefix))
        return made[-1]

    yield make
    for person in made:
        person.close()
