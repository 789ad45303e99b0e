"""Records as JSON: cut to the readable fields, and split into fragments (SPEC R-5, R-9).

Design notes: docs/design.md.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import cast

from apps.retrieval.layer import pointers
from apps.retrieval.layer.declarations import Declaration

# SPEC R-9 (home)
PAGE_BYTES = 65_536  # SPEC R-9
PREVIEW_CHARS = 280  # a ``text`` field in a list item
PREVIEW_ITEMS = 20  # an array in a list item: its first items
PREVIEW_JSON_BYTES = 1_024  # a ``json`` value in a list item: shown whole up to this size, else left out
WHOLE = ""  # ``truncated: [""]``: the record is listed by its ref alone (SPEC R-2)


# One encoder for every measure: ``json.dumps`` with options builds a new one per call.
_ENCODER = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"))
_encode_str = _ENCODER.encode


def encode(obj) -> bytes:
    """The exact bytes a response body holds (compact UTF-8 JSON; lone surrogates escaped)."""
    return _encode_str(obj).encode("utf-8", "backslashreplace")


def size(obj) -> int:
    return len(encode(obj))


def _containers(leaves) -> frozenset[str]:
    return frozenset(a for leaf in leaves for a in ("", *pointers.ancestors(leaf)))


def project(declaration: Declaration, doc: dict, leaves, *, preview: bool = False) -> tuple[dict, list[str]]:
    """The readable part of ``doc``, and (for previews) the paths shown only in part.

    A preview (SPEC R-2) cuts long text and arrays and drops large ``json`` values; ``read`` gives the whole.
    """
    cut: list[str] = []
    open_ = _containers(leaves)
    leaves = frozenset(leaves)
    left_out = object()  # a value the preview leaves out: its key is dropped

    def shorten(value, tokens: tuple):
        if isinstance(value, list) and len(value) > PREVIEW_ITEMS:
            cut.append(pointers.join(tokens))
            return value[:PREVIEW_ITEMS]
        return value

    def walk(pattern: str, value, tokens: tuple):
        kids = declaration.children[pattern]
        if not kids:
            spec = declaration.by_path[pattern]
            if not preview:
                return value
            if spec.type == "text" and isinstance(value, str) and len(value) > PREVIEW_CHARS:
                cut.append(pointers.join(tokens))
                return value[:PREVIEW_CHARS]
            if spec.type == "json" and not _small(value):
                cut.append(pointers.join(tokens))
                return left_out
            if spec.type == "array":  # an array without declared items: its items are values
                return shorten(value, tokens)
            return value
        kind = declaration.by_path[pattern].type if pattern else "object"
        if kind == "array":
            if not isinstance(value, list):
                return None
            if preview:
                value = shorten(value, tokens)
            items = (walk(kids[0], item, (*tokens, i)) for i, item in enumerate(value))
            return [None if item is left_out else item for item in items]
        if not isinstance(value, dict):
            return None
        out = {}
        for kid in kids:
            if kid not in open_ and kid not in leaves:
                continue
            if preview and not declaration.by_path[kid].in_list:
                continue
            name = pointers.split(kid)[-1]
            projected = walk(kid, value.get(name), (*tokens, name))
            if projected is not left_out:
                out[name] = projected
        return out

    return walk("", doc, ()), cut


def _small(value) -> bool:
    """Whether a ``json`` value is shown whole in a preview; measures at most what the limit allows."""
    bound = 0
    stack = [value]
    while stack:  # a lower bound first (a byte per scalar, a character per string): a 70 KB value stops early
        item = stack.pop()
        if isinstance(item, dict):
            bound += 2 + len(item)
            for key, inner in item.items():
                bound += len(key) + 2
                stack.append(inner)
        elif isinstance(item, list):
            bound += 2 + len(item)
            stack.extend(item)
        else:
            bound += len(item) + 2 if isinstance(item, str) else 1
        if bound > PREVIEW_JSON_BYTES:
            return False
    return size(value) <= PREVIEW_JSON_BYTES


def minimal(ref: str) -> dict:
    """A list item for a record whose preview cannot fit a page: its ref alone; ``read`` gives it (SPEC R-2)."""
    return {"ref": ref, "data": {}, "truncated": [WHOLE]}


@dataclass(frozen=True)
class Unit:
    tokens: tuple  # concrete path, array indexes as ints
    kind: str  # "open" | "value" | "text" | "json"
    value: object
    path: str  # ``pointers.join(tokens)``, built along the walk rather than joined anew for every unit


def units(declaration: Declaration, doc: dict, leaves, start: tuple = ()) -> Iterator[Unit]:
    """The readable units of ``doc`` in document order, from the unit at ``start`` on."""
    open_ = _containers(leaves)
    leaves = frozenset(leaves)
    # An object pattern → its children's names and the pointer steps to them (``/`` and the escaped
    # name), worked out once per call.
    names_of: dict[str, tuple[list[str], list[str]]] = {}

    def walk(pattern: str, value, tokens: tuple, path: str, seek):
        # seek: None → emit everything; () → this node is the first to emit; (…) → descend toward it.
        kids = declaration.children[pattern]
        if not kids:
            if pattern in leaves and not seek:
                kind = declaration.by_path[pattern].type
                if kind == "json":
                    yield Unit(tokens, "json", value, path)
                else:
                    yield Unit(tokens, "text" if isinstance(value, str) else "value", value, path)
            return
        if pattern not in open_:
            return
        kind = declaration.by_path[pattern].type if pattern else "object"
        shaped = isinstance(value, list) if kind == "array" else isinstance(value, dict)
        if not seek:
            if pattern:
                yield Unit(tokens, "open" if shaped else "value", ([] if kind == "array" else {}) if shaped else None,
                           path)
            seek = None
        if not shaped:
            return
        if kind == "array":
            first = seek[0] if seek else 0
            if not isinstance(first, int):
                return
            for index in range(first, len(value)):
                inner = seek[1:] if seek and index == first else None
                yield from walk(kids[0], value[index], (*tokens, index), f"{path}/{index}", inner)
            return
        if pattern not in names_of:
            names = [pointers.split(kid)[-1] for kid in kids]
            names_of[pattern] = names, ["/" + pointers.escape(name) for name in names]
        names, steps = names_of[pattern]
        begin = names.index(seek[0]) if seek and seek[0] in names else (len(names) if seek else 0)
        for position in range(begin, len(kids)):
            inner = seek[1:] if seek and position == begin else None
            yield from walk(kids[position], value.get(names[position]), (*tokens, names[position]),
                            path + steps[position], inner)

    yield from walk("", doc, (), "", tuple(start) if start else None)


def _str_bytes(text: str) -> int:
    """The bytes of ``text`` inside a JSON string (without the quotes)."""
    if text.isascii() and text.isprintable() and '"' not in text and "\\" not in text:
        return len(text)  # nothing to escape: a byte a character (paths, names, ASCII text)
    return len(_encode_str(text).encode("utf-8", "backslashreplace")) - 2


MAX_CHAR_BYTES = 6  # the most one character costs inside a JSON string (``\u0007``, a lone surrogate)


def _fit(text: str, begin: int, room: int) -> int:
    """How many characters of ``text`` from ``begin`` fit in ``room`` bytes of JSON string.

    The work is proportional to ``room``, not to the string.
    """
    rest = len(text) - begin
    if rest * MAX_CHAR_BYTES <= room:
        return rest
    low, used, high = 0, 0, min(rest, room)
    while low < high:
        mid = (low + high + 1) // 2
        extra = _str_bytes(text[begin + low:begin + mid])
        if used + extra <= room:
            low, used = mid, used + extra
        else:
            high = mid - 1
    return low


def exceeds(declaration: Declaration, doc: dict, leaves, limit: int) -> bool:
    """Whether the readable part of ``doc`` certainly takes more than ``limit`` bytes of JSON.

    A lower bound that stops past ``limit``; ``False`` means only "measure it exactly".
    """
    bound = 0
    for unit in units(declaration, doc, leaves):
        bound += 1  # a unit is at least one byte: a digit, a bracket, a quote or a comma
        if unit.kind == "text" and isinstance(unit.value, str):
            bound += len(unit.value)
        if bound > limit:
            return True
    return False


@dataclass
class Packed:
    fragments: list
    positions: list  # (tokens, offset) where each fragment starts
    next_position: tuple | None  # (tokens, offset) of the first unit not (wholly) packed
    used: int = 0  # bytes of the fragments' JSON, commas between them included (not the brackets)


_WHOLE_FRAME = len('{"path":"","value":}')


def _value_bytes(value) -> int:
    """``size(value)``, without the encoder for the common scalars."""
    if isinstance(value, str):
        return _str_bytes(value) + 2
    if value is None:
        return 4
    if value is True or value is False:
        return 4 if value else 5
    if type(value) is int:
        return len(int.__repr__(value))
    return size(value)


def _whole_bytes(path: str, value) -> int:
    """``size({"path": path, "value": value})``: the two members measured apart (compact JSON adds nothing)."""
    return _WHOLE_FRAME + _str_bytes(path) + _value_bytes(value)


def fragment_page(stream: Iterator[Unit], *, start: tuple = (), offset: int = 0, budget: int) -> Packed:
    """Pack units from ``stream`` into at most ``budget`` bytes of comma-separated fragment JSON."""
    packed = Packed([], [], None)
    used = 0
    start = tuple(start)
    for unit in stream:
        comma = 1 if packed.fragments else 0
        begin = offset if unit.tokens == start else 0
        text: str | None = None
        if unit.kind == "json":
            text = _encode_str(unit.value)
        elif unit.kind == "text":
            text = cast(str, unit.value)
        if unit.kind in ("open", "value") or (begin == 0 and unit.kind in ("text", "json")):
            path = unit.path
            cost = comma + _whole_bytes(path, unit.value)
            if used + cost <= budget:
                packed.fragments.append({"path": path, "value": unit.value})
                packed.positions.append((unit.tokens, 0))
                used += cost
                packed.used = used
                continue
            if text is None:
                packed.next_position = (unit.tokens, 0)
                return packed
        # A string that does not fit whole: as many characters as the page still holds.
        assert text is not None  # open and value units were packed or ended the page above
        frame = {"path": unit.path, "start": begin, "end": len(text), "length": len(text), "text": ""}
        if unit.kind == "json":
            frame["json"] = True
        room = budget - used - comma - size(frame)
        take = _fit(text, begin, room) if room > 0 else 0
        if take <= 0:
            packed.next_position = (unit.tokens, begin)
            return packed
        frame.update(end=begin + take, text=text[begin:begin + take])
        packed.fragments.append(frame)
        packed.positions.append((unit.tokens, begin))
        used += comma + size(frame)
        packed.used = used
        if begin + take < len(text):
            packed.next_position = (unit.tokens, begin + take)
            return packed
    return packed
