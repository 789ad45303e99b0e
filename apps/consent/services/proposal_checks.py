"""What an assistant may propose, checked before anything is stored (SPEC P-1 … P-3).

Also SPEC M-8. Design notes: docs/design.md.
"""

from __future__ import annotations

import hashlib
import json
import re
import unicodedata
from dataclasses import asdict, dataclass

from apps.common.errors import (  # noqa: F401 - the codes a proposal is refused with, read as proposal_checks.*
    CATEGORY_NOT_ALLOWED,
    CONVERSATION_REFUSED,
    DUPLICATE_PROCESSED,
    INVALID_ARGUMENT,
    NOT_FOUND,
    PROPOSAL_EXPIRED,
    SECRET_DETECTED,
    TOO_MANY_PENDING,
    CodedError,
)
from apps.memory.detectors import detect_secrets
from apps.memory.models import Category
from apps.memory.models.facts import EVIDENCE_MAX, LABEL_MAX, VALUE_MAX

ADD, UPDATE, ARCHIVE = "add", "update", "archive"
OPS = (ADD, UPDATE, ARCHIVE)
FIELDS = ("op", "category", "label", "value", "evidence", "target_fact_id")  # SPEC P-1: nothing else
TEXT_FIELDS = ("category", "label", "value", "evidence")
CONTENT_FIELDS = ("category", "label", "value")
LIMITS = {"label": LABEL_MAX, "value": VALUE_MAX, "evidence": EVIDENCE_MAX}
# A label names a fact and evidence is a one-line note (SPEC P-2); a value may wrap.
ONE_LINE_FIELDS = ("label", "evidence")



class ProposalError(CodedError):
    """A proposal the rules refuse, or an action on a proposal that cannot be taken."""


@dataclass(frozen=True)
class ProposalArguments:
    """Arguments that passed the shape checks: stripped text, ``""`` for an omitted field."""

    op: str
    category: str = ""
    label: str = ""
    value: str = ""
    evidence: str = ""
    target_fact_id: int | None = None


def _invalid(message: str, field: str) -> ProposalError:
    return ProposalError(INVALID_ARGUMENT, message, field)


def _target_id(raw: object) -> int:
    if isinstance(raw, bool):
        raise _invalid("target_fact_id must be a fact id", "target_fact_id")
    if isinstance(raw, int):
        number = raw
    elif isinstance(raw, str) and raw.strip().isascii() and raw.strip().isdigit():
        number = int(raw.strip())
    else:
        raise _invalid("target_fact_id must be a fact id (a number, or a string of digits)", "target_fact_id")
    if number < 1:
        raise _invalid("target_fact_id must be a fact id", "target_fact_id")
    return number


def check_text(name: str, text: str) -> None:
    """Length and line limits of one text field (SPEC D-1, P-2)."""
    limit = LIMITS.get(name)
    if limit is not None and len(text) > limit:
        raise _invalid(f"{name} is {len(text)} characters; the limit is {limit}", name)
    if name in ONE_LINE_FIELDS and len(text.splitlines()) > 1:
        raise _invalid(f"{name} must be a single line (no line breaks)", name)


# SPEC P-1 (home)
def parse_arguments(arguments: object) -> ProposalArguments:
    """The shape of a proposal (SPEC P-1, P-2 limits). Raises ``invalid_argument``."""
    if not isinstance(arguments, dict):
        raise _invalid("arguments must be an object", "arguments")
    for name in sorted(set(arguments) - set(FIELDS), key=str):
        raise _invalid(f"unknown field {name!r}; accepted fields: {', '.join(FIELDS)}", str(name))
    op = arguments.get("op")
    if op not in OPS:
        raise _invalid(f"op is required and must be one of {', '.join(OPS)}", "op")
    texts = {}
    for name in TEXT_FIELDS:
        raw = arguments.get(name, "")
        if not isinstance(raw, str):
            raise _invalid(f"{name} must be a string", name)
        texts[name] = raw.strip()
        check_text(name, texts[name])
    if texts["category"] and texts["category"] not in Category.values:
        raise _invalid(f"category must be one of {', '.join(Category.values)}", "category")
    target = arguments.get("target_fact_id")
    if "target_fact_id" in arguments:
        target = _target_id(target)
    if op == ADD:
        if target is not None:
            raise _invalid("target_fact_id is only for update and archive", "target_fact_id")
        for name in CONTENT_FIELDS:
            if not texts[name]:
                raise _invalid(f"add needs {name} (category, label and value are required)", name)
    else:
        if target is None:
            raise _invalid(f"{op} needs target_fact_id, the id of a fact you can see", "target_fact_id")
        if op == UPDATE and not any(texts[name] for name in CONTENT_FIELDS):
            raise _invalid("update needs new content: at least one of category, label, value", "value")
    return ProposalArguments(op=op, target_fact_id=target, **texts)


