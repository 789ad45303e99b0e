"""How searchable text is normalized and split into terms, and the shape of a type's searchable fields (SPEC R-6).

Which types and fields are searchable comes from their declarations (``apps.retrieval.registry``).

Design notes: docs/design.md.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from django.db import models


# SPEC S-3 (home)
def normalize(text: str) -> str:
    """The form both stored text and queries are matched in.

    NFKC, ``casefold``, Traditional to Simplified (``folding``), whitespace runs as one space.
    """
    from apps.retrieval.folding import fold_traditional

    return " ".join(fold_traditional(unicodedata.normalize("NFKC", text).casefold()).split())


# Where Chinese (Han, kana, Hangul) meets a letter of another script, people often leave out the space:
# "OKR复盘" for "OKR 复盘". Each side is a term of its own, so either spacing is found. Digits stay
# with their neighbours ("第3季度", "N2").
_CJK = "\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af\uf900-\ufaff"
_LETTER = rf"[^\W\d_{_CJK}]"
_CJK_PAIR = re.compile(f"[{_CJK}]{{2}}")
_SCRIPT_BOUNDARY = re.compile(rf"(?<=[{_CJK}])(?={_LETTER})|(?<={_LETTER})(?=[{_CJK}])")


_SPELLING = re.compile(rf"[{_CJK}]|[^\W_{_CJK}]+")
_HAS_LETTER, _HAS_CJK = re.compile(_LETTER), re.compile(f"[{_CJK}]")
LETTERS, CJK = 1, 2  # the flags of ``script``


def script(text: str) -> int:
    """The scripts ``text`` is written in, as flags: ``LETTERS`` (an alphabet's), ``CJK``, both (3) or neither (0)."""
    return (LETTERS if _HAS_LETTER.search(text) else 0) | (CJK if _HAS_CJK.search(text) else 0)


def spelling(text: str) -> frozenset[str]:
    """How ``text`` (normalized) is spelt: the pairs of letters or digits in each word (a word of one, itself) and
    each CJK character alone (two characters are often a whole name)."""
    return frozenset(piece for word in _SPELLING.findall(text)
                     for piece in ((word[i:i + 2] for i in range(len(word) - 1)) if len(word) > 1 else (word,)))


def is_cjk_pair(term: str) -> bool:
    """Whether ``term`` is two CJK characters: the pairs a PostgreSQL row stores (retrieval migration 0008)."""
    return _CJK_PAIR.fullmatch(term) is not None


def pointer_text(instance: models.Model, path: str) -> str:
    """The text at a JSON Pointer path of a record; lists of strings are joined by newlines."""
    if not path.startswith("/"):
        raise ValueError(f"not a JSON Pointer: {path!r}")
    parts = [p.replace("~1", "/").replace("~0", "~") for p in path[1:].split("/")]
    value = getattr(instance, parts[0], None)
    for part in parts[1:]:
        if isinstance(value, dict):
            value = value.get(part)
        elif isinstance(value, list) and part.isdigit() and int(part) < len(value):
            value = value[int(part)]
        else:
            return ""
    if value is None:
        return ""
    if isinstance(value, (list, tuple)):
        return "\n".join(str(item) for item in value if isinstance(item, (str, int, float)))
    return str(value)


@dataclass(frozen=True)
class SearchableField:
    """A field whose text takes part in matching; ``weight`` scales its share of the score; ``name``: a field of
    names, matched by meaning only when spelt alike too (``Field.name``, ``calibration.spelt_alike``)."""

    path: str
    weight: float = 1.0
    extract: Callable[[models.Model], str] | None = None
    name: bool = False

    def text(self, instance: models.Model) -> str:
        return self.extract(instance) if self.extract else pointer_text(instance, self.path)


@dataclass(frozen=True)
class IndexedType:
    """One resource type's searchable fields (its part of the R-1 declaration).

    ``is_indexed`` leaves a record out; checks that depend on the caller are made at search time (SPEC R-6).
    """

    resource_type: str
    model: type[models.Model]
    fields: tuple[SearchableField, ...]
    owner_attr: str = "owner_id"
    is_indexed: Callable[[models.Model], bool] = field(default=lambda instance: True)

    def searchable(self, path: str) -> SearchableField:
        for candidate in self.fields:
            if candidate.path == path:
                return candidate
        raise KeyError(f"{self.resource_type} has no searchable field {path}")

    def rows(self, instance: models.Model) -> dict[str, str]:
        """field path → normalized text, for the fields that hold any text."""
        if not self.is_indexed(instance):
            return {}
        texts = ((f.path, normalize(f.text(instance))) for f in self.fields)
        return {path: text for path, text in texts if text}


def query_terms(query: str) -> list[str]:
    """The normalized, de-duplicated terms of a query, in order. Every term must match (AND)."""
    seen: list[str] = []
    for term in _SCRIPT_BOUNDARY.sub(" ", normalize(query)).split(" "):
        if term and term not in seen:
            seen.append(term)
    return seen


def paths(fields: Iterable[SearchableField]) -> tuple[str, ...]:
    return tuple(f.path for f in fields)
