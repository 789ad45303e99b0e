"""The words of the slot rule (SPEC P-9): a small bilingual table of common slots, and text compared as words.

A slot is what a fact is about ("where the person lives"); two labels name the same slot when they are the
same words once normalised, when this table gives them the same slot, or (``selectors.slots``) when the
meaning model finds them the same. The table is closed and small on purpose: it names the slots people and
assistants write most, in English and Chinese, and keeps apart the ones that look alike (a home town is
not the city one lives in). Design notes: docs/pages.md ("One fact per slot").
"""

from __future__ import annotations

import re

from apps.retrieval.indexing import normalize

# slot → (the category it belongs to, its names in either language). Names are compared normalised.
SLOTS: dict[str, tuple[str, tuple[str, ...]]] = {
    "name": ("basic", ("name", "full name", "preferred name", "nickname", "goes by", "called",
                       "名字", "姓名", "称呼", "全名", "昵称", "名称")),
    "city": ("basic", ("city", "lives in", "live in", "living in", "location", "home city", "current city",
                       "city of residence", "based in", "residence", "where i live", "home",
                       "城市", "常住城市", "居住城市", "所在城市", "住在", "居住地", "现居", "常住地", "居住地点")),
    "hometown": ("basic", ("hometown", "home town", "grew up in", "from", "place of birth", "birthplace",
                           "家乡", "老家", "籍贯", "出生地")),
    "birthday": ("basic", ("birthday", "date of birth", "birth date", "born", "born on", "dob",
                           "生日", "出生日期", "出生")),
    "age": ("basic", ("age", "年龄", "岁数")),
    "pronouns": ("basic", ("pronouns", "pronoun", "代词", "人称代词")),
    "timezone": ("basic", ("time zone", "timezone", "时区")),
    "language": ("basic", ("language", "languages", "languages spoken", "speaks", "spoken languages",
                           "native language", "mother tongue", "语言", "母语", "会说的语言", "使用语言")),
    "pet": ("basic", ("pet", "pets", "dog", "cat", "宠物", "狗", "猫", "养的宠物")),
    "job": ("work_study", ("job", "occupation", "role", "job title", "title", "profession", "position",
                           "works as", "current role", "职业", "工作", "职位", "岗位", "职务")),
    "employer": ("work_study", ("employer", "company", "works at", "works for", "workplace", "organization",
                                "organisation", "公司", "工作单位", "雇主", "单位", "就职于")),
    "school": ("work_study", ("school", "university", "college", "studies at", "alma mater",
                              "学校", "大学", "母校", "就读")),
    "diet": ("preferences", ("diet", "dietary preference", "dietary preferences", "dietary restrictions",
                             "eating", "饮食", "饮食习惯", "忌口", "饮食偏好")),
    "partner": ("relationships", ("partner", "spouse", "wife", "husband", "boyfriend", "girlfriend",
                                  "配偶", "妻子", "丈夫", "伴侣", "爱人", "老婆", "老公", "男朋友", "女朋友")),
    "allergy": ("health", ("allergy", "allergies", "allergic to", "过敏", "过敏原")),
}

# Words that say who the fact is about, not what: "User's city", "我的城市", "Your name".
_OWNER_WORDS = re.compile(r"^(?:(?:the user'?s|user'?s|my|your|his|her|their)\s+|用户的|我的|你的)")
_PUNCTUATION = re.compile(r"[^\w\s]+")

# Words that carry no content when a value is compared with another (SPEC P-9 "in other words").
_FILLER = frozenset("""
a an the is are am was be been has have had named called with and of in at on to for as who that this
user users you your i me my he she they their his her lives live living currently now still also
""".split())
_FILLER_ZH = "用户你我的是了在叫有个一只名字住着"
_LATIN_WORD = re.compile(r"[^\W_]+", re.UNICODE)
_CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")

_names: dict[str, str] = {}


def _slot_names() -> dict[str, str]:
    """label key → slot, built once: the table's names in the form labels are compared in."""
    if not _names:
        _names.update({label_key(name): slot for slot, (_category, names) in SLOTS.items() for name in names})
    return _names


def label_key(label: str) -> str:
    """A label in the form labels are compared in: normalised, without punctuation or "User's"/"我的"."""
    text = normalize(label).replace("\u2019", "'")
    text = _OWNER_WORDS.sub("", text) or text
    # One plural "s" is the same slot ("Hobbies"/"Hobby", "Languages"/"Language").
    words = [re.sub(r"(?<=[a-z]{3})(?:ies)$", "y", w) if w.endswith("ies") else
             re.sub(r"(?<=[a-z]{3})(?<!s)s$", "", w) for w in _PUNCTUATION.sub(" ", text).split()]
    return " ".join(words)


def slot_of(label: str) -> str | None:
    """The common slot a label names, or None when the table does not know it."""
    return _slot_names().get(label_key(label))


def content_words(text: str) -> frozenset[str]:
    """The words of a value that say something: Latin words without filler, Chinese characters without filler."""
    normal = normalize(text)
    words = {word for word in _LATIN_WORD.findall(_CJK.sub(" ", normal)) if word not in _FILLER}
    words.update(char for char in _CJK.findall(normal) if char not in _FILLER_ZH)
    return frozenset(words)
