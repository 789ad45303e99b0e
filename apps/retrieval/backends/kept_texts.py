"""One scope's searchable texts, kept per process between searches: the keyword search's first pass — every
match, scored by the shared coverage score — without the statement that reads them all (SPEC R-7, S-3).

A word in every one of 10,000 facts made that statement find, group and order 10,000 rows on every search
(docs/search.md "Speed and memory"). The rows a scope holds are listed under the database's stamps
(``listing``), as the kept vectors are; a row's text is read again only when its change stamp moved. The
database still ranks the best matches by its own relevance (``ranked_matches``), and each hit is still
confirmed in its current record (SPEC R-6). A scope that cannot be proven unchanged, or too large to keep,
is matched by the statement.

Design notes: docs/performance.md (How the hot paths are built).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from django.db import connections

from apps.retrieval import listing
from apps.retrieval.backends.base import SCORE_SCALE, SearchHit, SearchScope, field_weights, stamp

MAX_CHARS = 4_000_000  # one scope's texts: a larger scope is matched by the statement
KEPT_CHARS = 8_000_000  # every scope's texts in this process (kept twice: each text and their join)
SEPARATOR = "\x00"  # between texts: PostgreSQL text never holds it
RECORD_BITS = 40  # a (type, record) pair as one int64: the type's code above the record id
RECORD_MASK = (1 << RECORD_BITS) - 1


@dataclass(frozen=True)
class Texts:
    """A scope's rows by row id, as parallel arrays, and their texts joined by ``SEPARATOR``.

    Types and fields are codes into ``names``, which is sorted: the codes of types order as their names."""

    ids: np.ndarray
    stamps: np.ndarray
    names: tuple[str, ...]
    pairs: np.ndarray  # each row's record as one int64: its type's code above its record id (``RECORD_BITS``)
    fields: np.ndarray
    texts: np.ndarray  # the texts themselves (objects)
    lengths: np.ndarray  # characters, as LENGTH(text)
    starts: np.ndarray  # each text's offset in ``joined``
    joined: str

    def holding(self, term: str) -> np.ndarray:
        """Whether each row's text holds ``term`` (as ``strpos``: the normalized text as it is)."""
        found = np.zeros(self.ids.shape[0], dtype=bool)
        pieces = self.joined.split(term)  # what lies between its places, in C: no Python call per place
        if len(pieces) > 1:
            lengths = np.fromiter(map(len, pieces[:-1]), dtype=np.int64, count=len(pieces) - 1)
            places = np.cumsum(lengths) + np.arange(len(pieces) - 1, dtype=np.int64) * len(term)
            found[np.searchsorted(self.starts, places, side="right") - 1] = True
        return found


@dataclass(frozen=True)
class Matches(Sequence):
    """Every match, best first, as (type code, record id) pairs and scores: ``SearchHit``s made only for the
    places read (a word in every fact matches 10,000 records; a search reads the first 200)."""

    names: tuple[str, ...]
    keys: np.ndarray
    scores: np.ndarray
    row_ids: np.ndarray  # the rows that score (readable, holding a term)
    row_keys: np.ndarray  # … and their records' keys

    def __len__(self) -> int:
        return self.keys.shape[0]

    def __getitem__(self, part):  # a place or a slice, as a list's
        if not isinstance(part, slice):
            return self[part:part + 1 or None][0]
        return [SearchHit(self.names[key >> RECORD_BITS], key & RECORD_MASK, score / SCORE_SCALE)
                for key, score in zip(self.keys[part].tolist(), self.scores[part].tolist(), strict=True)]

    def scoring_rows(self, records: int) -> list[int]:
        return self.row_ids[np.isin(self.row_keys, self.keys[:records])].tolist()


_lock = threading.Lock()
# Scope statement → (its version, its texts or None when too large to keep, its rows then).
_kept: OrderedDict[tuple, tuple[tuple, Texts | None, int]] = OrderedDict()


