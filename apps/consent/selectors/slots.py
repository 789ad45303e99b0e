"""One fact per slot (SPEC P-9): what a suggested ``add`` is to the person's facts.

Every path asks here: a proposal when it is made or reworded, confirming one or many, an import.
Design notes: docs/pages.md ("One fact per slot").
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from apps.consent.models import Proposal
from apps.consent.slot_words import content_words, label_key, slot_of
from apps.memory.models import Fact, FactStatus
from apps.retrieval.indexing import normalize
from apps.retrieval.selectors import fact_meanings, text_meanings

# Meaning similarity (the shipped model, cosine) at which two labels the table does not know name one slot,
# and at which two values of one slot say the same. Measured on the model (docs/pages.md): translations
# and spellings of one label score 0.85–0.96 ("favourite colour"/"最喜欢的颜色" 0.86, "语言"/"language" 0.94),
# different slots that look alike at most 0.80 ("short-term goal"/"long-term goal"); values that say the
# same 0.85–0.92 ("上海"/"Shanghai"), different values of one slot at most 0.79 ("vegetarian"/"vegan" 0.78).
LABELS_SAME = 0.85
VALUES_SAME = 0.85

NEW, CHANGE, KNOWN = Proposal.Slot.NEW.value, Proposal.Slot.CHANGE.value, Proposal.Slot.KNOWN.value
DUPLICATE = "duplicate"  # said already by an earlier item of the same batch (``within=True``)


@dataclass(frozen=True)
class SlotText:
    """A suggested fact's content."""

    category: str
    label: str
    value: str


@dataclass(frozen=True)
class SlotMatch:
    """``kind``: NEW, CHANGE (of ``fact``), KNOWN (``fact`` says it already) or DUPLICATE (of item ``earlier``)."""

    kind: str
    fact: Fact | None = None
    earlier: int | None = None


@dataclass(frozen=True)
class _Text:
    """One side of a comparison: a fact or an item, with its label key, table slot and meaning vectors."""

    category: str
    key: str
    slot: str | None
    value: str  # normalised
    words: frozenset[str]  # its content words
    label_vector: Any
    value_vector: Any


def _text(category: str, label: str, value: str, label_vector: Any, value_vector: Any) -> _Text:
    return _Text(category, label_key(label), slot_of(label), normalize(value), content_words(value),
                 label_vector, value_vector)


def _similar(one: Any, other: Any, at_least: float) -> bool:
    return one is not None and other is not None and float(np.dot(one, other)) >= at_least


def _same_slot(new: _Text, old: _Text) -> bool:
    if new.category != old.category:
        return False
    if new.key == old.key:
        return True
    if new.slot is not None and old.slot is not None:
        return new.slot == old.slot  # the table knows both: it decides
    return _similar(new.label_vector, old.label_vector, LABELS_SAME)


def _says_same(new: _Text, old: _Text) -> bool:
    return (new.value == old.value or (bool(new.words) and new.words <= old.words)
            or _similar(new.value_vector, old.value_vector, VALUES_SAME))


def _judge(new: _Text, facts: Sequence[tuple[Fact, _Text]]) -> SlotMatch:
    slot = [fact for fact, old in facts if _same_slot(new, old)]
    known = next((fact for fact, old in facts if fact in slot and _says_same(new, old)), None)
    if known is not None:
        return SlotMatch(KNOWN, known)
    return SlotMatch(CHANGE, slot[0]) if slot else SlotMatch(NEW)


def _fact_texts(owner_id: int, categories: set[str]) -> list[tuple[Fact, _Text]]:
    facts = list(Fact.objects.filter(owner_id=owner_id, status=FactStatus.ACTIVE, category__in=categories)
                 .only("id", "owner_id", "category", "label", "value", "version", "status", "updated_at")
                 .order_by("-updated_at", "-id"))
    vectors, _model = fact_meanings(owner_id=owner_id, fact_ids=[fact.pk for fact in facts])
    return [(fact, _text(fact.category, fact.label, fact.value, vectors.get((fact.pk, "/label")),
                         vectors.get((fact.pk, "/value")))) for fact in facts]


# SPEC P-9 (home)
def slot_judge(*, owner_id: int, items: Sequence[SlotText], within: bool = False) -> list[SlotMatch]:
    """What each suggested fact is to the active facts of the person ``owner_id``: new, a change of one (same category, same or
    equivalent label), or already known (its value says nothing more than that fact's).

    ``within``: an item that says what an earlier item of ``items`` says is a DUPLICATE of it (an import).
    A fixed number of queries and one call of the meaning model, however many items (SPEC W-6, P-10).
    """
    if not items:
        return []
    facts = _fact_texts(owner_id, {item.category for item in items})
    vectors = text_meanings([item.label for item in items] + [item.value for item in items])
    count = len(items)
    texts = [_text(item.category, item.label, item.value, vectors[index] if vectors is not None else None,
                   vectors[count + index] if vectors is not None else None) for index, item in enumerate(items)]
    judged: list[SlotMatch] = []
    for index, text in enumerate(texts):
        earlier = next((before for before in range(index) if judged[before].kind != DUPLICATE
                        and _same_slot(text, texts[before]) and _says_same(text, texts[before])), None) \
            if within else None
        judged.append(SlotMatch(DUPLICATE, earlier=earlier) if earlier is not None else _judge(text, facts))
    return judged


def slot_judge_one(*, owner_id: int, category: str, label: str, value: str) -> SlotMatch:
    """``slot_judge`` of one suggested fact."""
    return slot_judge(owner_id=owner_id, items=[SlotText(category, label, value)])[0]
