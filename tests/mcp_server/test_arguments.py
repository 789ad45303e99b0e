"""invalid_argument names the field and the limit (SPEC M-2, M-8)."""

from __future__ import annotations

import pytest

from apps.mcp_server import schemas
from apps.mcp_server.arguments import integral_numbers, validate_arguments
from apps.mcp_server.errors import ToolError

VERSION = "a" * 64


@pytest.mark.parametrize(
    "arguments,expected",
    [
        ({"offset": 0, "version": VERSION, "extra": 1}, "unknown field 'extra'; accepted fields: offset, version"),
        ({"version": VERSION}, "missing required field 'offset'"),
        ({"offset": "3", "version": VERSION}, "field 'offset' must be of type integer"),
        ({"offset": True, "version": VERSION}, "field 'offset' must be of type integer"),
        ({"offset": -1, "version": VERSION}, "field 'offset' is too small: at least 0"),
        ({"offset": 100_001, "version": VERSION}, "field 'offset' is too large: at most 100000"),
        ({"offset": 0, "version": "abc"}, "field 'version' has the wrong format (must match ^[0-9a-f]{64}$)"),
        ({"offset": 0, "version": VERSION, "x" * 500: 1}, "unknown field '" + "x" * 40 + "…'"),
    ],
)
def test_messages_name_field_and_limit(arguments, expected):
    with pytest.raises(ToolError) as refused:
        validate_arguments(schemas.PAGE_ARGUMENTS, arguments)
    assert refused.value.code == "invalid_argument"
    assert refused.value.message.startswith(expected)


def test_valid_arguments_pass():
    validate_arguments(schemas.PAGE_ARGUMENTS, {"offset": 0, "version": VERSION})
    validate_arguments(schemas.NO_ARGUMENTS, {})
    with pytest.raises(ToolError):
        validate_arguments(schemas.NO_ARGUMENTS, {"anything": 1})


# SPEC M-8: JSON Schema counts 2.0 as an integer; the tool gets the integer 2, not a float it cannot slice by.
def test_a_number_without_a_fraction_is_taken_as_the_integer():
    taken = integral_numbers({"offset": 2.0, "filters": {"n": [1.0, 1.5]}, "version": VERSION})
    assert taken == {"offset": 2, "filters": {"n": [1, 1.5]}, "version": VERSION}
    assert type(taken["offset"]) is int and type(taken["filters"]["n"][0]) is int
    validate_arguments(schemas.PAGE_ARGUMENTS, integral_numbers({"offset": 2.0, "version": VERSION}))
    with pytest.raises(ToolError):
        validate_arguments(schemas.PAGE_ARGUMENTS, integral_numbers({"offset": 2.5, "version": VERSION}))
