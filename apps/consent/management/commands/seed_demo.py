"""``manage.py seed_demo --username U --password P --facts N`` (SPEC I-2)."""

from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

from apps.consent.demo_data import seed_assistants, seed_import, seed_notices
from apps.memory.demo_data import seed_demo


# SPEC I-2 (home)
class Command(BaseCommand):
    help = "Create or update a demo user with N deterministic facts and a week of sample records. Idempotent."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--username", required=True)
        parser.add_argument("--password", required=True)
        parser.add_argument("--facts", type=int, default=None, help="number of active facts (default 60)")
        parser.add_argument("--assistants", type=int, default=0,
                            help="connected assistants, each sharing part of the facts (default 0)")
        parser.add_argument("--suggestions", type=int, default=0,
                            help="suggestions from the first assistant, at most 100 waiting (default 0)")
        parser.add_argument("--at-scale", action="store_true",
                            help="a person at real size: 2,000 facts, 10 assistants, 300 suggestions "
                                 "unless given otherwise (SPEC W-6)")

    def handle(
        self, *, username: str, password: str, facts: int | None, assistants: int, suggestions: int, at_scale: bool,
        **options: Any,
    ) -> None:
        if at_scale:
            facts = 2000 if facts is None else facts
            assistants, suggestions = assistants or 10, suggestions or 300
        facts = 60 if facts is None else facts
        if min(facts, assistants, suggestions) < 0:
            raise CommandError("--facts, --assistants and --suggestions must be 0 or more.")
        if suggestions and not assistants:
            raise CommandError("--suggestions needs at least one assistant (--assistants).")
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
        seed_notices(owner=user)  # SPEC W-7: the demo person gets no digest
        # SPEC P-9, P-10: memories brought from another assistant, waiting under Personal info → Bring your memories.
        imported = seed_import(owner=user)
        self.stdout.write(self.style.SUCCESS(
            f"Imported memories: {imported.added} suggestions added ({imported.changes} changing a fact, "
            f"{imported.known} already known), {imported.already} there from an earlier run."
        ))
        if assistants:
            # The person's side of consent builds on the facts made above.
            added = seed_assistants(owner=user, assistants=assistants, suggestions=suggestions)
            self.stdout.write(self.style.SUCCESS(
                f"{assistants} connected assistants; {added.suggestions_added} suggestions and "
                f"{added.events_added} access events added."
            ))
