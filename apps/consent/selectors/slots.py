"""One fact per slot (SPEC P-9): what a suggested ``add`` is to the person's facts.

Every path asks here: a proposal when it is made or reworded, confirming one or many, an import.
Design notes: docs/pages.md ("One fact per slot").
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from apps.consent.models import Proposal
from apps.consent.slot_words import content_words, label_key, slot_of
from apps.memory.models import Fact, FactStatus
from apps.retrieval.indexing import normalize
from apps.retrieval.selectors import fact_meanings, text_meanings

# Meaning similarity (the shipped model, cosine) at which two labels the table does not know name one slot,
# and at which two values of one slot say the same. The model bridges the two languages well and tells
# apart look-alikes of one language badly, so a comparison within one language asks more (measured,
# docs/pages.md): a label and its translation score 0.83–0.94 ("favourite colour"/"最喜欢的颜色" 0.83,
# "coffee"/"咖啡" 0.94) while "weekday routine"/"weekend routine" scores 0.86 and "short-term goal"/
# "long-term goal" 0.80; a value and its translation 0.87–0.92 ("Shanghai"/"上海"), different values of one
# slot at most 0.79 ("vegetarian"/"vegan" 0.78).
LABELS_SAME, LABELS_SAME_ACROSS = 0.92, 0.82
VALUES_SAME, VALUES_SAME_ACROSS = 0.92, 0.85
_HAN = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")

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
    chinese_label: bool
    chinese_value: bool
    label_vector: Any
    value_vector: Any


def _text(category: str, label: str, value: str, label_vector: Any, value_vector: Any) -> _Text:
    return _Text(category, label_key(label), slot_of(label), normalize(value), content_words(value),
                 bool(_HAN.search(label)), bool(_HAN.search(value)), label_vector, value_vector)


def _similar(one: Any, other: Any, at_least: float) -> bool:
    return one is not None and other is not None and float(np.dot(one, other)) >= at_least


def _same_slot(new: _Text, old: _Text) -> bool:
    if new.category != old.category:
        return False
    if new.key == old.key:
        return True
    if new.slot is not None and old.slot is not None:
        return new.slot == old.slot  # the table knows both: it decides
    across = new.chinese_label != old.chinese_label
    return _similar(new.label_vector, old.label_vector, LABELS_SAME_ACROSS if across else LABELS_SAME)


def _says_same(new: _Text, old: _Text) -> bool:
    return (new.value == old.value or (bool(new.words) and new.words <= old.words)
            or _similar(new.value_vector, old.value_vector,
                        VALUES_SAME_ACROSS if new.chinese_value != old.chinese_value else VALUES_SAME))


def _fact_texts(owner_id: int, categories: set[str]) -> list[tuple[Fact, _Text]]:
    """The person's active facts of these categories, newest first, with their labels' stored meaning."""
    facts = list(Fact.objects.filter(owner_id=owner_id, status=FactStatus.ACTIVE, category__in=categories)
                 .only("id", "owner_id", "category", "label", "value", "version", "status", "updated_at")
                 .order_by("-updated_at", "-id"))
    vectors, _model = fact_meanings(owner_id=owner_id, fact_ids=[fact.pk for fact in facts], fields=("/label",))
    return [(fact, _text(fact.category, fact.label, fact.value, vectors.get((fact.pk, "/label")), None))
            for fact in facts]


def _with_value_meanings(facts: list[tuple[Fact, _Text]]) -> list[tuple[Fact, _Text]]:
    """These facts with their values' meaning, embedded as written: proper names keep their case, which the
    model needs ("Shanghai"/"上海" 0.92, "shanghai"/"上海" 0.76); the stored vectors are of normalised text."""
    vectors = text_meanings([fact.value for fact, _old in facts], normal=False) if facts else None
    if vectors is None:
        return facts
    return [(fact, replace(old, value_vector=vectors[index])) for index, (fact, old) in enumerate(facts)]


def _judge(new: _Text, facts: Sequence[tuple[Fact, _Text]]) -> SlotMatch:
    known = next((fact for fact, old in facts if _says_same(new, old)), None)
    if known is not None:
        return SlotMatch(KNOWN, known)
    return SlotMatch(CHANGE, facts[0][0]) if facts else SlotMatch(NEW)


# SPEC P-9 (home)
def slot_judge(*, owner_id: int, items: Sequence[SlotText], within: bool = False) -> list[SlotMatch]:
    """What each suggested fact is to the active facts of the person ``owner_id``: new, a change of one (same
    category, same or equivalent label), or already known (its value says nothing more than that fact's).

    ``within``: an item that says what an earlier item of ``items`` says is a DUPLICATE of it (an import);
    there, the same label counts in any category (one list filed one memory under two headings).
    Two queries and at most three calls of the meaning model, however many items (SPEC W-6, P-10).
    """
    if not items:
        return []
    facts = _fact_texts(owner_id, {item.category for item in items})
    labels = text_meanings([item.label for item in items])
    values = text_meanings([item.value for item in items], normal=False)
    texts = [_text(item.category, item.label, item.value, labels[index] if labels is not None else None,
                   values[index] if values is not None else None) for index, item in enumerate(items)]
    # Each item's slot: the facts of the same category whose label names it (one read of the facts above).
    slots = [[(fact, old) for fact, old in facts if _same_slot(text, old)] for text in texts]
    needed = {fact.pk: (fact, old) for slot in slots for fact, old in slot}
    with_values = dict((fact.pk, (fact, old)) for fact, old in _with_value_meanings(list(needed.values())))
    judged: list[SlotMatch] = []
    for index, text in enumerate(texts):
        earlier = next((before for before in range(index) if judged[before].kind != DUPLICATE
                        and (_same_slot(text, texts[before]) or text.key == texts[before].key)
                        and _says_same(text, texts[before])), None) if within else None
        if earlier is not None:
            judged.append(SlotMatch(DUPLICATE, earlier=earlier))
        else:
            judged.append(_judge(text, [with_values[fact.pk] for fact, _old in slots[index]]))
    return judged


def slot_judge_one(*, owner_id: int, category: str, label: str, value: str) -> SlotMatch:
    """``slot_judge`` of one suggested fact."""
    return slot_judge(owner_id=owner_id, items=[SlotText(category, label, value)])[0]
