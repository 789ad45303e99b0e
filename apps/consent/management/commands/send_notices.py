"""``manage.py send_notices``: send the e-mail notices that are due now, as the beat schedule does (SPEC W-7).

The local default schedules nothing; this sends what is due, each window once, to files under var/mail/
unless EMAIL_HOST names an SMTP server.
"""

from typing import Any

from django.core.management.base import BaseCommand

from apps.consent.services import notices_send_digests, notices_send_expiry


class Command(BaseCommand):
    help = "Send the digests and the notices before expiry that are due now; none is ever sent twice."

    def handle(self, **options: Any) -> None:
        for name, send in (("digests", notices_send_digests), ("notices before expiry", notices_send_expiry)):
            run = send()
            self.stdout.write(f"{name}: {run.sent} sent, {run.already} sent before, {run.failed} refused by the server")
