"""``manage.py retrieval_eval``: measure list/search/read on the fixed evaluation set.

Design notes: docs/design.md.
"""

from __future__ import annotations

import json
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from apps.agents.evaluation import run_evaluation, run_search_evaluation
from apps.agents.evaluation.search_runner import SURFACES


class Command(BaseCommand):
    help = "Evaluate the unified list/search/read layer on the fixed evaluation set."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--json", action="store_true", help="print the figures as JSON")
        parser.add_argument("--verbose-failures", action="store_true", help="list every miss")
        parser.add_argument("--search", choices=["tuning", "held_out", "both", "dev"],
                            help="ask the search evaluation set (docs/search.md \"Evaluation\") instead")
        parser.add_argument("--words-only", action="store_true", help="with --search: meaning off")

    def handle(self, *args: Any, **options: Any) -> None:
        if options["search"]:
            return self._search(options)
        report = run_evaluation()
        figures = report.as_dict()
        if options["json"]:
            self.stdout.write(json.dumps(figures, ensure_ascii=False, indent=2))
        else:
            self.stdout.write(f"retrieval_eval: {report.users} users, {report.records} records, "
                              f"{report.questions} questions")
            self.stdout.write(f"Recall@5                {report.recall_at_5:.3f}  "
                              f"({report.found_refs}/{report.expected_refs} expected refs)")
            self.stdout.write(f"Paraphrase Recall@5     {report.paraphrase_recall_at_5:.3f}  "
                              f"({report.paraphrase_found}/{report.paraphrase_refs} expected refs)")
            facts = report.facts
            assert facts is not None  # evaluate() always asks the facts questions
            for kind in ("keyword", "paraphrase"):
                self.stdout.write(f"{'Facts ' + kind + ' Recall@5':<27}{facts.recall(kind):.3f}  "
                                  f"({facts.found.get(kind, 0)}/{facts.asked.get(kind, 0)} questions, "
                                  f"search_user_context over {facts.facts} shared facts)")
            self.stdout.write(f"Evidence hit rate       {report.evidence_hit_rate:.3f}  "
                              f"({report.evidence_hit}/{report.evidence_needed})")
            self.stdout.write(f"Field violations        {report.field_violations}")
            self.stdout.write(f"Paging completion rate  {report.paging_completion_rate:.3f}  "
                              f"({report.paged_complete}/{report.paged_reads} reads, {report.pages} pages)")
            if options["verbose_failures"]:
                for failure in report.failures:
                    self.stdout.write(f"  miss: {failure}")
        if report.field_violations:
            raise CommandError(f"{report.field_violations} field violations")

    def _search(self, options: dict[str, Any]) -> None:
        halves = ("tuning", "held_out") if options["search"] == "both" else (options["search"],)
        report = run_search_evaluation(halves=halves, words_only=options["words_only"])
        if options["json"]:
            self.stdout.write(json.dumps(report, ensure_ascii=False, indent=2))
            return
        names = ("answerable_recall_at_5", "unanswerable_empty_rate", "keyword_recall_at_5", "rare_word_first_rate",
                 "field_violations", "order_violations")
        self.stdout.write(f"{'half / surface':<30}" + "".join(f"{n[:18]:>20}" for n in names))
        for half in halves:
            for surface in SURFACES:
                figures = report[half][surface]
                self.stdout.write(f"{half + ' / ' + surface:<30}" + "".join(f"{figures[n]:>20}" for n in names))
            if options["verbose_failures"]:
                for failure in report[half]["failures"]:
                    self.stdout.write(f"  miss: {failure}")
