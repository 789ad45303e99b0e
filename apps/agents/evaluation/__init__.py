"""The retrieval evaluation set and its runner (``manage.py retrieval_eval``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.core.files.storage import default_storage
from django.db import transaction

from apps.common import clock

if TYPE_CHECKING:
    from apps.agents.evaluation.runner import Report


class _RolledBack(Exception):
    pass


def run_evaluation(*, keep: bool = False) -> Report:
    """Build the set, evaluate it, and (unless ``keep``) leave no trace: rows rolled back, bodies deleted."""
    from apps.agents.evaluation import dataset, runner

    bodies: list[str] = []
    report: Report | None = None
    try:
        with clock.frozen_at(dataset.NOW), transaction.atomic():
            built = dataset.build()
            bodies = [t.body_path for t in built.transcripts]
            report = runner.evaluate(built)
            if not keep:
                raise _RolledBack
    except _RolledBack:
        for path in bodies:
            default_storage.delete(path)
    assert report is not None  # evaluate() returned, or its error went up
    return report


def run_search_evaluation(*, ask_facts=None, halves: tuple[str, ...] = ("tuning", "held_out"),
                          words_only: bool = False) -> dict:
    """Build the search set (docs/search.md "Evaluation"), ask it through both surfaces, roll it all back.

    ``ask_facts``: how ``search_user_context`` is asked (by default its selector; the suite passes the tool's
    own handler). Returns ``{half: {surface: figures, "failures": [...]}}``."""
    from apps.agents.evaluation import search_runner, search_set

    report: dict | None = None
    try:
        with clock.frozen_at(search_set.NOW), transaction.atomic():
            built = search_set.build()
            report = search_runner.evaluate(built, ask_facts=ask_facts or search_runner.default_ask_facts,
                                            halves=halves, words_only=words_only)
            raise _RolledBack
    except _RolledBack:
        pass
    assert report is not None
    return report
