"""The zh-Hans catalog is complete: every string of the project is translated (SPEC W-4).

``makemessages`` runs on a copy of the project, so the checkout's catalog is
never rewritten by a test; whatever it finds that the committed catalog
lacks (or marks fuzzy) fails the test, naming the strings.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import polib
import pytest

ROOT = Path(__file__).resolve().parents[2]
CATALOG = ROOT / "locale" / "zh_Hans" / "LC_MESSAGES" / "django.po"
SOURCES = ["apps", "config", "templates", "static", "locale", "manage.py"]
PLACEHOLDER = re.compile(r"%\((\w+)\)[sd]|%[sd]")


def _problems(catalog: polib.POFile) -> list[str]:
    found = []
    for entry in catalog:
        if entry.obsolete:
            continue
        if "fuzzy" in entry.flags:
            found.append(f"fuzzy: {entry.msgid!r}")
        elif not entry.translated():
            found.append(f"untranslated: {entry.msgid!r}")
    return found


def _placeholders(text: str) -> set[str]:
    return {m.group(0) for m in PLACEHOLDER.finditer(text)}


def test_catalog_has_no_untranslated_or_fuzzy_entry():
    problems = _problems(polib.pofile(str(CATALOG)))
    assert not problems, "\n".join(problems)


def test_translations_keep_their_placeholders():
    wrong = []
    for entry in polib.pofile(str(CATALOG)):
        if entry.obsolete or not entry.translated():
            continue
        if entry.msgid_plural:
            expected = _placeholders(entry.msgid_plural) | _placeholders(entry.msgid)
            for text in entry.msgstr_plural.values():
                if not _placeholders(text) <= expected or not _placeholders(entry.msgid_plural) <= _placeholders(text):
                    wrong.append(entry.msgid)
        elif _placeholders(entry.msgstr) != _placeholders(entry.msgid):
            wrong.append(entry.msgid)
    assert not wrong


@pytest.mark.skipif(not shutil.which("msgfmt"), reason="GNU gettext is not installed (apt-get install gettext)")
def test_catalog_passes_msgfmt_check(tmp_path):
    """GNU msgfmt agrees: valid syntax, consistent python-format strings, a complete header."""
    result = subprocess.run(["msgfmt", "--check", "-o", str(tmp_path / "django.mo"), str(CATALOG)],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 0 and not result.stderr, result.stderr


@pytest.mark.skipif(not shutil.which("xgettext"), reason="GNU gettext is not installed (apt-get install gettext)")
def test_makemessages_finds_nothing_untranslated(tmp_path):
    copy = tmp_path / "project"
    copy.mkdir()
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", "*.mo")
    for name in SOURCES:
        source = ROOT / name
        if source.is_dir():
            shutil.copytree(source, copy / name, ignore=ignore)
        elif source.exists():
            shutil.copy2(source, copy / name)
    (copy / "var").mkdir()
    result = subprocess.run(
        [sys.executable, "manage.py", "makemessages", "-l", "zh_Hans", "--no-location", "--no-wrap"],
        cwd=copy, capture_output=True, text=True, timeout=300,
        env={"PATH": "/usr/bin:/bin:/usr/local/bin", "DATABASE_URL": "sqlite:///:memory:",
             "HOME": str(tmp_path), "LANG": "C.UTF-8"},
    )
    assert result.returncode == 0, result.stderr
    refreshed = polib.pofile(str(copy / "locale" / "zh_Hans" / "LC_MESSAGES" / "django.po"))
    problems = _problems(refreshed)
    assert not problems, "run `manage.py makemessages -l zh_Hans` and translate:\n" + "\n".join(problems)


def _messages(catalog: polib.POFile | polib.MOFile) -> dict:
    """What a catalog translates, keyed as gettext looks it up, with the header's plural rule."""
    found: dict = {"Plural-Forms": catalog.metadata.get("Plural-Forms")}
    for entry in catalog:
        if entry.obsolete or "fuzzy" in entry.flags or not entry.msgid:
            continue
        plurals = tuple(sorted((int(n), text) for n, text in entry.msgstr_plural.items()))
        found[(entry.msgctxt, entry.msgid, entry.msgid_plural)] = (entry.msgstr, plurals)
    return found


def test_committed_compiled_catalog_matches_the_source():
    # SPEC W-4: the .mo is committed so every way of starting the product speaks Chinese; it may not go stale.
    compiled = polib.mofile(str(CATALOG.with_suffix(".mo")))
    assert _messages(compiled) == _messages(polib.pofile(str(CATALOG))), (
        "the compiled catalog is stale: run `manage.py compiletranslations` and commit locale/*/LC_MESSAGES/*.mo"
    )


PAGE_TEXT = """
from django.test import Client
from django.utils.html import strip_tags
page = Client(HTTP_HOST="127.0.0.1", HTTP_ACCEPT_LANGUAGE="zh-hans").get("/accounts/login/")
print(" ".join(strip_tags(page.content.decode()).split()))
"""


@pytest.mark.skipif(not shutil.which("git") or not (ROOT / ".git").exists(), reason="needs a git checkout")
def test_a_fresh_checkout_serves_chinese_without_a_build_step(tmp_path):
    # SPEC W-4: a clone run with `manage.py` alone (no `make setup`) shows the Chinese pages.
    listed = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True, timeout=60)
    copy = tmp_path / "clone"
    for name in filter(None, listed.stdout.decode().split("\0")):
        source = ROOT / name
        if source.is_file():
            (copy / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, copy / name)
    (copy / "var").mkdir(exist_ok=True)
    result = subprocess.run(
        [sys.executable, "manage.py", "shell", "-v", "0", "-c", PAGE_TEXT],
        cwd=copy, capture_output=True, text=True, timeout=300,
        env={"PATH": "/usr/bin:/bin:/usr/local/bin", "DATABASE_URL": "sqlite:///:memory:",
             "HOME": str(tmp_path), "LANG": "C.UTF-8"},
    )
    assert result.returncode == 0, result.stderr
    skip_link = next(entry for entry in polib.pofile(str(CATALOG)) if entry.msgid == "Skip to content")
    assert skip_link.msgstr in result.stdout
    assert "Skip to content" not in result.stdout
