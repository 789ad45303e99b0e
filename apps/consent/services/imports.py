"""Bringing memories in (SPEC P-10): a pasted list or an export becomes suggestions in the review inbox.

An imported suggestion has no assistant: it is the person's own (``owner``, ``source="import"``), listed
on the import page with the same cards and actions as an assistant's. Design notes: docs/pages.md.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np
from django.db import IntegrityError, transaction
from django.utils.translation import gettext as _

from apps.common import clock
from apps.consent.memory_items import ImportedFact, as_fact
from apps.consent.memory_lists import ImportRefused, ListItem, read_items
from apps.consent.models import Proposal
from apps.consent.selectors.slots import DUPLICATE, SlotText, slot_judge
from apps.consent.services.proposal_checks import (
    ADD,
    INVALID_ARGUMENT,
    ProposalArguments,
    ProposalError,
    check_content,
    check_text,
    fingerprint,
)
from apps.consent.services.proposals import PROPOSAL_LIFETIME, slot_store
from apps.memory.models import Category
from apps.memory.models.facts import VALUE_MAX
from apps.retrieval.selectors import text_meanings

if TYPE_CHECKING:
    from apps.accounts.models import User

Status = Proposal.Status
IMPORT_BUSY = "import_busy"

# What statements of each category talk about, for the meaning model when no word tells (SPEC D-2): short
# phrases in both languages, a category as near as its nearest phrase.
CATEGORY_MEANINGS = {
    "basic": ("name and age", "where I live", "languages I speak", "姓名和年龄", "住在哪里", "会说的语言"),
    "preferences": ("likes and dislikes", "favourite things", "how I like answers", "喜欢和不喜欢", "最喜欢的东西",
                    "喜欢的回答方式"),
    "habits": ("what I do every day", "my weekly routine", "每天做的事", "每周的习惯"),
    "goals": ("what I want to achieve", "plans for the future", "想实现的目标", "将来的计划"),
    "work_study": ("my job and employer", "projects and colleagues", "school and studies", "工作和公司", "项目和同事",
                   "学校和学习"),
    "health": ("illness and medicine", "sleep and body", "allergies and doctors", "疾病和药物", "睡眠和身体",
               "过敏和医生"),
    "relationships": ("family members", "partner and children", "friends", "家人", "伴侣和孩子", "朋友"),
}
# Below it nothing is near enough: "uncategorized". Measured: statements 0.34–0.38 from their category's
# nearest phrase, gibberish at most 0.29 (docs/pages.md).
CATEGORY_MEANING_MIN = 0.32
_PHRASES = [(code, phrase) for code, phrases in CATEGORY_MEANINGS.items() for phrase in phrases]

_SENTENCES = re.compile(r"(?<=[.!?。！？；;])\s*")


@dataclass(frozen=True)
class ItemRefused:
    number: int  # the item's place in the list
    code: str
    message: str


@dataclass
class ImportResult:
    added: int = 0  # new suggestions waiting in the inbox
    changes: int = 0  # of them, ones that change a fact (SPEC P-9)
    known: int = 0  # of them, ones a fact already says
    duplicates: int = 0  # said twice in this import: collapsed into one
    already: int = 0  # suggested by an earlier import (waiting or decided): not added again
    split: int = 0  # long items cut into sentences
    refused: list[ItemRefused] = field(default_factory=list)


def _pieces(item: ListItem) -> list[str]:
    """The item, or its sentences packed into values of at most ``VALUE_MAX`` characters (SPEC P-2)."""
    if len(item.text) <= VALUE_MAX:
        return [item.text]
    pieces: list[str] = []
    for sentence in (part.strip() for part in _SENTENCES.split(item.text) if part.strip()):
        if len(sentence) > VALUE_MAX:
            raise ProposalError(INVALID_ARGUMENT, f"item {item.number} is {len(item.text)} characters and has a "
                                f"sentence longer than {VALUE_MAX}; shorten it and import it again", "value")
        if pieces and len(pieces[-1]) + 1 + len(sentence) <= VALUE_MAX:
            pieces[-1] = f"{pieces[-1]} {sentence}"
        else:
            pieces.append(sentence)
    return pieces


def _categorised(facts: list[ImportedFact]) -> list[ImportedFact]:
    """Facts whose category no word told get the meaning model's nearest one, else "uncategorized"."""
    unknown = [index for index, fact in enumerate(facts) if not fact.category]
    vectors = text_meanings([facts[i].value for i in unknown] + [phrase for _code, phrase in _PHRASES],
                            normal=False) if unknown else None
    result = list(facts)
    for position, index in enumerate(unknown):
        category = Category.UNCATEGORIZED.value
        if vectors is not None:
            scores = vectors[len(unknown):] @ vectors[position]
            if float(np.max(scores)) >= CATEGORY_MEANING_MIN:
                category = _PHRASES[int(np.argmax(scores))][0]
        result[index] = ImportedFact(category, facts[index].label, facts[index].value)
    return result


