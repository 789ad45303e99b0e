"""Reading what another assistant remembers (SPEC P-10): a pasted list or an export, into items.

ChatGPT answers "what do you remember about me" with a numbered or bulleted list under a line such as
"Here's what I remember about you:", often grouped under bold headings; Claude's memory reads as headed
sections ("Work context", "Personal context") of short statements, and its export prompt lists entries as
"[date] - memory"; Gemini's saved info is a list of first-person statements ("I'm vegetarian"). Any of them
may be in Chinese (用户…, 你…). This module turns such text, or a JSON export, into items: what each says,
under which heading, with which date. It decides nothing about facts (``services.imports`` does).
Design notes: docs/pages.md ("Bringing memories in").
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from apps.common.errors import CodedError

IMPORT_MAX_BYTES = 1_000_000  # a list of a thousand memories is some 300 kB
IMPORT_MAX_ITEMS = 1_000

# Codes of an import refused as a whole (nothing is written).
EMPTY, TOO_LARGE, NOT_TEXT, HTML, BAD_JSON, NO_ITEMS, TOO_MANY = (
    "import_empty", "import_too_large", "import_not_text", "import_html", "import_bad_json", "import_no_items",
    "import_too_many",
)


class ImportRefused(CodedError):
    """An import refused as a whole, with the reason's code."""


@dataclass(frozen=True)
class ListItem:
    """One memory as the list says it: its text (marker, date and bold removed), heading, date, position."""

    text: str
    heading: str = ""
    date: str = ""
    number: int = 0  # 1-based, in the order of the list


# --- The whole input ---------------------------------------------------------------------------------

_TAG = re.compile(r"</?[a-zA-Z][a-zA-Z0-9]*(?:\s[^<>]*)?/?>")
_HTML_START = re.compile(r"^\s*(?:<!doctype\s+html|<html\b|<head\b|<body\b)", re.IGNORECASE)


def decode(data: bytes) -> str:
    """The input as text, or ``ImportRefused``: empty, too large, not text (binary), HTML."""
    if len(data) > IMPORT_MAX_BYTES:
        raise ImportRefused(TOO_LARGE, f"the import is {len(data):,} bytes; the limit is {IMPORT_MAX_BYTES:,}")
    if not data.strip():
        raise ImportRefused(EMPTY, "there is nothing to import")
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        try:
            text = data.decode("utf-16")
        except UnicodeDecodeError:
            raise ImportRefused(NOT_TEXT, "the file is not readable text") from None
    else:
        if b"\x00" in data:
            raise ImportRefused(NOT_TEXT, "the file is not text (it holds binary data)")
        try:
            text = data.decode("utf-8-sig")
        except UnicodeDecodeError:
            raise ImportRefused(NOT_TEXT, "the file is not UTF-8 text") from None
    controls = sum(1 for char in text if ord(char) < 32 and char not in "\t\n\r")
    if controls > max(2, len(text) // 100) or "\ufffd" in text or any(0xD800 <= ord(c) <= 0xDFFF for c in text):
        raise ImportRefused(NOT_TEXT, "the file is not text (it holds binary data)")
    if _HTML_START.search(text) or len(_TAG.findall(text)) >= 3:
        raise ImportRefused(HTML, "this is a web page's source (HTML); paste the list as text instead")
    if not text.strip():
        raise ImportRefused(EMPTY, "there is nothing to import")
    return text


def read_items(data: bytes) -> list[ListItem]:
    """Every memory of a paste or an export (JSON, Markdown or text), in order. ``ImportRefused`` if none."""
    text = decode(data)
    stripped = text.strip()
    if stripped[0] in "[{":
        items = _json_items(stripped)
    else:
        items = _text_items(text)
    if not items:
        raise ImportRefused(NO_ITEMS, "no memories were found: paste a list, one memory per line or item")
    if len(items) > IMPORT_MAX_ITEMS:
        raise ImportRefused(TOO_MANY, f"{len(items)} memories at once; at most {IMPORT_MAX_ITEMS} per import")
    return [ListItem(item.text, item.heading, item.date, number) for number, item in enumerate(items, 1)]


# --- JSON exports ------------------------------------------------------------------------------------

_TEXT_KEYS = ("content", "text", "memory", "value", "fact", "statement")
_LIST_KEYS = ("memories", "memory", "saved_info", "items", "facts", "entries", "data")
_DATE_KEYS = ("date", "created_at", "created", "updated_at", "saved_at", "timestamp")
_HEADING_KEYS = ("category", "section", "heading", "label", "key", "title")


def _json_items(text: str) -> list[ListItem]:
    try:
        data = json.loads(text)
    except ValueError as error:
        raise ImportRefused(BAD_JSON, f"the JSON could not be read (line {getattr(error, 'lineno', '?')})") from None
    if isinstance(data, dict):
        data = next((data[key] for key in _LIST_KEYS if isinstance(data.get(key), list)), None)
    if not isinstance(data, list):
        raise ImportRefused(BAD_JSON, "the JSON holds no list of memories (expected a list, or one under "
                                      "\"memories\")")
    items = []
    for entry in data:
        if isinstance(entry, str):
            items.extend(_text_items(entry))
        elif isinstance(entry, dict):
            body = next((entry[key] for key in _TEXT_KEYS if isinstance(entry.get(key), str)), "")
            heading = next((entry[key] for key in _HEADING_KEYS if isinstance(entry.get(key), str)), "")
            date = next((str(entry[key]) for key in _DATE_KEYS if isinstance(entry.get(key), (str, int))), "")
            if heading and body and entry.get("label") == heading:  # {"label": …, "value": …}: a fact as is
                body, heading = f"{heading}: {body}", ""
            items.extend(ListItem(item.text, heading or item.heading, item.date or _date(date))
                         for item in _text_items(body))
    return items


# --- Text and Markdown -------------------------------------------------------------------------------

_MARKER = re.compile(r"^\s*(?:[-*•·+]|\d{1,4}[.)、]|[（(]\d{1,4}[)）]|[a-z][.)])\s+|^\s*\d{1,4}、")
_MD_HEADING = re.compile(r"^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$")
_BOLD_HEADING = re.compile(r"^\s*(?:\*\*|__)(.+?)(?:\*\*|__)\s*[:：]?\s*$")
_EMPHASIS = re.compile(r"(\*\*|__|`)")
_ISO = r"\d{4}-\d{1,2}-\d{1,2}"
_ZH_DATE = r"\d{4}年\d{1,2}月\d{1,2}日"
_EN_DATE = r"(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec)[a-z]*\.? \d{1,2},? \d{4}"
_ANY_DATE = f"(?:{_ISO}|{_ZH_DATE}|{_EN_DATE})"
_LEADING_DATE = re.compile(rf"^\s*[\[(（]?(?:saved |added |noted )?({_ANY_DATE})[\])）]?\s*[-–—:：]?\s*", re.IGNORECASE)
_LEADING_UNDATED = re.compile(r"^\s*\[(?:unknown|undated|no date|n/a|未知|无日期)\]\s*[-–—:：]?\s*", re.IGNORECASE)
_TRAILING_DATE = re.compile(
    rf"\s*[\[(（—–-]\s*(?:saved|added|noted|保存于|记录于)?\s*(?:on )?({_ANY_DATE})[\])）]?\s*$", re.IGNORECASE)
# Lines around the list that talk to the person rather than about them.
_CHATTER = re.compile(
    r"(?:here(?:'s| is| are) (?:what|everything|a (?:summary|list))|i remember|i know about you|"
    r"what i (?:remember|know|have saved)|let me know|anything else|want me to (?:forget|update|remove)|"
    r"feel free|i can (?:update|forget)|^\W*saved (?:memories|info)\W*$|i don't have any|"
    r"以下是|我记得|我所记得|关于你的(?:信息|记忆)|如果(?:你|您)(?:需要|想)|还有什么|随时告诉我|需要我(?:更新|删除|忘记))",
    re.IGNORECASE)
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z\u3400-\u9fff])|(?<=[。！？])(?=\S)")


