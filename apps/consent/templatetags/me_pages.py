"""Small presentation helpers for the /me/ pages."""

from __future__ import annotations

from datetime import timezone as dt_timezone
from urllib.parse import urlsplit

from django import template
from django.utils import timezone
from django.utils.html import format_html
from django.utils.translation import gettext as _

from apps.common.text import shown_name
from apps.consent import scopes as scope_rules
from apps.memory.models import Category

register = template.Library()


@register.simple_tag
def when(moment):
    """A moment in UTC, machine-readable; static/js/me.js may show it in local time."""
    if moment is None:
        return ""
    moment = moment.astimezone(dt_timezone.utc) if timezone.is_aware(moment) else moment
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
    """The hosts the assistant may send people back to: the one thing about it we can check.

    Every registered one, not the first alone: an assistant could register a
    well-known host first and send people to another (SPEC A-7).
    """
    hosts = sorted({urlsplit(uri).netloc for uri in (application.redirect_uris or "").split()} - {""})
    return ", ".join(hosts)


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