def matches(backend, *, owner_id: int, scopes: Sequence[SearchScope], terms: list[str]) -> Matches | None:
    """Every record of the scopes holding each of ``terms`` in a readable field, best first by the shared score
    (``_two_pass_sql``'s ``r``: the score, then resource type and record id). None: not kept; ask the database."""
    if not terms or any(SEPARATOR in term for term in terms):
        return None
    texts = _texts(backend, owner_id=owner_id, scopes=scopes)
    if texts is None:
        return None
    rows, held = _rows_holding_every_term(texts, terms)
    if rows.shape[0] == 0:
        nothing = np.empty(0, dtype=np.int64)
        return Matches((), nothing, np.empty(0), nothing, nothing)
    lengths = texts.lengths[rows]
    coverage = np.zeros(rows.shape[0], dtype=np.float64)
    for term in terms:  # in the statement's order: the same sums
        coverage = coverage + np.where(held[term], 1 + (len(term) / 2) / lengths, 0.0)
    table = np.ones((len(texts.names), len(texts.names)), dtype=np.float64)  # unnamed: 1.0, as the CASE's ELSE
    code = {name: at for at, name in enumerate(texts.names)}
    for (kind, path), weight in field_weights(scopes).items():
        if kind in code and path in code:
            table[code[kind], code[path]] = weight
    pairs = texts.pairs[rows]
    keys, record_of = np.unique(pairs, return_inverse=True)
    weight = table[pairs >> RECORD_BITS, texts.fields[rows]]
    scores = np.rint(np.bincount(record_of, weights=weight * coverage, minlength=keys.shape[0]) * SCORE_SCALE)
    order = np.lexsort((keys, -scores))  # the score, then the type's name and the record id
    return Matches(texts.names, keys[order], scores[order], texts.ids[rows], pairs)


SCANNED = 2_000  # fewer rows left than this are asked one by one; more, the joined texts are searched


def _rows_holding_every_term(texts: Texts, terms: list[str]) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """The rows of the records holding every term (each in one of their rows), that hold one at least, and
    whether each holds each term. The longest term first (likely the rarest): each next one is looked for only
    in the records left, and a term none of them holds ends the search, as the statement's gates do."""
    if len(set(terms)) == 1:  # one term: the rows holding it are the records' every row that scores
        rows = np.flatnonzero(texts.holding(terms[0]))
        return rows, {terms[0]: np.ones(rows.shape[0], dtype=bool)}
    rows = np.arange(texts.ids.shape[0])  # the rows of the records still in the running
    found: dict[str, np.ndarray] = {}
    for term in sorted(dict.fromkeys(terms), key=len, reverse=True):
        if rows.shape[0] > SCANNED:
            holds = texts.holding(term)[rows]
        else:
            holds = np.fromiter((term in text for text in texts.texts[rows]), dtype=bool, count=rows.shape[0])
        pairs = texts.pairs[rows]
        keep = np.isin(pairs, pairs[holds])
        if not keep.any():
            return np.empty(0, dtype=np.int64), {}
        found = {held: was[keep] for held, was in found.items()}
        found[term] = holds[keep]
        rows = rows[keep]
    some = np.logical_or.reduce(list(found.values()))  # a row holding no term adds nothing to the score
    return rows[some], {term: found[term][some] for term in terms}


