"""What a similarity means for one query (SPEC S-4; docs/search.md "Calibrated relevance").

A cosine similarity does not mean the same for every query: a string of random letters is 0.4–0.57 similar to a
person's short labels, while a real question in the other language is 0.3 similar to the fact that answers it.
So a field matches by meaning when

* it stands out from the query's *background*: the same query's similarities to every row it was compared
  with (the caller's readable fields of visible records, nothing else: SPEC R-5) and to a fixed cohort of
  everyday texts in both languages, which steadies the figures of a person with few rows;
* it is at least as close to the query as the nearest of a fixed set of nonsense strings (random letters,
  random characters): a query of nonsense is as close to other nonsense as to anything a person wrote;
* unless the query is about someone (``about_someone``), it is nearly as close to the query as the nearest of
  a fixed set of general-knowledge topics (science, history, sport, the arts, in both languages): a question
  an encyclopedia answers ("how do bees make honey") is closer to one of them than to the person's record
  that merely shares its theme.
"""

from __future__ import annotations

import logging
import random
import re
import threading
from dataclasses import dataclass

import numpy as np

log = logging.getLogger(__name__)

# Everyday words, phrases and sentences on no one's topic, in English and Chinese, short and long: the
# background a query's similarities are measured against. Fixed: changing it moves every threshold.
COHORT = (
    "weather", "the train is late again", "a quiet street after the rain", "Notes", "Schedule", "Misc",
    "how to boil an egg", "the history of the printing press", "a red bicycle leaning on a wall", "tax law",
    "Meeting", "Project update", "summer holiday photos", "the price of rice went up", "an old map of the city",
    "football results from the weekend", "a recipe for banana bread", "the moon is bright tonight",
    "customer support ticket", "Reminder", "the museum opens at nine", "learning to draw portraits",
    "a broken umbrella", "stock market news", "the garden needs weeding", "a long email thread about budgets",
    "birds migrating south", "Status", "Other", "a podcast about economics", "the elevator is out of order",
    "winter coat on sale", "a documentary about oceans", "the wifi password", "thank you for your help",
    "General", "an apartment with two rooms", "the kids are at school", "a cup of tea", "Info",
    "the bus leaves from platform four", "election results", "a song stuck in my head", "Contact",
    "a new phone case", "the report is due next week", "fixing the kitchen light", "Item",
    "天气", "火车又晚点了", "雨后安静的街道", "笔记", "日程", "其他", "怎么煮鸡蛋", "印刷术的历史",
    "靠在墙上的红色自行车", "税法", "会议", "项目进展", "暑假照片", "米价涨了", "一张老城地图",
    "周末的足球比分", "香蕉面包的做法", "今晚月亮很亮", "客服工单", "提醒", "博物馆九点开门",
    "学画肖像", "一把坏掉的伞", "股市新闻", "花园需要除草", "关于预算的长邮件", "候鸟南飞", "状态",
    "备注", "一档讲经济的播客", "电梯坏了", "冬季大衣打折", "一部海洋纪录片", "无线网密码",
    "谢谢你的帮助", "一般", "两室的公寓", "孩子们在上学", "一杯茶", "信息", "公交车从四号站台出发",
    "选举结果", "一首歌在脑子里循环", "联系人", "新手机壳", "报告下周交", "修厨房的灯", "条目",
)