# SPEC P-2 (home)
def check_content(args: ProposalArguments) -> None:
    """What may never be stored from an assistant (SPEC P-2): conversations, secrets."""
    for name in ("value", "label", "evidence"):
        if looks_like_conversation(getattr(args, name)):
            raise ProposalError(
                CONVERSATION_REFUSED,
                f"{name} looks like a pasted conversation; propose one short fact instead",
                name,
            )
    for name in ("label", "value", "evidence"):
        kinds = sorted({finding.kind.replace("_", " ") for finding in detect_secrets(getattr(args, name))})
        if kinds:
            raise ProposalError(
                SECRET_DETECTED,
                f"{name} contains what looks like a {' and a '.join(kinds)}; "
                "secrets and verification codes are never stored",
                name,
            )


def _normal(text: str) -> str:
    return " ".join(unicodedata.normalize("NFKC", text).casefold().split())


def fingerprint(args: ProposalArguments) -> str:
    """SHA-256 of the canonical JSON of the normalized arguments (SPEC P-4).

    Text is compared after NFKC, case folding and whitespace collapsing; omitted and empty are equal.
    """
    canonical = {
        name: (_normal(value) if isinstance(value, str) else value)
        for name, value in asdict(args).items()
        if value not in ("", None)
    }
    data = json.dumps(canonical, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(data.encode("utf-8")).hexdigest()


# --- Pasted conversations (SPEC P-2) -----------------------------------------------------------

_ROLES = (
    r"user|assistant|human|ai|chatgpt|gpt|claude|gemini|bot|chatbot|system|model|"
    r"用户|助手|人类|机器人|系统|客服|顾客|提问|回答|问|答"
)
# A role label opening a turn: at a line start or after a sentence end or a space.
_TURN = re.compile(rf"(?:^|(?<=[\s。！？.!?”\"'）)]))(?P<role>{_ROLES})\s*[:：]", re.IGNORECASE | re.MULTILINE)
_TIMESTAMP = re.compile(r"^\s*[\[(（]?\d{1,2}:\d{2}(?::\d{2})?[\])）]?\s*")
_SPEAKER_LINE = re.compile(r"^\s*(?P<name>[^\s:：]{1,20})\s*[:：]\s*\S")
MANY_LINES = 6


def looks_like_conversation(text: str) -> bool:
    """Whether ``text`` is dialogue (role or speaker turns) rather than one fact.

    A fact that merely mentions a role, or a list of "key: value" lines, passes.
    """
    if not text:
        return False
    roles = [match.group("role").casefold() for match in _TURN.finditer(text)]
    if len(roles) >= 3 or len(set(roles)) >= 2:
        return True
    lines = [line for line in text.splitlines() if line.strip()]
    speakers = []
    for line in lines:
        match = _SPEAKER_LINE.match(_TIMESTAMP.sub("", line))
        if match:
            speakers.append(match.group("name").casefold())
    for index, speaker in enumerate(speakers):
        if speaker in speakers[:index] and speakers[index - 1] != speaker:
            return True  # a speaker answers again after someone else spoke
    return len(lines) >= MANY_LINES and len(speakers) * 2 >= len(lines)
