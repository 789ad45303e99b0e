"""Strict parsing of requests (SPEC R-3): each refusal names its code and the JSON Pointer at fault."""

import pytest

from apps.retrieval.layer import LayerError, handle
from apps.retrieval.layer.parsing import loads
from tests.retrieval.layer.builders import access

pytestmark = pytest.mark.django_db

CASES = [
    # (operation, raw body, code, pointer)
    ("list", b'{"resource": "todo", "resource": "contact"}', "duplicate_key", "/resource"),
    ("list", b'{"resource": "todo", "filters": {"status": "open", "status": "done"}}', "duplicate_key",
     "/filters/status"),
    ("search", b'{"query": "x", "extra": 1}', "unknown_key", "/extra"),
    ("list", b'{"resource": "todo", "filters": {"priority": "high"}}', "unknown_filter", "/filters/priority"),
    ("list", b'{"resource": "todo", "filters": {"a/b": 1}}', "unknown_filter", "/filters/a~1b"),
    ("search", b'{"query": "x", "resource": null}', "null_not_allowed", "/resource"),
    ("list", b'{"resource": "todo", "filters": {"status": null}}', "null_not_allowed", "/filters/status"),
    ("list", b'{"resource": "todo", "cursor": null}', "null_not_allowed", "/cursor"),
    ("list", b'{"resource": "todo", "filters": {"due_before": "2026-06-01"}}', "invalid_timestamp",
     "/filters/due_before"),
    ("list", b'{"resource": "todo", "filters": {"due_before": "2026-06-01T09:00:00"}}', "invalid_timestamp",
     "/filters/due_before"),
    ("list", b'{"resource": "todo", "filters": {"due_before": "2026-02-30T09:00:00Z"}}', "invalid_timestamp",
     "/filters/due_before"),
    ("list", b'{"resource": "todo", "filters": {"due_before": 1717232400}}', "invalid_type", "/filters/due_before"),
    ("list", b'{"resource": "todo", "filters": {"status": "someday"}}', "invalid_value", "/filters/status"),
    ("list", b'{"resource": "digest", "filters": {"starts_on_or_after": "2026-13-01"}}', "invalid_timestamp",
     "/filters/starts_on_or_after"),
    ("list", b'{"resource": "recipe"}', "unknown_resource", "/resource"),
    ("list", b'{"filters": {}}', "missing_key", "/resource"),
    ("search", b'{}', "missing_key", "/query"),
    ("search", b'{"query": "   "}', "invalid_value", "/query"),
    ("search", b'{"query": "x", "top_k": 0}', "invalid_value", "/top_k"),
    ("search", b'{"query": "x", "top_k": 5.0}', "invalid_type", "/top_k"),
    ("search", b'{"query": "x", "top_k": true}', "invalid_type", "/top_k"),
    ("search", b'{"query": "' + b"x" * 201 + b'"}', "invalid_value", "/query"),
    ("read", b'{"ref": "todo:01"}', "invalid_ref", "/ref"),
    ("read", b'{"ref": "todo"}', "invalid_ref", "/ref"),
    # SPEC R-3: a ref is exactly '<type>:<id>', nothing after it (a regular expression's "$" would
    # let a trailing line break through).
    ("read", b'{"ref": "todo:1\\n"}', "invalid_ref", "/ref"),
    ("read", b'{"ref": "todo:1 "}', "invalid_ref", "/ref"),
    ("read", b'{"ref": 12}', "invalid_type", "/ref"),
    ("read", b'{"ref": "recipe:1"}', "unknown_resource", "/ref"),
    ("read", b'[]', "invalid_type", ""),
    ("read", b'{"ref": "todo:1",}', "malformed_json", ""),
    ("read", b'{"ref": NaN}', "malformed_json", ""),
    ("read", b'\xff\xfe', "malformed_json", ""),
    ("search", b'{"query": "x", "top_k": 3, "top_k": 3}', "duplicate_key", "/top_k"),
    # A well-formed timestamp whose instant falls outside years 1 to 9999 once in UTC: no database column
    # can hold it, so it is refused here rather than overflowing in the database adapter.
    ("list", b'{"resource": "todo", "filters": {"due_before": "0001-01-01T00:00:00+01:00"}}', "invalid_timestamp",
     "/filters/due_before"),
    ("list", b'{"resource": "todo", "filters": {"due_after": "9999-12-31T23:59:59-01:00"}}', "invalid_timestamp",
     "/filters/due_after"),
    # Text JSON can carry but no database stores (a lone surrogate, a NUL): refused, never a server error.
    ("search", b'{"query": "\\ud800"}', "invalid_value", "/query"),
    ("search", b'{"query": "a\\u0000"}', "invalid_value", "/query"),
    ("list", b'{"resource": "contact", "filters": {"relation": "\\udfff"}}', "invalid_value", "/filters/relation"),
    ("list", b'{"resource": "contact", "filters": {"relation": "a\\u0000"}}', "invalid_value",
     "/filters/relation"),
    ("list", b'{"resource": "todo", "cursor": "\\u0000"}', "invalid_value", "/cursor"),
]


@pytest.mark.parametrize(("operation", "raw", "code", "pointer"), CASES)
def test_bad_requests_are_refused_precisely(user, operation, raw, code, pointer):  # SPEC R-3
    with pytest.raises(LayerError) as refused:
        handle(access(user), operation, loads(raw))
    assert (refused.value.code, refused.value.pointer) == (code, pointer)


def test_timestamps_at_the_edges_of_the_representable_range_pass(user):  # SPEC R-3
    for moment in ("0001-01-01T00:00:00Z", "0001-01-01T00:00:00-01:00", "9999-12-31T23:59:59.999999Z",
                   "9999-12-31T23:59:59+01:00"):
        answer = handle(access(user), "list", {"resource": "todo", "filters": {"due_before": moment}})
        assert answer["items"] == []


def test_a_good_request_passes(user):  # SPEC R-3
    answer = handle(access(user), "list", loads(b'{"resource": "todo", "filters": {"status": "open", '
                                                b'"due_before": "2026-06-01T09:00:00.5+08:00"}}'))
    assert answer["items"] == []