# General-knowledge topics in English and Chinese — science, history, inventions, nature, sport, the arts,
# animals, the body, how food and machines work — what a question the person's memory does not answer is
# usually about. Not flights, clouds or the weather: "flight to Chengdu" and a cloud contract are a person's
# business. Fixed, like the cohort: changing it moves ``hybrid.GENERAL``.
GENERAL = (
    # English
    "how volcanoes form", "the theory of relativity", "photosynthesis in plants", "how black holes work",
    "the periodic table of elements", "plate tectonics and earthquakes", "the life cycle of stars",
    "how vaccines train the immune system", "the structure of DNA", "climate change and greenhouse gases",
    "how rainbows appear", "the migration of whales", "the anatomy of the human heart", "quantum mechanics basics",
    "how magnets work", "the water cycle", "dinosaur extinction", "the speed of light",
    "how bats navigate in the dark", "why the sky is blue", "the evolution of birds", "coral reef ecosystems",
    "the fall of the Roman Empire", "the French Revolution", "ancient Egyptian pyramids",
    "the Industrial Revolution", "the Silk Road trade routes", "the Cold War", "the Renaissance in Italy",
    "the Ming dynasty", "the Viking age", "the invention of paper", "World War One trenches", "the Aztec empire",
    "Greek mythology gods", "the offside rule in football", "how scoring works in tennis",
    "the history of the Olympic Games", "basketball defensive tactics", "the rules of ice hockey",
    "famous chess grandmasters", "how to play poker", "formula one racing strategy", "the rules of golf",
    "sumo wrestling traditions", "baroque music composers", "impressionist painting techniques",
    "the plays of Shakespeare", "the grammar of Latin verbs", "the origin of the English alphabet",
    "Gothic cathedrals", "jazz improvisation", "the history of cinema", "Japanese haiku poetry",
    "opera singing styles", "how the internet routes packets", "the invention of the steam engine",
    "how nuclear power plants work", "the history of money", "supply and demand in economics",
    "how batteries store energy", "the first computers", "how satellites stay in orbit",
    "the longest rivers in the world", "the highest mountains on earth", "deserts of Africa",
    "the climate of Antarctica", "the islands of the Pacific Ocean", "capital cities of Europe", "how wine is made",
    "the history of sushi", "the chemistry of caramel", "where spices come from", "how wolves hunt in packs",
    "the migration of salmon", "octopus intelligence", "how camels survive in deserts",
    "how refrigerators keep food cold", "how GPS finds a location", "how microwaves heat food", "how ships float",
    "how central banks set interest rates", "the history of the stock market", "the history of railways",
    "how the liver works", "why we need vitamins", "how muscles grow",
    # inventions, nature, food and drink, animals, the body, everyday science
    "the invention of the light bulb", "the history of the telephone",
    "the invention of the printing press", "the history of the automobile", "the invention of the radio",
    "the history of photography", "the invention of the wheel", "how television was invented",
    "why leaves fall in autumn", "what causes thunder and lightning", "why it snows",
    "how hurricanes form", "why the sea is salty", "how rivers shape valleys", "how seeds grow into plants",
    "how flowers are pollinated", "the history of coffee", "how tea is grown and processed",
    "where chocolate comes from", "how cheese is made", "the history of bread", "how beer is brewed",
    "how sugar is refined", "the origin of pasta", "why chili peppers taste hot", "how penguins survive the cold",
    "how birds learn to fly", "why cats purr", "the diet of giant pandas", "how elephants communicate",
    "the life cycle of butterflies", "why we sleep and dream", "how the eye sees colour",
    "how the brain stores memories", "how we taste food", "why we yawn", "how bones heal",
    "how touchscreens work", "how a bicycle stays upright", "how electricity reaches homes",
    "how mobile phone networks work", "how clocks keep time", "how a compass works", "how glass is made",
    "how paper is recycled", "the speed of sound", "why ice floats on water", "how soap cleans",
    # Chinese
    "火山是怎么形成的", "相对论", "植物的光合作用", "黑洞的原理", "元素周期表", "地震和板块运动", "恒星的一生",
    "疫苗的原理", "DNA 的双螺旋结构", "全球变暖", "彩虹是怎么出现的", "鲸鱼的迁徙", "人体心脏的结构",
    "量子力学入门", "磁铁的原理", "水循环", "恐龙灭绝", "光速", "天空为什么是蓝色的", "珊瑚礁生态",
    "罗马帝国的灭亡", "法国大革命", "埃及金字塔", "工业革命", "丝绸之路", "冷战", "文艺复兴", "明朝历史", "维京人",
    "第一次世界大战", "希腊神话", "秦始皇统一六国", "唐诗宋词", "三国演义的故事", "足球的越位规则", "网球怎么计分",
    "奥运会的历史", "围棋的规则", "象棋开局", "一级方程式赛车", "高尔夫球规则", "巴洛克音乐", "印象派绘画",
    "莎士比亚的戏剧", "京剧的脸谱", "书法的笔法", "电影的历史", "日本俳句", "互联网是怎么传输数据的",
    "蒸汽机的发明", "核电站的原理", "货币的历史", "供求关系", "电池怎么储存能量", "第一台计算机",
    "卫星为什么不会掉下来", "世界上最长的河流", "世界最高的山", "非洲的沙漠", "南极的气候", "太平洋岛屿",
    "欧洲各国首都", "酱油是怎么酿造的", "葡萄酒的酿造", "焦糖的化学", "香料的产地", "狼群怎么捕猎", "三文鱼洄游",
    "章鱼的智力", "骆驼为什么耐渴", "冰箱制冷的原理", "GPS 定位的原理", "微波炉加热的原理", "船为什么能浮在水上",
    "央行怎么调利率", "股票市场的历史", "铁路的历史", "肝脏的功能", "维生素的作用", "肌肉是怎么长的",
    "电灯的发明", "电话的历史", "汽车的历史", "收音机的发明", "摄影术的历史", "轮子的发明",
    "电视是怎么发明的", "秋天树叶为什么会落", "打雷闪电的原因", "为什么会下雪", "台风是怎么形成的",
    "海水为什么是咸的", "种子怎么长成植物", "花是怎么授粉的", "咖啡的历史", "茶是怎么种植和加工的", "巧克力的来历",
    "奶酪是怎么做的", "面包的历史", "啤酒是怎么酿的", "糖是怎么提炼的", "辣椒为什么辣", "企鹅怎么抵御寒冷",
    "猫为什么会打呼噜", "大熊猫的食性", "大象怎么交流", "蝴蝶的一生", "人为什么要睡觉",
    "眼睛怎么看见颜色", "大脑怎么储存记忆", "人为什么会打哈欠", "骨折是怎么愈合的", "触摸屏的工作原理",
    "自行车为什么不会倒", "电是怎么输送到家里的", "手机信号的原理", "指南针的原理",
    "玻璃是怎么制造的", "声音的传播速度", "冰为什么浮在水面上", "肥皂为什么能去污",
)