def _arguments(items: list[ListItem], result: ImportResult) -> list[ProposalArguments]:
    today = clock.now().date().isoformat()
    facts: list[tuple[ImportedFact, str]] = []
    for item in items:
        try:
            pieces = _pieces(item)
        except ProposalError as error:
            result.refused.append(ItemRefused(item.number, error.code, error.message))
            continue
        result.split += len(pieces) > 1
        evidence = (_("Imported %(today)s; listed as of %(date)s") % {"today": today, "date": item.date}
                    if item.date else _("Imported %(today)s") % {"today": today})
        checked = []
        try:
            for piece in pieces:
                fact = as_fact(piece, item.heading)
                for name, text in (("label", fact.label), ("value", fact.value), ("evidence", evidence)):
                    check_text(name, text)
                check_content(ProposalArguments(op=ADD, category=fact.category, label=fact.label, value=fact.value))
                checked.append((fact, evidence))
        except ProposalError as error:  # SPEC P-2: a secret, a conversation, a label too long
            result.refused.append(ItemRefused(item.number, error.code, f"item {item.number}: {error.message}"))
            continue
        facts.extend(checked)
    categorised = _categorised([fact for fact, _evidence in facts])
    return [ProposalArguments(op=ADD, category=fact.category, label=fact.label, value=fact.value, evidence=evidence)
            for fact, (_fact, evidence) in zip(categorised, facts, strict=True)]


# SPEC P-10 (home)
@transaction.atomic
def memories_import(*, user: User, data: bytes) -> ImportResult:
    """Turn a pasted list or an uploaded export into the person's imported suggestions, never confirmed here.

    Each item: P-2's limits (long items split at sentences, else refused) and secret refusal, P-5's expiry,
    P-9 against the person's facts and the items before it (a repeat collapses). Refused as a whole
    (``ImportRefused``, nothing written) when the input is not a list of memories. One transaction and a
    fixed number of statements, however many items.
    """
    result = ImportResult()
    arguments = _arguments(read_items(data), result)
    judged = slot_judge(owner_id=user.pk, items=[SlotText(a.category, a.label, a.value) for a in arguments],
                        within=True)
    now = clock.now()
    mine = Proposal.objects.filter(owner=user, source=Proposal.Source.IMPORT)
    # Expired ones are recorded so (SPEC J-2); what they said may be suggested again.
    mine.filter(status=Status.PENDING, expires_at__lte=now).update(status=Status.EXPIRED, decided_at=now)
    digests = [fingerprint(args) for args in arguments]
    earlier = set(mine.filter(fingerprint__in=set(digests)).exclude(status=Status.EXPIRED)
                  .values_list("fingerprint", flat=True))
    rows = []
    for args, match, digest in zip(arguments, judged, digests, strict=True):
        if match.kind == DUPLICATE:
            result.duplicates += 1
            continue
        if digest in earlier:
            result.already += 1
            continue
        earlier.add(digest)
        proposal = Proposal(owner=user, source=Proposal.Source.IMPORT, connection=None, op=ADD,
                            category=args.category, label=args.label, value=args.value, evidence=args.evidence,
                            status=Status.PENDING, fingerprint=digest, created_at=now,
                            expires_at=now + PROPOSAL_LIFETIME)
        slot_store(proposal, match, save=False)
        result.changes += proposal.slot == Proposal.Slot.CHANGE
        result.known += proposal.slot == Proposal.Slot.KNOWN
        rows.append(proposal)
    try:
        with transaction.atomic():
            Proposal.objects.bulk_create(rows, batch_size=500)
    except IntegrityError:  # the same list imported at the same moment: one of them wins, whole
        raise ImportRefused(IMPORT_BUSY, "the same memories were being imported at the same moment; "
                                         "look at the inbox, then import again if something is missing") from None
    result.added = len(rows)
    return result
