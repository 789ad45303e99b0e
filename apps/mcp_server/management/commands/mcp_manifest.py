"""``manage.py mcp_manifest``: print the tool contract and its hash (SPEC M-12, I-2)."""

import json

from django.core.management.base import BaseCommand

from apps.mcp_server.catalog import manifest, manifest_sha256


class Command(BaseCommand):
    help = "Print the MCP tool manifest (name, schemas, scopes of every tool) with its SHA-256."

    def add_arguments(self, parser):
        parser.add_argument("--hash", action="store_true", help="print only the SHA-256")

    def handle(self, *args, **options):
        document = manifest()
        digest = manifest_sha256(document)
        if options["hash"]:
            self.stdout.write(digest)
            return
        # The hash covers the canonical form of "tools"; it is shown beside it, not hashed itself.
        self.stdout.write(json.dumps({"sha256": digest, **document}, indent=2, sort_keys=True, ensure_ascii=False))
