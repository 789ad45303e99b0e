"""Hypothesis strategies shared by the fuzz tests: hostile text, any JSON, values around a JSON Schema."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import strategies as st

# Characters that have broken JSON and database layers before: NUL, lone surrogates (sent escaped
# in JSON, as \ud800), BOM, bidi override, line and paragraph separators, astral and CJK characters.
SPECIAL = ["\x00", "\ud800", "\udfff", "\udbff\udc00", "\ufeff", "\u202e", "\u2028", "\u2029", "\r\n", "\n",
           "\t", "𝕏", "😀", "中", "é", "\u0301", "\\", '"', "'", "<script>", "%00", "\x7f", "\uffff"]
PIECES = st.one_of(st.characters(), st.characters(codec="utf-8"), st.characters(max_codepoint=127),
                   st.sampled_from(SPECIAL))


def texts(max_size: int) -> st.SearchStrategy[str]:
    return st.lists(PIECES, max_size=max_size).map("".join)


TEXT = texts(30)

JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**70), 2**70) | st.floats(allow_nan=False, allow_infinity=False) | TEXT,
    lambda children: st.lists(children, max_size=4) | st.dictionaries(TEXT, children, max_size=4),
    max_leaves=12,
)


def dumps(value: Any) -> str:
    """JSON as a client sends it; lone surrogates come out as escapes (\\ud800)."""
    return json.dumps(value, ensure_ascii=True, allow_nan=False)



def around(schema: dict[str, Any]) -> st.SearchStrategy:
    """Values valid for ``schema``, values just past each of its limits, and values of any other type."""
    options: list[st.SearchStrategy] = []
    if "const" in schema:
        options.append(st.just(schema["const"]))
    if "enum" in schema:
        options.append(st.sampled_from(schema["enum"]))
    kinds = schema.get("type", [])
    for kind in [kinds] if isinstance(kinds, str) else kinds:
        if kind == "string":
            low, high = schema.get("minLength", 0), schema.get("maxLength", 400)
            if "pattern" in schema:
                options.append(st.from_regex(schema["pattern"], fullmatch=True).filter(lambda s: len(s) <= 30))
            options.append(texts(min(high + 2, 80)))
            options.append(st.sampled_from([
                "", "a" * max(low - 1, 0), "a" * high, "a" * (high + 1), "中" * high, "中" * (high + 1),
                "😀" * high, "😀" * (high + 1), "line one\nline two", "x\x00y", "x\ud800y", "  ", "0" * 64,
            ]))
        elif kind == "integer":
            low, high = schema.get("minimum", -5), schema.get("maximum", 2**63)
            options.append(st.integers(low - 2, min(high, low + 50) + 2))
            options.append(st.sampled_from([low - 1, low, high, high + 1, 2**63, -(2**63), 2**64]))
            options.append(st.sampled_from([1.0, 1.5, "1", True]))
        elif kind == "object":
            options.append(arguments_for(schema))
        if schema.get("format") == "date-time":
            options.append(st.sampled_from(["2026-06-01T09:00:00Z", "2026-06-01T09:00:00+08:00", "2026-13-01T00:00Z",
                                            "2026-06-01", "9999-12-31T23:59:59Z", "0000-01-01T00:00:00Z", "now"]))
    options.append(JSON)
    return st.one_of(options)


def arguments_for(schema: dict[str, Any]) -> st.SearchStrategy:
    """Objects shaped by ``schema`` (each alternative of a ``oneOf``), with fields missing, extra or wrong."""
    if "oneOf" in schema:
        return st.one_of([arguments_for(alternative) for alternative in schema["oneOf"]])
    properties = schema.get("properties", {})
    required = set(schema.get("required", []))
    shaped = st.fixed_dictionaries(
        {name: around(sub) for name, sub in properties.items() if name in required},
        optional={name: around(sub) for name, sub in properties.items() if name not in required},
    )
    extra = st.dictionaries(st.one_of(TEXT, st.sampled_from(["arguments", "__proto__", "id", "owner"])), JSON,
                            max_size=2)
    missing = shaped.flatmap(lambda args: st.sets(st.sampled_from(sorted(args) or [""]), max_size=1).map(
        lambda drop: {k: v for k, v in args.items() if k not in drop}))
    return st.one_of(
        shaped, shaped, missing,
        st.tuples(shaped, extra).map(lambda pair: {**pair[0], **pair[1]}),
        JSON,  # not an object at all
    )
