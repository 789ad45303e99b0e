"""Screenshots of the person's pages at real size, phone and desktop, both languages (SPEC W-6).

    .venv/bin/python -m bench.screens [--out docs/screenshots] [--screens 3]

Starts a throwaway PostgreSQL cluster and Redis (``tests/services.py``),
seeds the person of ``manage.py seed_demo --at-scale`` (2,000 facts, 10
assistants, 300 suggestions, 60 access events), serves the app on a loopback
port as ``make serve`` serves it (DEBUG off, static files collected into a
temporary directory and served by whitenoise), logs in through the login
form in Debian's Chromium and saves each page as ``<language>-<width>-<page>.jpg``.

Per page and width it checks that nothing scrolls sideways: the document is
not wider than the viewport, as shown and again with every disclosure open
(the edit forms inside). The image is the page from its top, at most
``--screens`` viewport heights tall (the pages run to many screens at this
size; the top shows every part's layout), the listed parts' image from where
those parts start. Printed per shot: the overflow in
pixels, the page's full height and the file's size.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from playwright.sync_api import FloatRect, ViewportSize

BASE_DIR = Path(__file__).resolve().parents[1]
if str(BASE_DIR) not in sys.path:
    sys.path.insert(0, str(BASE_DIR))

USERNAME = "screens"
PASSWORD = "screens-at-scale"
CHROMIUM = os.environ.get("E2E_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--no-first-run", "--disable-sync"]
LANGUAGES = {"en": "en-US", "zh-hans": "zh-CN"}  # Django language → the browser's locale
WIDTHS: dict[str, ViewportSize] = {"phone": {"width": 390, "height": 844}, "desktop": {"width": 1280, "height": 900}}
QUALITY = 55  # with 3 screens at most, each image stays near 200 KB

OVERFLOW = "Math.max(0, document.documentElement.scrollWidth - window.innerWidth)"
OPEN_DISCLOSURES = "document.querySelectorAll('details').forEach(d => d.open = true)"


def _pages(user) -> dict[str, tuple[str, str | None]]:
    """Name → (path, the element the image starts at; None: the page's top)."""
    from apps.consent.models import Connection

    first = Connection.objects.filter(user=user).order_by("id").values_list("pk", flat=True)[0]
    return {
        "facts": ("/me/facts/", None),
        "assistants": ("/me/assistants/", None),
        "assistant": (f"/me/assistants/{first}/", None),
        # The parts listed on request, earlier suggestions and the facts that cannot be shared: the image starts
        # where they do (their links lead there), below what the previous image shows.
        "assistant-listed": (f"/me/assistants/{first}/?earlier=1&blocked=1", "#earlier"),
    }


@contextlib.contextmanager
def _served():
    """The WSGI application on a free loopback port, in a thread; yields its base URL."""
    from django.core.servers.basehttp import ThreadedWSGIServer, WSGIRequestHandler
    from django.core.wsgi import get_wsgi_application

    class QuietHandler(WSGIRequestHandler):
        def log_message(self, format, *args) -> None:
            pass

    from tests.services import serving

    server = ThreadedWSGIServer(("127.0.0.1", 0), QuietHandler)
    server.set_app(get_wsgi_application())
    with serving(server) as port:
        yield f"http://127.0.0.1:{port}"


def _log_in(page, base: str) -> None:
    """Through the login form, as a person would (SPEC I-3)."""
    page.goto(f"{base}/me/facts/")
    assert "/accounts/login/" in page.url, page.url
    page.fill('input[name="username"]', USERNAME)
    page.fill('input[name="password"]', PASSWORD)
    with page.expect_navigation():
        page.locator('form[action="/accounts/login/"] button[type=submit]').click()
    assert page.url.endswith("/me/facts/"), f"login did not go through: {page.url}"


def _clip(page, viewport: ViewportSize, height: int, start: str | None, screens: int) -> FloatRect:
    """At most ``screens`` viewport heights of the page, from its top or from ``start``."""
    tall = min(height, screens * viewport["height"])
    top = 0
    if start:
        top = page.evaluate(f"document.querySelector('{start}').getBoundingClientRect().top + window.scrollY")
        top = max(0, min(int(top) - 16, height - tall))
    return {"x": 0, "y": top, "width": viewport["width"], "height": tall}


def shoot(base: str, pages: dict[str, tuple[str, str | None]], out: Path, screens: int) -> list[dict]:
    """Every page at every width in every language; returns one row of figures per shot."""
    from playwright.sync_api import sync_playwright

    rows = []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        for language, locale in LANGUAGES.items():
            for width, viewport in WIDTHS.items():
                context = browser.new_context(locale=locale, viewport=viewport)
                page = context.new_page()
                page.set_default_timeout(30000)
                _log_in(page, base)
                for name, (path, start) in pages.items():
                    response = page.goto(base + path)
                    assert response is not None and response.status == 200, (path, response and response.status)
                    assert page.evaluate("document.documentElement.lang").lower() == language, (language, path)
                    height = page.evaluate("document.documentElement.scrollHeight")
                    file = out / f"{language}-{width}-{name}.jpg"
                    clip = _clip(page, viewport, height, start, screens)
                    page.screenshot(path=str(file), type="jpeg", quality=QUALITY, full_page=True, clip=clip)
                    shown = page.evaluate(OVERFLOW)
                    page.evaluate(OPEN_DISCLOSURES)
                    opened = page.evaluate(OVERFLOW)
                    rows.append({"file": file.name, "path": path, "overflow": shown, "overflow_open": opened,
                                 "height": height, "bytes": file.stat().st_size})
                context.close()
        browser.close()
    return rows


def report(rows: list[dict], screens: int) -> str:
    lines = [f"{'file':<38} {'overflow px':>11} {'(disclosures open)':>18} {'page height':>11} {'KB':>5}"]
    for row in rows:
        lines.append(f"{row['file']:<38} {row['overflow']:>11} {row['overflow_open']:>18} {row['height']:>11} "
                     f"{row['bytes'] / 1024:>5.0f}")
    total = sum(row["bytes"] for row in rows)
    lines.append(f"{len(rows)} images, {total / 1024:.0f} KB in all, largest {max(r['bytes'] for r in rows) / 1024:.0f}"
                 f" KB; each the page's top {screens} screens at most")
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=BASE_DIR / "docs" / "screenshots", help="folder for the images")
    parser.add_argument("--screens", type=int, default=3, help="viewport heights kept of each page, from its top")
    args = parser.parse_args()
    from bench.pages import as_served, person

    args.out.mkdir(parents=True, exist_ok=True)
    with contextlib.ExitStack() as stack:
        stack.enter_context(as_served())
        pages = _pages(person(USERNAME, PASSWORD))
        base = stack.enter_context(_served())
        rows = shoot(base, pages, args.out, args.screens)
    print(report(rows, args.screens))
    wide = [row["file"] for row in rows if row["overflow"] or row["overflow_open"]]
    if wide:
        print(f"wider than the viewport: {', '.join(wide)}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