def _texts(backend, *, owner_id: int, scopes: Sequence[SearchScope]) -> Texts | None:
    """The scope's texts now, brought up to date from those kept; None when its stamps prove nothing or it is
    too large to keep (remembered: such a scope is not read again until it has half as many rows)."""
    built = backend.vector_scope_sql(owner_id=owner_id, scopes=scopes, model=None)
    if built is None or backend.scope_stamp_sql(owner_id=owner_id, scopes=scopes) is None:
        return None  # nothing could prove kept texts current: not even listed
    with connections[backend.using].cursor() as cursor:
        listed = listing.scope_rows(backend, cursor, built, owner_id=owner_id, scopes=scopes)
        if listed.version is None:
            return None
        key, count = listed.version[0], listed.ids.shape[0]
        with _lock:
            kept = _kept.get(key)
            if kept is not None and (kept[0] == listed.version or (kept[1] is None and 2 * count > kept[2])):
                _kept.move_to_end(key)
                return kept[1]
        try:
            texts = _bring_up_to_date(backend, cursor, listed, kept[1] if kept else None)
        except _Moved:
            return None  # written meanwhile: the next search lists the scope again
    with _lock:
        _kept[key] = (listed.version, texts, count)
        _kept.move_to_end(key)
        while sum(len(t.joined) for _, t, _ in _kept.values() if t) > KEPT_CHARS and len(_kept) > 1:
            _kept.popitem(last=False)
    return texts


class _Moved(Exception):
    """A row was written between the listing and the reading of its text."""


def _bring_up_to_date(backend, cursor, listed: listing.Listed, before: Texts | None) -> Texts | None:
    """``listed``'s texts: those of ``before`` whose stamp stands, the others read (None: too large to keep;
    ``_Moved``: written since it was listed). Whole arrays at a time: a write to one fact must not make the
    next search rebuild 20,000 rows one by one."""
    order = np.argsort(listed.ids, kind="stable")
    ids, stamps = listed.ids[order], listed.stamps[order]
    count = ids.shape[0]
    kinds, fields, texts = (np.empty(count, dtype=object) for _ in range(3))
    records = np.zeros(count, dtype=np.int64)
    kept = np.zeros(count, dtype=bool)
    if before is not None:
        at = np.minimum(np.searchsorted(before.ids, ids), max(before.ids.shape[0] - 1, 0))
        kept = (before.ids[at] == ids) & (before.stamps[at] == stamps) if before.ids.shape[0] else kept
        old, named = at[kept], np.array(before.names, dtype=object)
        kinds[kept], fields[kept] = named[before.pairs[old] >> RECORD_BITS], named[before.fields[old]]
        records[kept], texts[kept] = before.pairs[old] & RECORD_MASK, before.texts[old]
    wanted = ids[~kept]
    if wanted.shape[0]:  # one statement, however many: a search's statements do not grow with the person's rows
        cursor.execute(f"SELECT p.id, {backend.stamp_sql}, p.resource_type, p.record_id, p.field, p.text"
                       f" FROM {backend.table} p WHERE p.id = ANY(%s::bigint[])", [wanted.tolist()])
        read = cursor.fetchall()
        if len(read) != wanted.shape[0]:
            raise _Moved  # gone since it was listed
        for row_id, at_stamp, kind, record_id, field, text in read:
            place = int(np.searchsorted(ids, row_id))
            if stamp(at_stamp) != int(stamps[place]):
                raise _Moved
            kinds[place], records[place], fields[place], texts[place] = kind, record_id, field, text
    lengths = np.fromiter(map(len, texts), dtype=np.int64, count=count)
    if int(lengths.sum()) > MAX_CHARS or (count and (int(records.max()) >> RECORD_BITS or int(records.min()) < 0)):
        return None  # too large to keep, or a record id the pair's int64 cannot hold
    names = tuple(sorted(set(kinds.tolist()) | set(fields.tolist())))
    code = {name: at for at, name in enumerate(names)}.__getitem__
    kind_codes = np.fromiter(map(code, kinds), dtype=np.int64, count=count)
    return Texts(ids=ids, stamps=stamps, names=names, pairs=(kind_codes << RECORD_BITS) | records,
                 fields=np.fromiter(map(code, fields), dtype=np.int64, count=count), texts=texts,
                 lengths=lengths, starts=np.cumsum(lengths + 1) - (lengths + 1), joined=SEPARATOR.join(texts))


def forget() -> None:
    """Drop every kept text (a restored database reuses row ids and times, as test rollbacks do)."""
    with _lock:
        _kept.clear()
