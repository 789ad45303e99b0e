"""``manage.py reset_second_factor --username U --reason "…" [--ticket T] [--by OPERATOR]`` (SPEC AD-3).

For a person who lost their authenticator app, passkeys and recovery codes: removes every second factor of the
account, so their next login asks them to add one (staff: before anything else opens). The reset is recorded
(who, whose, why, when). It is the documented way back for a superuser too: losing a factor never locks the
last superuser out for good. docs/accounts.md.
"""

from __future__ import annotations

import logging
from typing import Any

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError, CommandParser

from apps.accounts.services import second_factor_reset

log = logging.getLogger("apps.accounts")


class Command(BaseCommand):
    help = "Remove every second factor of an account (a lost factor), with a written reason; the reset is recorded."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--username", required=True, help="the account whose factors are removed")
        parser.add_argument("--reason", required=True, help="why, in words (required, recorded)")
        parser.add_argument("--ticket", default="", help="a support ticket reference (recorded)")
        parser.add_argument("--by", default="", help="the operator's own username, if they have an account")

    def handle(self, *args: Any, **options: Any) -> None:
        users = get_user_model().objects
        reason = " ".join(options["reason"].split())
        if not reason:
            raise CommandError("--reason must say why the factors are reset")
        try:
            person = users.get(username=options["username"])
        except users.model.DoesNotExist:
            raise CommandError(f"no account named {options['username']!r}") from None
        operator = None
        if options["by"]:
            try:
                operator = users.get(username=options["by"])
            except users.model.DoesNotExist:
                raise CommandError(f"no account named {options['by']!r} (--by)") from None
        removed = second_factor_reset(user=person, operator=operator, reason=reason, ticket=options["ticket"].strip())
        log.warning("second factors of account %s reset by %s: %s", person.pk,
                    operator.pk if operator else "an operator", reason)
        self.stdout.write(
            f"Removed from {person.get_username()}: {removed.authenticator_apps} authenticator app(s), "
            f"{removed.passkeys} passkey(s), {removed.recovery_codes} set(s) of recovery codes. "
            "Their next login asks them to add a second factor."
        )
