"""``manage.py seed_demo --username U --password P --facts N`` (SPEC I-2)."""

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from apps.memory.demo_data import seed_demo


class Command(BaseCommand):
    help = "Create or update a demo user with N deterministic facts and a week of sample records. Idempotent."

    def add_arguments(self, parser):
        parser.add_argument("--username", required=True)
        parser.add_argument("--password", required=True)
        parser.add_argument("--facts", type=int, default=60, help="number of active facts (default 60)")

    def handle(self, *, username, password, facts, **options):
        if facts < 0:
            raise CommandError("--facts must be 0 or more.")
        if not settings.DEBUG:
            # SPEC I-2: automation relies on this command as it is, so it runs; a demo account with a known
            # password has no place on a real deployment, so it says so.
            self.stderr.write(f"DEBUG is off: the account {username!r} gets the password given on the command line; "
                              "remove it before real people use this deployment.")

        def progress(done: int, total: int) -> None:
            if total >= 1000:
                self.stdout.write(f"  facts {done}/{total}")

        user, seeded = seed_demo(username=username, password=password, facts=facts, progress=progress)
        self.stdout.write(self.style.SUCCESS(
            f"Demo user {user.username!r}: {facts} active facts "
            f"({seeded.created} created, {seeded.updated} updated, {seeded.unchanged} unchanged, "
            f"{seeded.archived} archived) and the demo week's records."
        ))
