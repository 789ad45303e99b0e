"""Small presentation helpers for the /me/ pages."""

from __future__ import annotations

from datetime import UTC

from django import forms, template
from django.forms.utils import flatatt
from django.utils import timezone
from django.utils.html import format_html, format_html_join
from django.utils.safestring import mark_safe
from django.utils.translation import gettext as _

from apps.common.destinations import registered_destinations
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
    return format_html('<time datetime="{}">{} UTC</time>', moment.isoformat(), moment.strftime("%Y-%m-%d %H:%M"))


@register.filter
def category_name(code: str):
    """The translated display name of a category code (SPEC D-2)."""
    return Category(code).label if code in Category.values else code


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


@register.simple_tag(takes_context=True)
def page_link(context, name: str, number, anchor: str = "") -> str:
    """The current page's address with ``name=number`` (the other filters and page numbers kept)."""
    query = context["request"].GET.copy()
    query.pop(name, None)
    if number not in (None, "", 1):
        query[name] = number
    encoded = query.urlencode()
    return (f"?{encoded}" if encoded else "?") + (f"#{anchor}" if anchor else "")


@register.simple_tag
def control(field):
    """A form field's input, the HTML Django's widget templates write, without their cost per field (SPEC W-6).

    Covers the widgets the /me/ pages use: select, textarea, checkbox, inputs.
    """
    widget = field.field.widget
    attrs = field.build_widget_attrs(dict(widget.attrs))
    if field.auto_id and "id" not in attrs:
        attrs["id"] = field.auto_id
    if field.errors:
        attrs["aria-invalid"] = "true"
    value = field.value()
    if isinstance(widget, forms.Select):
        chosen = {str(v) for v in value} if isinstance(value, (list, tuple)) else {"" if value is None else str(value)}
        options = format_html_join("", '<option value="{}"{}>{}</option>', (
            (code, mark_safe(" selected") if str(code) in chosen else "", label)
            for code, label in field.field.choices))
        return format_html('<select name="{}"{}>{}</select>', field.html_name, flatatt(attrs), options)
    if isinstance(widget, forms.Textarea):
        text = widget.format_value(value) or ""
        return format_html('<textarea name="{}"{}>\n{}</textarea>', field.html_name, flatatt(attrs), text)
    if isinstance(widget, forms.CheckboxInput):
        if widget.check_test(value):
            attrs["checked"] = True
        return format_html('<input type="checkbox" name="{}"{}>', field.html_name, flatatt(attrs))
    shown = widget.format_value(value) if widget.input_type != "password" else None
    shown = "" if shown is None else format_html(' value="{}"', shown)  # right after the name, as Django's
    return format_html('<input type="{}" name="{}"{}{}>', widget.input_type, field.html_name, shown, flatatt(attrs))