def _nonsense(seed: int = 7) -> tuple[str, ...]:
    """96 strings of random Latin letters and CJK characters, the same in every process (``random()`` only:
    its sequence for a seed is what Python keeps stable across versions)."""
    rng = random.Random(seed)

    def pick(items: str, low: int, high: int) -> str:
        return "".join(items[int(rng.random() * len(items))] for _ in range(low + int(rng.random() * (high - low + 1))))

    letters, han = "abcdefghijklmnopqrstuvwxyz", "".join(chr(c) for c in range(0x4E00, 0x9FA6))
    words = [" ".join(pick(letters, 3, 9) for _ in range(1 + int(rng.random() * 3))) for _ in range(48)]
    characters = [pick(han, 2, 4) for _ in range(24)]
    mixed = [f"{pick(letters, 3, 6)} {pick(han, 1, 3)}" for _ in range(24)]
    return (*words, *characters, *mixed)


NONSENSE = _nonsense()


@dataclass(frozen=True)
class Background:
    """One query's similarities to the fixed texts: the everyday cohort's, the closest nonsense string's and
    the closest general-knowledge topic's."""

    everyday: np.ndarray
    nonsense: float
    general: float | None  # None: the query is about someone (``about_someone``), not general knowledge


_lock = threading.Lock()
_fixed: dict[int, tuple[np.ndarray, np.ndarray, np.ndarray]] = {}  # id(embedder) → (cohort, nonsense, general)


def background(embedder, query: np.ndarray, text: str) -> Background | None:
    """The background of ``query``, the vector of ``text``, under ``embedder`` (the fixed texts embedded once
    per process; None while the embedder cannot answer)."""
    from apps.retrieval.embeddings import EmbeddingUnavailable
    from apps.retrieval.indexing import normalize

    fixed = _fixed.get(id(embedder))
    if fixed is None:
        try:
            vectors = np.ascontiguousarray(
                embedder.embed([normalize(t) for t in (*COHORT, *NONSENSE, *GENERAL)]), dtype=np.float32)
        except EmbeddingUnavailable as exc:
            log.warning("no background for calibrating meaning: %s", exc)
            return None
        vectors.flags.writeable = False
        with _lock:
            cut = len(COHORT) + len(NONSENSE)
            fixed = _fixed.setdefault(id(embedder), (vectors[:len(COHORT)], vectors[len(COHORT):cut], vectors[cut:]))
    query = query.astype(np.float32)
    general = None if about_someone(text) else float((fixed[2] @ query).max())
    return Background(everyday=fixed[0] @ query, nonsense=float((fixed[1] @ query).max()), general=general)


# Words that point at a person, or at someone's taste: a question holding one asks about someone's life
# ("does she like jazz", 她喜欢哪个画家, 喜欢吃什么), however close it comes to a general-knowledge topic.
# English words whole; Chinese as written (it often leaves the person out).
_SOMEONE = re.compile(r"\b(?:i|me|my|mine|myself|we|our|us|you|your|she|her|hers|he|him|his|they|their|them|users?|"
                      r"likes?|loves?|hates?|prefers?|favou?rite)\b|[我你您她他咱]|用户|自己|喜欢|讨厌|最爱|爱吃|爱喝")


def about_someone(text: str) -> bool:
    """Whether ``text`` (a query) is about someone: a pronoun, "user" or a word of taste, English or Chinese."""
    return _SOMEONE.search(text.casefold()) is not None


def standardized(similarities: np.ndarray, everyday: np.ndarray | None) -> np.ndarray:
    """Each similarity in standard deviations above the mean of the query's background (float64).

    The background is ``similarities`` themselves and ``everyday`` (the query's similarities to the cohort).
    """
    values = similarities.astype(np.float64)
    background = values if everyday is None else np.concatenate([values, everyday.astype(np.float64)])
    if background.shape[0] < 2:
        return np.zeros_like(values)
    spread = float(background.std())
    return (values - float(background.mean())) / spread if spread > 0 else np.zeros_like(values)
