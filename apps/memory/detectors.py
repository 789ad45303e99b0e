"""Find secrets and sensitive personal data in free text (SPEC D-1, P-2).

Also SPEC C-1. Design notes: docs/design.md.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import date

NATIONAL_ID = "national_id"
BANK_CARD = "bank_card"
PHONE_NUMBER = "phone_number"
PASSWORD = "password"
API_KEY = "api_key"
LICENSE_KEY = "license_key"
PRIVATE_KEY = "private_key"
TOKEN = "token"
VERIFICATION_CODE = "verification_code"

SECRET_KINDS = frozenset({PASSWORD, API_KEY, LICENSE_KEY, PRIVATE_KEY, TOKEN, VERIFICATION_CODE, BANK_CARD})
PERSONAL_KINDS = frozenset({NATIONAL_ID, PHONE_NUMBER})


@dataclass(frozen=True, slots=True)
class Finding:
    """Where a kind of secret or personal data sits in the text: ``text[start:end]``."""

    kind: str
    start: int
    end: int

    @property
    def is_secret(self) -> bool:
        return self.kind in SECRET_KINDS


def detect(text: str) -> list[Finding]:
    """Every finding in ``text``, in text order."""
    if not text:
        return []
    # Full-width forms (１３８…, ：, ＝) map one-to-one onto ASCII, so positions stay valid.
    normalized = text.translate(_HALF_WIDTH)
    found = {finding for rule in _RULES for finding in rule(normalized)}
    return _without_nested(sorted(found, key=lambda f: (f.start, -f.end, f.kind)))


def detect_secrets(text: str) -> list[Finding]:
    """The findings SPEC P-2 refuses in a proposal (secrets, card numbers, verification codes)."""
    return [finding for finding in detect(text) if finding.is_secret]


def is_secret(text: str) -> bool:
    return bool(detect_secrets(text))


def looks_sensitive(*texts: str) -> bool:
    """Whether a fact with these texts must be marked ``sensitive`` (SPEC D-1): any finding at all."""
    return any(detect(text) for text in texts if text)


# --- Plumbing -------------------------------------------------------------------

_HALF_WIDTH = {code: code - 0xFEE0 for code in range(0xFF01, 0xFF5F)} | {0x3000: 0x20}

Rule = Callable[[str], Iterator[Finding]]
Check = Callable[[re.Match], tuple[int, int] | None]


def _rule(kind: str, pattern: str, check: Check | None = None, flags: int = 0) -> Rule:
    """A regex rule; ``check`` validates a match and returns the span to report, or None."""
    compiled = re.compile(pattern, flags | re.VERBOSE)

    def run(text: str) -> Iterator[Finding]:
        for match in compiled.finditer(text):
            span = check(match) if check else match.span("value" if "value" in compiled.groupindex else 0)
            if span:
                yield Finding(kind, *span)

    return run


def _without_nested(findings: list[Finding]) -> list[Finding]:
    """Drop a finding inside a longer one (a card is not also a phone); ``findings`` sorted by start, longest first."""
    kept: list[Finding] = []
    reach, reach_start = -1, -1  # the furthest end seen so far, and where that finding started
    for finding in findings:
        if finding.end < reach or (finding.end == reach and reach_start < finding.start):
            continue
        kept.append(finding)
        if finding.end > reach:
            reach, reach_start = finding.end, finding.start
    return kept


def _digits(text: str) -> str:
    return "".join(ch for ch in text if ch.isdigit())


def _has_digit(text: str) -> bool:
    return any(ch.isdigit() for ch in text)


def _has_letter(text: str) -> bool:
    return any(ch.isascii() and ch.isalpha() for ch in text)


def _value_span(match: re.Match) -> tuple[int, int]:
    """The ``value`` group, without trailing sentence punctuation or quotes."""
    start, end = match.span("value")
    while end > start and match.string[end - 1] in ".,;:!?)]}'\"":
        end -= 1
    while start < end and match.string[start] in "'\"":
        start += 1
    return start, end


# Keyword rules: an English keyword must stand alone as a word; Chinese needs no boundary.
_EN = r"(?<![A-Za-z])"
_END = r"(?![A-Za-z])"
# An explicit separator between a keyword and its value.
_SEP = r"\s*(?:(?:是|为|\bis\b|\bwas\b)\s*[:=]?|[:=])\s*"
_VALUE_CHARS = r"[!-~]"  # printable ASCII without space

# --- Personal data: national ID numbers -----------------------------------------

_ID_WEIGHTS = (7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2)


def _cn_resident_id(match: re.Match) -> tuple[int, int] | None:
    """GB 11643: a real birth date and the ISO 7064 MOD 11-2 check character."""
    number = match.group(0).upper()
    try:
        date(int(number[6:10]), int(number[10:12]), int(number[12:14]))
    except ValueError:
        return None
    total = sum(int(digit) * weight for digit, weight in zip(number[:17], _ID_WEIGHTS, strict=True))
    return match.span() if "10X98765432"[total % 11] == number[17] else None


def _id_after_keyword(match: re.Match) -> tuple[int, int] | None:
    value = match.group("value")
    return match.span("value") if sum(ch.isdigit() for ch in value) >= 4 else None


# --- Secrets: card numbers -------------------------------------------------------

def _luhn(number: str) -> bool:
    total = 0
    for position, digit in enumerate(reversed(number)):
        value = int(digit) * (2 if position % 2 else 1)
        total += value - 9 if value > 9 else value
    return total % 10 == 0


def _card_network(number: str) -> bool:
    """Whether the prefix and length belong to a card network (Visa, Mastercard, UnionPay …)."""
    length, two, four = len(number), int(number[:2]), int(number[:4])
    if number[0] == "4":
        return length in (13, 16, 19)
    if two in (34, 37):
        return length == 15
    if 51 <= two <= 55 or 2221 <= four <= 2720:
        return length == 16
    if two == 62 or number.startswith("6011") or two == 65 or 644 <= int(number[:3]) <= 649 or 3528 <= four <= 3589:
        return 16 <= length <= 19
    if two in (36, 38, 39) or 300 <= int(number[:3]) <= 305:
        return 14 <= length <= 19
    if two in (50, 56, 57, 58, 60, 63, 67):  # Maestro and domestic debit networks
        return 12 <= length <= 19
    return False


_DIGIT_RUN = re.compile(r"(?<![0-9A-Za-z.,])\d+(?:[ -]\d+)*(?![0-9A-Za-z]|[.,]\d)")
# Long numbers after these words are order or parcel numbers, whatever their checksum.
_NOT_A_CARD = re.compile(
    r"(?i)(订单|单号|运单|快递|物流|发票|流水|order|tracking|invoice|reference|ref\.?)\W{0,3}\S{0,6}\s*$"
)


def _card_numbers(text: str) -> Iterator[Finding]:
    for run in _DIGIT_RUN.finditer(text):
        groups = [(run.start() + m.start(), run.start() + m.end()) for m in re.finditer(r"\d+", run.group(0))]
        # Cards are written whole or in groups of 3-6 digits; a group of one or two digits
        # ("… 1111 12/27", "2024-05-01") is never part of one, so it splits the run.
        stretch: list[tuple[int, int]] = []
        for group in [*groups, (0, 0)]:
            if group[1] - group[0] >= 3:
                stretch.append(group)
            else:
                yield from _cards_in(text, stretch)
                stretch = []


def _cards_in(text: str, groups: list[tuple[int, int]]) -> Iterator[Finding]:
    """Card numbers made of consecutive ``groups``, longest first, at most 19 digits each."""
    first = 0
    while first < len(groups):
        candidates, count = [], 0
        for last in range(first, len(groups)):
            count += groups[last][1] - groups[last][0]
            if count > 19:
                break
            candidates.append(last)
        for last in reversed(candidates):
            start, end = groups[first][0], groups[last][1]
            number = _digits(text[start:end])
            if len(number) >= 13 and _card_network(number) and _luhn(number):
                if not _NOT_A_CARD.search(text[max(0, start - 16):start]):
                    yield Finding(BANK_CARD, start, end)
                first = last
                break
        first += 1


# --- Personal data: phone numbers -----------------------------------------------

def _phone_after_keyword(match: re.Match) -> tuple[int, int] | None:
    value = match.group("value")
    if re.fullmatch(r"\d{4}-\d{1,2}-\d{1,2}", value.strip()):
        return None  # a date, not a number to call
    return match.span("value") if 7 <= len(_digits(value)) <= 15 else None


def _international_phone(match: re.Match) -> tuple[int, int] | None:
    return match.span() if 8 <= len(_digits(match.group(0))) <= 15 else None


# --- Secrets: passwords ------------------------------------------------------------

# "A statement about a password" (SPEC P-2): after a password keyword, only these words say
# something about the password instead of giving it ("my password is strong", "password: required").
# Any other single word there is the password ("my password is sunflower"). The list is closed on
# purpose: a word missing from it is refused, which is the safe side for P-2. Chinese descriptions
# (很强, 是新的, 已过期) never reach this check: a value is printable ASCII (``_VALUE_CHARS``).
PASSWORD_DESCRIPTIONS = frozenset({
    "strong", "stronger", "weak", "weaker", "long", "longer", "short", "shorter", "secure", "insecure", "safe",
    "unsafe", "simple", "complex", "complicated", "easy", "hard", "difficult", "new", "old", "same",
    "different", "changed", "unchanged", "expired", "reset", "set", "saved", "stored", "hidden", "private",
    "personal", "secret", "required", "optional", "wrong", "correct", "incorrect", "right", "forgotten",
    "unique", "random", "encrypted", "protected", "compromised", "leaked", "stolen", "hacked", "lost",
    "locked", "blocked", "disabled", "enabled", "temporary", "valid", "invalid", "good", "bad", "fine",
    "okay", "great", "terrible", "memorable", "obvious", "important", "updated", "outdated", "shared",
    "known", "unknown", "mine", "yours", "none", "null", "empty", "redacted", "n/a", "here", "there",
    "below", "above", "attached", "this", "that", "what", "also", "still", "very", "quite", "really",
    "pretty", "super", "too", "just", "only", "never", "always", "now", "being", "getting", "case-sensitive",
    "mandatory", "memorized", "memorised", "rotated", "irrelevant", "unnecessary", "useless", "everywhere",
    "needed", "necessary", "working", "broken",
})
# After a bare keyword ("password sunflower"), words that make "password" part of a longer
# phrase or sentence ("I like password managers", "I forgot my password again").
_PASSWORD_PHRASE_WORDS = frozenset({
    "manager", "managers", "reset", "resets", "change", "changes", "policy", "policies", "hint", "hints",
    "field", "fields", "prompt", "protected", "protection", "recovery", "requirement", "requirements",
    "rule", "rules", "strength", "length", "generator", "vault", "list", "file", "entry", "expiry",
    "expiration", "update", "updates", "login", "logins", "please", "again", "today", "yesterday",
    "tomorrow", "later", "twice", "already", "recently", "before", "soon", "often", "sometimes",
    "everywhere", "anymore", "correctly", "securely", "safely", "daily", "weekly", "monthly", "yearly",
    "annually", "from", "with", "into", "onto", "when", "then", "than", "because", "since", "until",
    "anyway", "though", "either",
})
# "pass" is a password keyword only with ":" or "=", and only at the start or where credentials are
# listed: after a login or account word, or after "/", "," or ";" ("login: alice / pass: sunflower").
# Elsewhere a pass is a ticket ("Eurail pass: Global", "Disney pass: Magic Key").
_PASS_CONTEXT = re.compile(r"(?i)(?:^|[/,;|]|(?<![A-Za-z])(?:login|user|username|account|wifi|wi-fi|email|my))\s*$")
# After an explicit ":" or "=", only a form's own wording is no password ("password: required").
_PLACEHOLDERS = frozenset({"required", "optional", "none", "null", "empty", "hidden", "redacted", "unknown",
                           "same", "changed", "reset", "forgotten", "expired", "n/a"})
_PIN_OR_CODE = re.compile(r"(?i)pin|.*code$")
# What a password is for, between the keyword and "is": "the password for my bank is …", "the wifi
# password at home is …". A few plain words, no punctuation ("a password for work, which is annoying"
# is two clauses), and only before is/was: "Password for work: Bitwarden" stays a heading.
_PASSWORD_FOR = r"\s+(?:for|at|on|of|to|in)(?:\s+[\w'’-]+){1,4}?(?=\s+(?:is|was)(?![A-Za-z]))"
# A filler word between "is" and the password ("my password is also sunflower", "密码也是 sunflower").
# Only as part of the separator: alone after "is" ("my password is also") these words still describe.
# Not 还是, which is also "or" ("用密码还是 Face ID 解锁").
_FILLER_ZH = "也就现在"
_FILLED_SEP = (r"\s*(?:\b(?:is|was)\s+(?:also|still|now|just|actually|currently)\s+"
               r"|(?:也|就|现在)(?:是|为)\s*[:=]?\s*)")
# Where a clause ends after a value: the text ends, punctuation (ASCII or Chinese), or a conjunction. A ":"
# does not end it — "Password tool: Bitwarden" names a tool — nor does more text ("密码 Bitwarden 管理").
_CLAUSE_END = re.compile(r"\s*(?:$|[.,;!?)\]}'\"，。；！？、）]|(?:and|but|so|btw)(?![A-Za-z]))")


def _password(match: re.Match) -> tuple[int, int] | None:
    start, end = _value_span(match)
    value = match.string[start:end]
    keyword = match.group("keyword")
    separator = "".join((match.group("sep") or "").split()).lower()  # ":", "is", "是:" …
    chinese = not keyword.isascii()
    word = value.strip("()[]{}<>").lower()
    if set(value) <= set("*•x#"):
        return None
    explicit = separator[-1:] in (":", "=")
    if keyword.lower() == "pass" and not (explicit and _PASS_CONTEXT.search(match.string[:match.start()])):
        return None
    # Words with other meanings count only with a separator: "pw: …", "my pin is 4821", not "pin the poster".
    if keyword.lower() in ("pw", "pin") and keyword != "PIN" and not separator:
        return None
    alone = bool(_CLAUSE_END.match(match.string, end))  # nothing follows the word in its clause
    # Given outright: after ":" or "=", in quotes, or after 是/为. A describing or short word alone
    # there describes ("password: strong"); followed by more words it begins a passphrase
    # ("password: correct horse battery staple", "password: new york 1990").
    quoted = match.group("value")[:1] in "'\""
    if explicit or quoted or (chinese and separator.lstrip(_FILLER_ZH)[:1] in ("是", "为")):
        described = alone and (word in PASSWORD_DESCRIPTIONS or len(value) < 4)
        return None if word in _PLACEHOLDERS or described else (start, end)
    if len(value) < 4 or word in PASSWORD_DESCRIPTIONS:
        return None
    if not separator and match.group("gap") == "" and not chinese:
        return None  # "password-protected", "password123" as a word
    # "my password is Hunter2!", "PIN 4821", "银行卡密码 482913": digits or an invented spelling.
    looks_made_up = not value.isalnum() or any(ch.isupper() for ch in value[1:])
    if _has_digit(value) or (separator and looks_made_up):
        return start, end
    # A word with no explicit separator ("my password is sunflower", "password sunflower",
    # "口令 sunflower") is the password when it stands alone: the clause ends after it. A word
    # that goes on ("my password is written on a note") describes. PINs and door codes are numbers.
    if _PIN_OR_CODE.fullmatch(keyword) or not alone:
        return None
    if not separator and not chinese and word in _PASSWORD_PHRASE_WORDS:
        return None
    return start, end


# --- Secrets: keys and tokens --------------------------------------------------------

def _key_after_keyword(match: re.Match) -> tuple[int, int] | None:
    start, end = _value_span(match)
    value = match.string[start:end]
    return (start, end) if len(value) >= 12 and _has_digit(value) and _has_letter(value) else None


def _random_looking(match: re.Match) -> tuple[int, int] | None:
    """Generated keys mix letters and digits; "sk-learn-is-a-python-library" does not."""
    return match.span() if _has_digit(match.group(0)[3:]) and _has_letter(match.group(0)[3:]) else None


# Prefixes of well-known services' keys and tokens: after a key keyword they need less length.
_KEY_PREFIX = re.compile(r"(?:sk-(?:proj-|ant-)?|(?:sk|rk)_(?:live|test)_|gh[pousr]_|github_pat_|xox[abposr]-"
                         r"|glpat-|hf_|npm_|AKIA|ASIA|AIza)(?P<rest>.*)")
_AWS_SECRET = re.compile(r"[A-Za-z0-9/+]{40}")


def _credential_like(value: str) -> bool:
    """Whether a word after "key", "secret" or "token" looks generated rather than written.

    A known prefix with a random rest, an AWS-style secret key, or 16+ mixed letters and digits.
    """
    prefixed = _KEY_PREFIX.match(value)
    if prefixed:
        rest = prefixed.group("rest")
        return len(rest) >= 12 and _has_digit(rest) and _has_letter(rest)
    if _AWS_SECRET.fullmatch(value) and _has_letter(value) and (
        _has_digit(value) or (value != value.lower() and value != value.upper())
    ):
        return True
    return any(len(part) >= 16 and _has_digit(part) and _has_letter(part) for part in re.split(r"[-_./+=]", value))


def _credential_after_keyword(match: re.Match) -> tuple[int, int] | None:
    start, end = _value_span(match)
    return (start, end) if _credential_like(match.string[start:end]) else None


def _letters_and_digits(match: re.Match) -> tuple[int, int] | None:
    return match.span() if _has_digit(match.group(0)) and _has_letter(match.group(0)) else None


def _code_after_keyword(match: re.Match) -> tuple[int, int] | None:
    return match.span("value") if _has_digit(match.group("value")) else None


_RULES: tuple[Rule, ...] = (
    # Personal data -------------------------------------------------------------
    _rule(NATIONAL_ID, r"""(?<![0-9A-Za-z]) [1-8]\d{5} (?:18|19|20)\d{2} (?:0[1-9]|1[0-2]) (?:0[1-9]|[12]\d|3[01])
                           \d{3}[\dXx] (?![0-9A-Za-z])""", _cn_resident_id),
    # US social security number: area never 000, 666 or 9xx; group and serial never zero.
    _rule(NATIONAL_ID, r"(?<![\d-]) (?!000|666|9)\d{3}-(?!00)\d{2}-(?!0000)\d{4} (?![\d-])"),
    _rule(NATIONAL_ID, rf"""(?:身份证(?:号码|号)?|证件号(?:码)?|护照(?:号码|号)?|社保号|驾驶证号
                            |{_EN}(?:passport|national\s+id|id\s+card|id\s+number|ssn|social\s+security
                                   |driver'?s\s+licen[cs]e)(?:\s+(?:number|no\.?))?{_END})
                           (?:\s*(?:[:=#]|是|为|\bis\b)\s*|\s*) (?P<value>[A-Za-z0-9][A-Za-z0-9-]{{5,19}})""",
          _id_after_keyword, re.I),
    # Chinese mobile, optionally +86: 1[3-9]x xxxx xxxx.
    _rule(PHONE_NUMBER, r"""(?<![0-9A-Za-z_.,/+]) (?:(?:\+|00)86[\s-]?)? 1[3-9]\d (?:[\s-]?\d{4}){2}
                            (?![0-9A-Za-z_]|[.,]\d)"""),
    # Chinese landline with area code: 010-62751234, (0755) 8601 3388.
    _rule(PHONE_NUMBER, r"(?<![\d-]) (?<!\d\s) (?:0\d{2,3}-|\(0\d{2,3}\)\s?|0\d{2,3}\s) \d{3,4}\s?\d{4} (?![\d-])"),
    # International: +44 20 7946 0958, +1 (415) 555-2671.
    _rule(PHONE_NUMBER, r"(?<![0-9A-Za-z_+]) \+\d{1,3} (?:[\s-]?\(?\d{1,4}\)?){2,5} (?!\d)", _international_phone),
    # North American without country code: (415) 555-2671, 415-555-2671.
    _rule(PHONE_NUMBER, r"(?<![\d-]) (?:\(\d{3}\)\s?|\d{3}[-.]) \d{3}[-.]\d{4} (?![\d-]|\.\d)"),
    _rule(PHONE_NUMBER, rf"""(?:电话|手机|座机|{_EN}(?:phone|tel|mobile|cell|whatsapp){_END})
                             (?:\s*(?:号码|号|number|no\.?|\#))? (?:\s*(?:[:=]|是|为|\bis\b)\s*|\s*)
                             (?P<value>\+?\d[\d\s-]{{5,18}}\d) (?!\d)""", _phone_after_keyword, re.I),
    # Secrets: card numbers and card security codes --------------------------------------
    _card_numbers,
    _rule(BANK_CARD, rf"(?:{_EN}(?:CVV2?|CVC2?){_END}|安全码) (?:{_SEP}|\s*) (?P<value>\d{{3,4}}) (?!\d)", flags=re.I),
    # Secrets: passwords, PINs and door codes ------------------------------------------
    _rule(PASSWORD, rf"""(?P<keyword>密码|口令|门禁码|开锁码
                           |{_EN}(?:password|passwd|passcode|passphrase|pwd|pass|pw|PIN(?:\s?code)?
                                  |(?:wi-?fi|wlan|network)\s+key|(?:door|gate|alarm|safe|lock|garage)\s+code){_END})
                         (?:(?:{_PASSWORD_FOR})?(?P<sep>{_FILLED_SEP}|{_SEP})|(?P<gap>\s*))
                         (?P<value>"[^"\n]{{1,80}}"|'[^'\n]{{1,80}}'|{_VALUE_CHARS}{{1,80}})""", _password, re.I),
    # Secrets: API keys of well-known services, then any "api key: …" ---------------------
    _rule(API_KEY, r"(?<![A-Za-z0-9_-]) sk-[A-Za-z0-9_-]{20,}", _random_looking),  # OpenAI, Anthropic …
    _rule(API_KEY, r"(?<![A-Za-z0-9]) (?:AKIA|ASIA)[0-9A-Z]{16} (?![0-9A-Za-z])"),  # AWS access key id
    _rule(API_KEY, r"(?<![A-Za-z0-9]) (?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,})"),
    _rule(API_KEY, r"(?<![A-Za-z0-9]) xox[abposr]-[A-Za-z0-9-]{10,}"),  # Slack
    _rule(API_KEY, r"(?<![A-Za-z0-9]) AIza[0-9A-Za-z_-]{35}"),  # Google
    _rule(API_KEY, r"(?<![A-Za-z0-9]) (?:sk|rk)_(?:live|test)_[0-9A-Za-z]{16,}"),  # Stripe
    # GitLab, npm, Hugging Face
    _rule(API_KEY, r"(?<![A-Za-z0-9_-]) (?:glpat-[A-Za-z0-9_-]{20,}|npm_[A-Za-z0-9]{36,}|hf_[A-Za-z0-9]{30,})",
          _random_looking),
    _rule(API_KEY, rf"""(?:{_EN}(?:api[_\s-]?key|apikey|secret[_\s-]?key|access[_\s-]?key(?:[_\s-]?id)?
                                  |client[_\s-]?secret|app[_\s-]?secret|aws[_\s-]?secret[_\s-]?access[_\s-]?key)
                                  {_END}|密钥|秘钥|appsecret)
                         {_SEP} (?P<value>["']?[A-Za-z0-9_\-./+=]{{12,200}})""", _key_after_keyword, re.I),
    # A generated-looking key after a key keyword, colon or not ("api key abcd1234efgh5678ijkl",
    # "OpenAI key sk-abc…", "secret: wJalrXUtnFEMI/K7MDENG/…"): the value alone must look like one.
    _rule(API_KEY, rf"""(?:{_EN}(?:(?:api|secret|access|aws[_\s-]?secret[_\s-]?access|client|app|license)
                                  [_\s-]?)?(?:key|secret)(?:[_\s-]?id)?{_END}|密钥|秘钥)
                         (?:{_SEP}|\s+) (?P<value>["']?[A-Za-z0-9_\-./+=]{{12,200}})""",
          _credential_after_keyword, re.I),
    # Licence and product keys: four or more dashed groups of 4-6 capitals and digits, both present
    # ("7HJ2K-9QXPL-M3V8R-T6YWB-4DCFN"). The shape is enough, keyword or not: a fact labelled "Windows
    # key" holds the bare key. Dates, ISBNs, UUIDs (8-4-4-4-12) and flights have groups of other
    # sizes; a placeholder (XXXXX-XXXXX-…) has no digit, a slug (spring-break-trip-2024) no capital.
    _rule(LICENSE_KEY, r"(?<![A-Za-z0-9_-]) [A-Z0-9]{4,6}(?:-[A-Z0-9]{4,6}){3,} (?![A-Za-z0-9_-])",
          _letters_and_digits),
    # Secrets: tokens ---------------------------------------------------------------
    _rule(TOKEN, r"(?<![A-Za-z0-9_-]) eyJ[A-Za-z0-9_-]{5,}\.eyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]*"),  # JWT
    _rule(TOKEN, r"(?<![A-Za-z]) Bearer\s+ (?P<value>[A-Za-z0-9\-._~+/]{16,}=*)", flags=re.I),
    _rule(TOKEN, rf"""(?:{_EN}(?:(?:access|refresh|auth|id|api|session)[_\s-]?token|session[_\s-]?(?:id|key)
                                  |token|cookie){_END}|令牌)
                      {_SEP} (?P<value>["']?[A-Za-z0-9._~+/=%-]{{16,400}})""", _key_after_keyword, re.I),
    _rule(TOKEN, rf"""(?:{_EN}(?:(?:access|refresh|auth|id|api|session|bearer)[_\s-]?)?token{_END}|令牌)
                      \s+ (?P<value>[A-Za-z0-9._~+/=%-]{{16,400}})""", _credential_after_keyword, re.I),
    # Secrets: private keys and wallet recovery phrases -----------------------------------------
    _rule(PRIVATE_KEY, r"-----BEGIN[A-Z0-9 ]*PRIVATE\ KEY(?:\ BLOCK)?-----"),
    _rule(PRIVATE_KEY, rf"(?:私钥|{_EN}private[_\s-]?key{_END}) {_SEP} (?P<value>[A-Za-z0-9+/=]{{32,}})",
          _key_after_keyword, re.I),
    _rule(PRIVATE_KEY, rf"""(?:助记词|{_EN}(?:seed|recovery|mnemonic)\s+(?:phrase|words){_END}) {_SEP}
                            (?P<value>(?:[a-z]+\s+){{11,23}}[a-z]+)""", flags=re.I),
    # Secrets: one-time verification codes ----------------------------------------------
    _rule(VERIFICATION_CODE, rf"""(?:验证码|校验码|动态码|动态密码|短信码|确认码|授权码)
                                 (?:{_SEP}|\s*) (?P<value>[A-Za-z0-9]{{4,8}}) (?![A-Za-z0-9])""",
          _code_after_keyword),
    _rule(VERIFICATION_CODE, r"""(?<![0-9A-Za-z]) (?P<value>\d{4,8}) (?!\d) \s*,?\s*(?:是|为)?\s*(?:您|你)的?
                                 [^\d\n]{0,8}? (?:验证码|校验码|动态码)"""),
    _rule(VERIFICATION_CODE, rf"""(?:{_EN}(?:verification|security|confirmation|login|sign[\s-]?in|one[\s-]time
                                            |auth(?:entication)?|access|2fa|mfa|sms|your|the)
                                     \s+(?:code|passcode)|{_EN}(?:OTP|TOTP){_END})
                                  {_END} (?:{_SEP}|\s+)
                                  (?P<value>(?:[A-Z]-)?[A-Za-z0-9]{{4,8}}|\d{{3}}[-\s]\d{{3}}) (?![A-Za-z0-9])""",
          _code_after_keyword, re.I),
    _rule(VERIFICATION_CODE, r"""(?<![0-9A-Za-z]) (?P<value>(?:[A-Z]-)?\d{4,8}) \s+ is\s+your\s+
                                 (?:[\w-]+\s+){0,3}? (?:code|otp|passcode|pin)\b""", flags=re.I),
    _rule(VERIFICATION_CODE, r"""(?<![A-Za-z])(?:use|enter) \s+ (?P<value>\d{4,8}) \s+ (?:to|as) \s+
                                 (?:sign|log|verify|confirm|complete|reset|continue)""", flags=re.I),
)
