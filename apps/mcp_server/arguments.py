"""Tool arguments checked against the catalog's input schema (SPEC M-2, M-8).

Design notes: docs/design.md.
"""

from __future__ import annotations

from typing import Any

from jsonschema import Draft202012Validator
from jsonschema.exceptions import ValidationError, best_match

from apps.common.errors import INVALID_ARGUMENT
from apps.common.text import unstorable_text_reason
from apps.mcp_server.errors import ToolError

# Compiled once per schema object; schemas are module constants of the catalog.
_compiled: dict[int, Draft202012Validator] = {}


def _validator(schema: dict[str, Any]) -> Draft202012Validator:
    validator = _compiled.get(id(schema))
    if validator is None or validator.schema is not schema:
        validator = _compiled[id(schema)] = Draft202012Validator(schema)
    return validator


def integral_numbers(value: Any) -> Any:
    """``value`` with every number without a fraction as the integer it is (``2.0`` is the call ``2``, SPEC M-9)."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, dict):
        return {key: integral_numbers(item) for key, item in value.items()}
    if isinstance(value, list):
        return [integral_numbers(item) for item in value]
    return value


_DIGITS_MAX = 100  # longer strings are refused by the schema anyway; int() of thousands of digits raises


def canonical_arguments(schema: dict[str, Any], arguments: Any) -> Any:
    """``arguments`` as the repeated-failure guard compares them (SPEC M-9): one form per meaning.

    Defaults filled in and digit strings of integer properties as integers: ``"012"`` and ``12`` are one call.
    """
    if not isinstance(arguments, dict):
        return arguments
    properties = schema.get("properties", {})
    canonical = {name: spec["default"] for name, spec in properties.items()
                 if isinstance(spec, dict) and "default" in spec}
    for name, value in arguments.items():
        spec = properties.get(name)
        types = spec.get("type") if isinstance(spec, dict) else None
        if (isinstance(types, list) and {"string", "integer"} <= set(types) and isinstance(value, str)
                and value.isascii() and value.isdigit() and len(value) <= _DIGITS_MAX):
            value = int(value)
        canonical[name] = value
    return canonical


def validate_arguments(schema: dict[str, Any], arguments: dict[str, Any]) -> None:
    """Raise ``ToolError(invalid_argument)`` unless ``arguments`` satisfy ``schema``."""
    error = best_match(_validator(schema).iter_errors(arguments))
    if error is not None:
        raise ToolError(INVALID_ARGUMENT, describe(error))
    _refuse_unstorable_text(arguments, "")


def _refuse_unstorable_text(value: Any, path: str) -> None:
    """Refuse, as ``invalid_argument``, any string no database can store (``apps.common.text``)."""
    if isinstance(value, str):
        reason = unstorable_text_reason(value)
        if reason is not None:
            raise ToolError(INVALID_ARGUMENT, f"field {_short(path or 'arguments')} {reason}")
    elif isinstance(value, dict):
        for key, item in value.items():
            _refuse_unstorable_text(item, f"{path}.{key}" if path else str(key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            _refuse_unstorable_text(item, f"{path}.{index}" if path else str(index))


def _short(name: object) -> str:
    """Field names come from the caller: quote them, bounded."""
    text = str(name)
    return repr(text if len(text) <= 40 else text[:40] + "…")


def _field(error: ValidationError) -> str:
    return _short(".".join(str(part) for part in error.absolute_path) or "arguments")


def describe(error: ValidationError) -> str:
    """A one-line message naming the field and the rule (SPEC M-8)."""
    name, rule, limit = _field(error), error.validator, error.validator_value
    known = error.schema.get("properties", {}) if isinstance(error.schema, dict) else {}
    allowed = ", ".join(sorted(known)) or "none"
    match rule:
        case "additionalProperties":
            extra = sorted(set(error.instance) - set(known))
            shown = ", ".join(map(_short, extra[:5])) + (f" and {len(extra) - 5} more" if len(extra) > 5 else "")
            return f"unknown field {shown}; accepted fields: {allowed}"
        case "required":
            missing = [field for field in limit if field not in error.instance]
            return f"missing required field {', '.join(map(_short, missing))}"
        case "type":
            wanted = " or ".join(limit) if isinstance(limit, list) else limit
            return f"field {name} must be of type {wanted}"
        case "maxLength":
            return f"field {name} is too long: at most {limit} characters"
        case "minLength":
            return f"field {name} is too short: at least {limit} character{'s' if limit != 1 else ''}"
        case "maximum":
            return f"field {name} is too large: at most {limit}"
        case "minimum":
            return f"field {name} is too small: at least {limit}"
        case "enum":
            return f"field {name} must be one of: {', '.join(map(str, limit))}"
        case "pattern":
            hint = error.schema.get("description", "") if isinstance(error.schema, dict) else ""
            return f"field {name} has the wrong format (must match {limit})" + (f": {hint}" if hint else "")
        case _:
            return f"field {name} is invalid: {error.message[:200]}"
