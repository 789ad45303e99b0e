"""Compare the search projection with its source records and repair it (SPEC R-6)."""

from django.core.management.base import BaseCommand

from apps.retrieval.services import projection_rebuild


class Command(BaseCommand):
    help = "Rebuild the search projection from the source records; reports the drift it found. Idempotent."

    def add_arguments(self, parser):
        parser.add_argument("--dry-run", action="store_true", help="only report the drift, change nothing")
        parser.add_argument("--check", action="store_true", help="with --dry-run: exit 1 when there is drift")

    def handle(self, *args, dry_run=False, check=False, **options):
        report = projection_rebuild(dry_run=dry_run)
        for resource_type, drift in report.types.items():
            self.stdout.write(
                f"{resource_type}: {drift.records} records, {drift.rows} rows; drift: {drift.missing} missing, "
                f"{drift.stale} stale, {drift.orphaned} orphaned"
            )
        for problem in report.index_problems:
            self.stdout.write(f"index: {problem}")
        verb = "would be repaired" if dry_run else "repaired"
        self.stdout.write(f"drift: {report.drift} ({verb})" if report.drift else "drift: 0 (in step)")
        if check and dry_run and report.drift:
            raise SystemExit(1)
