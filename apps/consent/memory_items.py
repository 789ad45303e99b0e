"""What one imported memory says as a fact (SPEC P-10): a category (D-2), a label and a value.

"User lives in Shanghai", "你住在上海" and "City: Shanghai" all become the common slot of the table
(``slot_words``), labelled in the item's language, so the slot rule (P-9) finds the fact they change.
Anything else keeps its own words: its label is its opening words, its value the whole statement.
The category comes from the slot, else from words a category's statements use (health and relationships
first: they are never shared), else from the heading it was listed under, else from the meaning model's
nearest category (``selectors.slots`` computes it), else "uncategorized" — the person can change it.
Design notes: docs/pages.md ("Bringing memories in").
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from apps.consent.slot_words import SLOTS, slot_of
from apps.memory.models.facts import LABEL_MAX, VALUE_MAX

_CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")
_KEYED = re.compile(rf"^([^:：]{{1,{LABEL_MAX}}}?)\s*([:：])\s*(.*)$")  # "City: Shanghai", "常住城市：上海"

# The label a slot gets, English and Chinese.
SLOT_LABELS = {
    "name": ("Name", "称呼"), "city": ("City", "常住城市"), "hometown": ("Hometown", "家乡"),
    "birthday": ("Birthday", "生日"), "age": ("Age", "年龄"), "pronouns": ("Pronouns", "代词"),
    "timezone": ("Time zone", "时区"), "language": ("Languages", "语言"), "pet": ("Pet", "宠物"),
    "job": ("Job", "职业"), "employer": ("Employer", "工作单位"), "school": ("School", "学校"),
    "diet": ("Diet", "饮食"), "partner": ("Partner", "伴侣"), "allergy": ("Allergies", "过敏"),
}

# Who the statement is about, at its start: it says nothing itself.
_SUBJECT = re.compile(
    r"^(?:(?:the user|user|you|i)(?:'s|'re|'m|\u2019s|\u2019re|\u2019m| are| am)?\s+|(?:your|my)\s+|"
    r"(?:用户|您|你|我)的?)",
    re.IGNORECASE)

_REMEMBER = re.compile(r"^(?:please )?remember(?: that)?\s+|^请?记住\s*", re.IGNORECASE)

_JOBS = (r"engineer|manager|designer|developer|teacher|student|doctor|nurse|lawyer|researcher|writer|analyst|"
         r"consultant|founder|scientist|accountant|architect|professor|programmer|marketer|editor|photographer")
_ZH_JOBS = r"经理|工程师|设计师|老师|教师|学生|医生|护士|律师|研究员|作家|分析师|顾问|创始人|程序员|会计|编辑|摄影师"
_PETS = r"dog|cat|puppy|kitten|retriever|terrier|poodle|corgi|shiba|parrot|rabbit|hamster|dogs|cats"

# slot → patterns on a statement without its subject; group "v" is the value (else the whole statement).
_PATTERNS: list[tuple[str, re.Pattern[str]]] = [(slot, re.compile(pattern, re.IGNORECASE)) for slot, pattern in (
    ("name", r"^(?:'s )?(?:full |preferred )?name is (?P<v>.+)$"),
    ("name", r"^(?:is )?(?:called|named|goes by|prefers to be called) (?P<v>.+)$"),
    ("birthday", r"^(?:'s )?birthday is (?:on )?(?P<v>.+)$"),
    ("birthday", r"^(?:was )?born on (?P<v>.+)$"),
    ("city", r"^(?:currently |now )?(?:live|lives|living|is living|reside|resides|is based|based) in (?P<v>.+)$"),
    ("hometown", r"^(?:grew up in|is originally from|originally from|comes? from|am from|is from) (?P<v>.+)$"),
    ("allergy", r"^(?:is |am )?allergic to (?P<v>.+)$"),
    ("diet", r"^(?:is |am )?(?:a )?(?:vegetarian|vegan|pescatarian)\b.*$"),
    ("diet", r"^(?:does not|doesn't|don't|do not|never) (?:eat|drink) (?:any )?.+$"),
    ("pet", r"^(?:dog|cat|pet)(?:'s name)? is (?P<v>.+)$"),
    ("employer", r"^work(?:s|ing)? (?:at|for) (?P<v>.+)$"),
    ("job", r"^works? as (?:an? )?(?P<v>.+)$"),
    ("job", r"^(?:'s )?(?:job|occupation|role|profession|job title) is (?:an? )?(?P<v>.+)$"),
    ("job", rf"^(?:is |am )?(?:an? )(?P<v>(?:[\w-]+ ){{0,3}}(?:{_JOBS})\b.*)$"),
    ("pet", rf"^(?:has|have) (?P<v>(?:an? |one |two |three |\d+ )?(?:[\w-]+ ){{0,3}}(?:{_PETS})\b.*)$"),
    ("language", r"^(?:speaks|speak) (?P<v>.+)$"),
    ("partner", r"^(?:is |am )?married to (?P<v>.+)$"),
    ("name", r"^(?:的)?(?:名字|姓名)(?:是|叫)(?P<v>.+)$"),
    ("name", r"^叫(?P<v>.+)$"),
    ("birthday", r"^(?:的)?生日(?:是|在)(?P<v>.+)$"),
    ("city", r"^(?:现在|目前)?(?:住在|常住|居住在|生活在|定居在?)(?P<v>.+)$"),
    ("hometown", r"^(?:来自|老家(?:在|是)|出生在|是)(?P<v>.+?)人$"),
    ("hometown", r"^(?:来自|老家(?:在|是))(?P<v>.+)$"),
    ("allergy", r"^对(?P<v>.+)过敏$"),
    ("diet", r"^(?:是素食者|吃素|不吃.+|不喝.+|只吃素)$"),
    ("employer", r"^在(?P<v>.+?)(?:工作|上班|任职)$"),
    ("job", rf"^(?:是一名|是一位|是个|是一个|是|职业是|做)(?P<v>.*(?:{_ZH_JOBS}))$"),
    ("pet", r"^养了?(?P<v>.+)$"),
    ("language", r"^会说(?P<v>.+)$"),
)]

# Words a category's statements use, checked in this order (the never-shared categories first).
_CATEGORY_WORDS: list[tuple[str, re.Pattern[str]]] = [(code, re.compile(pattern, re.IGNORECASE)) for code, pattern in (
    ("health", r"allerg|diagnos|medication|asthma|diabet|blood pressure|therapy|therapist|injur|insomnia|migraine|"
               r"过敏|诊断|吃药|药物|血压|哮喘|糖尿病|失眠|偏头痛|体检"),
    ("relationships", r"\b(?:wife|husband|partner|daughter|son|kids|children|mother|father|mom|dad|sister|brother|"
                      r"friend|friends|family|girlfriend|boyfriend|parents)\b|妻子|丈夫|女儿|儿子|孩子|妈妈|爸爸|"
                      r"父母|姐姐|哥哥|妹妹|弟弟|朋友|家人|老婆|老公"),
    ("goals", r"\bgoal|\bplans? to\b|\bplanning to\b|\bwants? to\b|\bhoping to\b|\baims? to\b|\btraining for\b|"
              r"\bworking toward|目标|计划|打算|想要|希望|准备"),
    ("habits", r"\bevery (?:day|morning|evening|night|week|weekend)|\busually\b|\broutine\b|\bdaily\b|\bweekly\b|"
               r"\bhabit|\beach morning\b|每天|每周|每晚|习惯|经常|通常"),
    ("preferences", r"\bprefer|\blikes?\b|\bloves?\b|\benjoys?\b|favou?rite|\bdislikes?\b|\bhates?\b|"
                    r"\bdoesn't like\b|\btone\b|\bformat|\banswers?\b|\bresponses?\b|偏好|喜欢|讨厌|最爱|风格|回答"),
    ("work_study", r"\bwork|\bjob\b|\bcompany\b|\bteam\b|\bproject|\bcareer\b|\bstud(?:y|ies|ying)\b|"
                   r"\buniversity\b|\bschool\b|\bdegree\b|\bstartup\b|\bclients?\b|工作|公司|项目|团队|职业|学习|"
                   r"大学|专业|同事"),
    ("basic", r"\bname\b|\blives?\b|\bborn\b|\bage\b|\bcity\b|\bpronouns\b|\blanguages?\b|名字|住在|出生|年龄|城市"),
)]

# Words of a heading that name the category of what is listed under it.
_HEADING_WORDS: list[tuple[str, re.Pattern[str]]] = [(code, re.compile(pattern, re.IGNORECASE)) for code, pattern in (
    ("health", r"health|medical|健康|医疗"),
    ("relationships", r"family|relationship|people|friends|家庭|家人|人际|朋友"),
    ("goals", r"goal|top of mind|plans|aspiration|目标|计划"),
    ("habits", r"habit|routine|习惯|日常"),
    ("preferences", r"preference|instruction|style|likes|interests|偏好|喜好|风格|指示|兴趣"),
    ("work_study", r"work|career|professional|job|project|study|education|工作|职业|项目|学习|教育"),
    ("basic", r"personal|identity|about|basic|background|个人|身份|基本|背景"),
)]


@dataclass(frozen=True)
class ImportedFact:
    category: str  # "" when only the meaning model can tell
    label: str
    value: str


def _capital(text: str) -> str:
    return text[:1].upper() + text[1:] if text[:1].isascii() else text


def _short_label(text: str) -> str:
    """A statement's opening words as a label (SPEC D-1: at most 40 characters)."""
    words = text.rstrip(".。!！").strip()
    if len(words) <= LABEL_MAX:
        return words
    if _CJK.search(words[:LABEL_MAX]):
        return words[:20].rstrip("，,、；; ") + "…"
    cut = words[:LABEL_MAX - 1].rsplit(" ", 1)[0]
    return cut.rstrip(",;:") + "…"