def _date(text: str) -> str:
    return text.strip()[:40]


def _is_heading(line: str, following_marked: bool, has_markers: bool) -> str | None:
    if match := _MD_HEADING.match(line):
        return match.group(1).strip(" *_:：")
    if match := _BOLD_HEADING.match(line):
        return match.group(1).strip(" :：")
    bare = line.strip()
    if _CHATTER.search(bare) or _MARKER.match(line) or len(bare) > 60:
        return None
    if bare.endswith((":", "：")) and (following_marked or not has_markers):
        return bare.rstrip(":：").strip(" *_")
    if following_marked and not re.search(r"[.。!！?？,，;；]", bare):
        return bare.strip(" *_")  # "Saved info", "Preferences" above a list
    return None


def _clean(text: str) -> tuple[str, str]:
    """An item's text without its date and emphasis, and the date."""
    date = ""
    text = _LEADING_UNDATED.sub("", text)
    if match := _LEADING_DATE.match(text):
        date, text = match.group(1), text[match.end():]
    if match := _TRAILING_DATE.search(text):
        date, text = date or match.group(1), text[:match.start()]
    text = _EMPHASIS.sub("", text)
    return " ".join(text.split()).strip(" -–—"), _date(date)


def _text_items(text: str) -> list[ListItem]:
    lines = [line.rstrip() for line in text.replace("\r\n", "\n").replace("\r", "\n").split("\n")]
    has_markers = any(_MARKER.match(line) for line in lines)
    filled = [index for index, line in enumerate(lines) if line.strip()]
    following = dict(zip(filled, [*(lines[index] for index in filled[1:]), ""], strict=True))
    # The assistant talks to the person around the list: any unmarked line of a list, only the first or last
    # line of prose (where "I remember …" may be a memory of its own).
    edges = {filled[0], filled[-1]} if filled else set()
    items: list[ListItem] = []
    heading = ""
    for index in filled:
        line = lines[index]
        if (found := _is_heading(line, bool(_MARKER.match(following[index])), has_markers)) is not None:
            heading = found
            continue
        marked = _MARKER.match(line)
        if not marked and (has_markers or index in edges) and _CHATTER.search(line):
            continue  # "Here's what I remember about you:", "Let me know if …"
        body = line[marked.end():] if marked else line
        if not marked and has_markers and items and line.startswith((" ", "\t")):
            # A list item's continuation line.
            last = items.pop()
            body, date = _clean(f"{last.text} {body}")
            items.append(ListItem(body, last.heading, last.date or date))
            continue
        # Without list markers, prose: one item per sentence.
        pieces = [body] if marked else [piece for piece in _SENTENCE_END.split(body) if piece.strip()]
        for piece in pieces:
            cleaned, date = _clean(piece)
            if cleaned:
                items.append(ListItem(cleaned, heading, date))
    return items
