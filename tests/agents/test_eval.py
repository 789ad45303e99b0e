"""``manage.py retrieval_eval`` on the fixed set (SPEC R-5, R-6, R-8 … R-10)."""

import json
from io import StringIO

import pytest
from django.core.management import call_command

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("meaning")]


def test_the_evaluation_set_meets_its_bar():
    out = StringIO()
    call_command("retrieval_eval", "--json", stdout=out)
    figures = json.loads(out.getvalue())
    assert figures["field_violations"] == 0, figures["failures"]
    assert figures["recall_at_5"] == 1.0, figures["failures"]
    # SPEC S-4: questions in other words and the other language, over records and over shared facts.
    assert figures["paraphrase_recall_at_5"] >= 0.8, figures["failures"]
    assert figures["facts_paraphrase_recall_at_5"] >= 0.8, figures["failures"]
    assert figures["facts_keyword_recall_at_5"] == 1.0, figures["failures"]
    assert figures["evidence_hit_rate"] == 1.0, figures["failures"]
    assert figures["paging_completion_rate"] == 1.0 and figures["paged_reads"] >= 1, figures


def test_the_evaluation_leaves_nothing_behind(django_user_model):
    call_command("retrieval_eval", stdout=StringIO())
    assert not django_user_model.objects.filter(username__startswith="eval-").exists()