def category_of(text: str, heading: str, slot: str | None = None) -> str:
    """The category from the slot, the statement's words or its heading; "" when none tells.

    A heading that only says "about you" is weaker than what the statement says ("Prefers …")."""
    if slot is not None:
        return SLOTS[slot][0]
    for code, words in _CATEGORY_WORDS[:2]:
        if words.search(text):
            return code
    told = next((code for code, words in _HEADING_WORDS if heading and words.search(heading)), "")
    if told and told != "basic":
        return told
    return next((code for code, words in _CATEGORY_WORDS[2:] if words.search(text)), told)


def as_fact(text: str, heading: str = "") -> ImportedFact:
    """The fact an imported statement says: its slot's label and value where the table knows the slot."""
    statement = _SUBJECT.sub("", _REMEMBER.sub("", text.strip())).strip()
    zh = bool(_CJK.search(statement))
    keyed = _KEYED.match(statement)
    key, colon, rest = keyed.groups() if keyed else (statement, "", "")
    if colon and rest.strip() and len(key.split()) <= 5 and not re.search(r"[.。!?！？]", key):
        label, value = key.strip(), rest.strip()
        return ImportedFact(category_of(f"{label} {value}", heading, slot_of(label)), label, _capital(value))
    bare = statement.rstrip(".。")
    for slot, pattern in _PATTERNS:
        if match := pattern.match(bare):
            value = (match.groupdict().get("v") or re.sub(r"^(?:is|am|are)\s+", "", bare, flags=re.I)).strip(" ,，。.")
            return ImportedFact(SLOTS[slot][0], SLOT_LABELS[slot][1 if zh else 0], _capital(value))
    statement = _capital(statement)
    return ImportedFact(category_of(statement, heading), _short_label(statement), statement[:VALUE_MAX])
