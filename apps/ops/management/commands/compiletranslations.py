"""Compile locale/*.po into .mo files without needing GNU gettext on the machine."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import polib
from django.conf import settings
from django.core.management.base import BaseCommand


class Command(BaseCommand):
    help = "Compile the project's translation catalogs (locale/*/LC_MESSAGES/*.po)."

    def handle(self, *args: Any, **options: Any) -> None:
        count = 0
        for locale_dir in settings.LOCALE_PATHS:
            for po_path in Path(locale_dir).glob("*/LC_MESSAGES/*.po"):
                polib.pofile(str(po_path)).save_as_mofile(str(po_path.with_suffix(".mo")))
                count += 1
        self.stdout.write(f"compiled {count} catalog(s)")
