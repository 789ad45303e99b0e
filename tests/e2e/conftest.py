"""Browser tests: Playwright driving Debian's Chromium against pytest-django's live server.

Never run ``playwright install``: the browser is the system's ``/usr/bin/chromium``.
Screenshots of every page go to ``test-artifacts/e2e/<database>/`` (gitignored).
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from tests.consent.test_pages_support import compiled_catalogs  # noqa: F401

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
