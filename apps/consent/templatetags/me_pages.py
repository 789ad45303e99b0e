"""Small presentation helpers for the /me/ pages."""

from __future__ import annotations

import functools
import html
from datetime import UTC

from django import forms, template
from django.urls import get_script_prefix, get_urlconf, reverse
from django.utils import timezone
from django.utils.html import format_html
from django.utils.safestring import mark_safe
from django.utils.translation import gettext as _

from apps.common.destinations import registered_destinations
from apps.common.i18n import once_per_catalog
from apps.common.text import shown_name
from apps.consent import scopes as scope_rules
from apps.memory.models import Category

register = template.Library()


@register.simple_tag
def when(moment):
    """A moment in UTC, machine-readable; static/js/me.js may show it in local time."""
    if moment is None:
        return ""
    moment = moment.astimezone(UTC) if timezone.is_aware(moment) else moment
    # Digits, dashes, colons and a plus sign only: nothing to escape.
    return mark_safe(f'<time datetime="{moment.isoformat()}">{moment.strftime("%Y-%m-%d %H:%M")} UTC</time>')


@once_per_catalog
def _category_names() -> dict[str, str]:
    return {code: str(label) for code, label in Category.choices}


@register.filter
def category_name(code: str):
    """The translated display name of a category code (SPEC D-2), translated once per language."""
    return _category_names().get(code, code)


@once_per_catalog
def _version_format() -> str:
    return _("version %(version)s")


@register.filter
def version_words(number) -> str:
    """"version 3" in the active language: long lists show one per row, so it is translated once per language."""
    return _version_format() % {"version": number}


@register.filter
def scope_words(name: str):
    """A scope in plain words (SPEC A-7)."""
    return scope_rules.DESCRIPTIONS.get(name, name)


@register.filter
def redirect_host(application) -> str:
    """Every host the assistant may send people back to, not the first alone (SPEC A-7)."""
    return ", ".join(registered_destinations(application.redirect_uris))


@register.filter
def assistant_name(application) -> str:
    """The assistant's self-chosen name as plain text, without direction controls (SPEC A-7)."""
    return shown_name(application.name) or _("Unnamed assistant")


@register.filter
def isolated(text):
    """Text someone else wrote, in a ``<bdi>``: its direction never spills into the sentence around it."""
    return format_html("<bdi>{}</bdi>", text)


_ROW_ID = 987654321  # stands for a row's id while an address is reversed once
_ROW_URLS: dict[tuple, tuple[str, str]] = {}


@register.simple_tag
def row_url(name: str, pk) -> str:
    """``{% url name pk %}`` for the rows of a long list: reversed once per URL prefix, then filled in.

    Each ``reverse`` walks the URL resolver; a page at real size has a few per row (SPEC W-6).
    """
    key = (name, get_script_prefix(), get_urlconf())
    if key not in _ROW_URLS:
        head, _row, tail = reverse(name, args=[_ROW_ID]).partition(str(_ROW_ID))
        _ROW_URLS[key] = (head, tail)
    head, tail = _ROW_URLS[key]
    return f"{head}{int(pk)}{tail}"


@register.simple_tag(takes_context=True)
def page_link(context, name: str, number, anchor: str = "", keep_first: bool = False) -> str:
    """The current page's address with ``name=number`` (the other filters and page numbers kept).

    Page 1 is left out of the address unless ``keep_first``: for a part shown only when its parameter is there."""
    query = context["request"].GET.copy()
    query.pop(name, None)
    if number not in (None, "") and (keep_first or number not in (1, "1")):
        query[name] = number
    encoded = query.urlencode()
    return (f"?{encoded}" if encoded else "?") + (f"#{anchor}" if anchor else "")


def _text(value) -> str:
    """``value`` as HTML text: escaped unless already safe (what ``conditional_escape`` does, without its wrappers)."""
    return value.__html__() if hasattr(value, "__html__") else html.escape(str(value))


def _attrs(attrs: dict) -> str:
    """Django's ``flatatt``, written directly: valued attributes sorted, then the boolean ones sorted."""
    valued = "".join(f' {name}="{_text(value)}"' for name, value in sorted(attrs.items())
                     if value is not None and not isinstance(value, bool))
    return valued + "".join(f" {name}" for name, value in sorted(attrs.items()) if value is True)


@functools.lru_cache(maxsize=128)
def _option_tags(choices: tuple[tuple[object, object], ...]) -> tuple[tuple[str, str, str], ...]:
    """Each choice as (its value as text, ``<option value="…"``, ``>label</option>``), escaped once per set of
    choices: the category select of every edit form on a page holds the same ones."""
    return tuple((str(code), f'<option value="{_text(code)}"', f">{_text(label)}</option>") for code, label in choices)


@register.simple_tag
def control(field):
    """A form field's input, the HTML Django's widget templates write, without their cost per field (SPEC W-6).

    Covers select, textarea, checkbox and the other inputs, joined from escaped text."""
    widget = field.field.widget
    attrs = field.build_widget_attrs(dict(widget.attrs))
    if field.auto_id and "id" not in attrs:
        attrs["id"] = field.auto_id
    if field.errors:
        attrs["aria-invalid"] = "true"
    value = field.value()
    name = _text(field.html_name)
    if isinstance(widget, forms.Select):
        chosen = {str(v) for v in value} if isinstance(value, (list, tuple)) else {"" if value is None else str(value)}
        options = "".join(f'{head}{" selected" if value in chosen else ""}{tail}'
                          for value, head, tail in _option_tags(tuple(field.field.choices)))
        return mark_safe(f'<select name="{name}"{_attrs(attrs)}>{options}</select>')
    if isinstance(widget, forms.Textarea):
        text = widget.format_value(value) or ""
        return mark_safe(f'<textarea name="{name}"{_attrs(attrs)}>\n{_text(text)}</textarea>')
    if isinstance(widget, forms.CheckboxInput):
        if widget.check_test(value):
            attrs["checked"] = True
        return mark_safe(f'<input type="checkbox" name="{name}"{_attrs(attrs)}>')
    shown = widget.format_value(value) if widget.input_type != "password" else None
    shown = "" if shown is None else f' value="{_text(shown)}"'  # right after the name, as Django's
    return mark_safe(f'<input type="{_text(widget.input_type)}" name="{name}"{shown}{_attrs(attrs)}>')


@register.simple_tag
def fields(form, skip: str = ""):
    """The form's visible fields, each as the pages mark it up: label, control, errors (SPEC W-6).

    One pass in Python: a page holds an edit form per fact and per suggestion, and walking each
    ``BoundField`` from the template was most of such a page's time. ``skip``: a field written apart."""
    rows = []
    for field in form.visible_fields():
        if field.name == skip:
            continue
        errors = field.errors
        check = getattr(field.field.widget, "input_type", "") == "checkbox"
        label = f'<label for="{_text(field.id_for_label)}">{_text(field.label)}</label>'
        parts = (control(field), " ", label) if check else (label, "\n", control(field))
        rows.append(
            f'<div class="field{" has-error" if errors else ""}{" field-check" if check else ""}">'
            + "".join(parts) + "".join(f'<p class="field-error">{_text(error)}</p>' for error in errors) + "</div>"
        )
    return mark_safe("\n".join(rows))
