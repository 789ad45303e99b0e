"""Compare the search projection with its source records and repair it (SPEC R-6, S-4).

Design notes: docs/design.md.
"""

import sys

from django.core.management.base import BaseCommand
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

from apps.retrieval.services import projection_rebuild


class Command(BaseCommand):
    help = "Rebuild the search projection and its meaning vectors from the source records; reports the drift."

    def add_arguments(self, parser):
        parser.add_argument("--dry-run", action="store_true", help="only report the drift, change nothing")
        parser.add_argument("--check", action="store_true", help="with --dry-run: exit 1 when there is drift")
        parser.add_argument("--progress", action="store_true", help="show the progress bar even off a terminal")

    def handle(self, *args, dry_run=False, check=False, progress=False, **options):
        bar = Progress(TextColumn("{task.description:<14}"), BarColumn(), MofNCompleteColumn(),
                       TimeRemainingColumn(), console=Console(stderr=True),
                       disable=not (progress or sys.stderr.isatty()))
        tasks = {}

        def advance(resource_type, done, total):
            if resource_type not in tasks:
                tasks[resource_type] = bar.add_task(resource_type, total=total)
            bar.update(tasks[resource_type], completed=done)

        with bar:
            report = projection_rebuild(dry_run=dry_run, progress=advance)
        for resource_type, drift in report.types.items():
            self.stdout.write(
                f"{resource_type}: {drift.records} records, {drift.rows} rows; drift: {drift.missing} missing, "
                f"{drift.stale} stale, {drift.orphaned} orphaned, {drift.unembedded} without a vector"
            )
        for problem in report.index_problems:
            self.stdout.write(f"index: {problem}")
        verb = "would be repaired" if dry_run else "repaired"
        self.stdout.write(f"drift: {report.drift} ({verb})" if report.drift else "drift: 0 (in step)")
        if check and dry_run and report.drift:
            raise SystemExit(1)
