"""The demo shows one fact per slot and bringing memories in at once (SPEC P-9, P-10, I-2)."""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import call_command

from apps.consent.models import Proposal


@pytest.mark.django_db
def test_the_demo_import_holds_a_contradiction_a_restatement_and_a_repeat_and_runs_twice():
    call_command("seed_demo", "--username", "demo", "--password", "demo", "--facts", "60", stdout=StringIO())
    imported = Proposal.objects.filter(owner__username="demo", source="import", status="pending")
    kinds = sorted(imported.values_list("slot", flat=True))
    assert kinds.count("change") == 1 and kinds.count("known") == 1 and len(kinds) >= 6
    assert imported.filter(label="Prefers written updates over calls").count() == 1  # said twice, kept once
    rows = sorted(Proposal.objects.values_list("id", "label", "value", "slot"))
    out = StringIO()
    call_command("seed_demo", "--username", "demo", "--password", "demo", "--facts", "60", stdout=out)
    assert sorted(Proposal.objects.values_list("id", "label", "value", "slot")) == rows
    assert "0 suggestions added" in out.getvalue()


@pytest.mark.django_db
def test_a_tiny_demo_still_imports():
    call_command("seed_demo", "--username", "demo", "--password", "demo", "--facts", "1", stdout=StringIO())
    assert Proposal.objects.filter(owner__username="demo", source="import").exists()
