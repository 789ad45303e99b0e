"""What the demo person says about themselves: fact texts per category, Chinese and English.

Also SPEC M-6. Design notes: docs/design.md.
"""

# category -> [(label, value)]; labels stay ≤ 32 characters so a round suffix (" · 12") still fits in 40.
POOLS: dict[str, list[tuple[str, str]]] = {
    "basic": [
        ("称呼", "大家都叫我小林，英文名 Lin；正式场合用全名林若溪。"),
        ("Hometown", "Grew up in Hangzhou near West Lake; moved to Shanghai for university in 2012 and stayed."),
        (
            "常住城市与生活",
            "现在常住上海徐汇区，工作日在张江上班，地铁通勤大约五十分钟，路上习惯听播客。周末经常回杭州看父母，"
            "一般坐周五晚上的高铁，周日傍晚回来。很喜欢上海梧桐区的老房子和小马路，打算长期留在这里。目前租住一套"
            "两居室，和一只叫“年糕”的橘猫一起生活，阳台上种了薄荷、罗勒和一盆长得很慢的柠檬树。楼下有一家开了"
            "二十多年的生煎店，几乎每个周六早上都会去买一份当早饭。附近的图书馆和菜市场步行都在十分钟以内，"
            "所以很少打车。以后如果换工作，也希望通勤时间不要超过一个小时，最好能骑车或者走路上班。",
        ),
        ("Languages", "Mandarin (native), English (fluent, IELTS 7.5), conversational Japanese; learning Spanish."),
        ("手机号", "13812345678，工作日九点到六点方便接电话"),
        ("Pronouns", "she/her"),
        (
            "说话和沟通习惯",
            "说话比较直接，不太会客套，如果觉得哪里不对会当场说出来，但会尽量说清楚理由。写消息习惯先说结论再"
            "说原因，一条消息只讲一件事。不喜欢语音消息，更喜欢文字，方便回头查找。和不熟的人第一次见面会有点"
            "拘谨，熟了以后话很多。被人打断时会不太高兴，但会等对方说完再回应。中文和英文混着用是工作环境留下的"
            "习惯，并不是故意的，希望大家不要介意。",
        ),
        (
            "About me in one paragraph",
            "Product manager in her early thirties who likes turning messy problems into simple tools. Reads a lot "
            "of history and science fiction, cooks Hangzhou dishes on weekends, and is trying to get better at "
            "saying no to meetings. Prefers written updates over calls and short, direct answers over long ones.",
        ),
        ("生日", "四月十八日，喜欢和几个好朋友吃顿饭，不太喜欢热闹的派对。"),
        ("Time zone", "Asia/Shanghai (UTC+8); often works with colleagues in Berlin and San Francisco."),
        (
            "家里的情况",
            "独生女，父母都是退休的中学老师，住在杭州。爸爸喜欢下围棋和钓鱼，妈妈在社区合唱团唱女高音。"
            "每周日晚上固定和家里视频通话半小时，逢年过节一定回家。家里还有一只十二岁的老狗叫“豆豆”，"
            "已经走不太动了，但每次回家都会摇着尾巴跑到门口。父母身体都还不错，只是爸爸的膝盖不太好，"
            "不能爬山。今年打算带他们去一趟云南，慢慢走，不赶行程，住在大理古城附近的小院子里，每天晒晒太阳。",
        ),
    ],
    "preferences": [
        ("咖啡", "只喝美式或者手冲，不加糖不加奶；下午三点以后不喝咖啡，怕影响睡眠。"),
        ("Music", "Post-rock and film scores while working; Jay Chou and old Cantopop on long drives."),
        (
            "旅行偏好",
            "喜欢慢节奏的旅行：一个城市住五到七天，住在老城区的小旅馆，每天随便走走，找当地人常去的小馆子。"
            "不喜欢赶景点和跟团。最喜欢的地方是京都、里斯本和大理。坐飞机一定选靠窗的位置，行李尽量只带一个"
            "登机箱。拍照喜欢用胶片相机，每次旅行会带两到三卷胶卷，回来以后慢慢冲洗和整理成相册。订酒店时最看重"
            "安静和干净，其次是离地铁站近，对早餐和泳池没有要求。出发前会做一份简单的清单，只列必须去的两三个地方，"
            "其余时间留给临时起意。每次旅行回来都会写一篇游记，记下吃过的馆子和遇到的人，方便以后再去。",
        ),
        ("Food", "Loves spicy Sichuan food and Hangzhou home cooking; does not eat coriander or organ meats."),
        (
            "How I like answers",
            "Short and direct first, details after. Use bullet points for steps, tables for comparisons, and say "
            "clearly when you are unsure instead of guessing. Chinese is fine for casual topics; English for "
            "anything technical. No motivational phrases, no emojis, no long introductions.",
        ),
        ("阅读", "偏爱历史和科幻，最近在读《三体》重读版和 Yuval Harari 的书，睡前只看纸质书。"),
        ("Movies", "Hayao Miyazaki, Wong Kar-wai and slow European dramas; dislikes horror films."),
        ("座位", "开会和吃饭都喜欢靠窗、安静的位置；电影院坐中间偏后排。"),
        (
            "Gift ideas people could use",
            "Good notebooks (A5 dotted), fountain pen ink in dark blue or green, specialty coffee beans from "
            "small roasters, secondhand history books, indoor plants that survive neglect, and anything "
            "handmade. Please no perfume, no scented candles and nothing that needs a subscription.",
        ),
        ("颜色", "喜欢墨绿、藏青和米白，衣服基本不穿亮色。"),
        (
            "吃饭的讲究",
            "口味偏重，喜欢辣，但胃不太好，所以晚饭尽量清淡。最爱吃的是外婆做的东坡肉和片儿川，在上海常去一家"
            "开在弄堂里的杭帮菜馆。不吃香菜和内脏，海鲜只吃虾和鱼。早饭一定要吃，通常是燕麦加水果或者一份生煎。"
            "和朋友聚餐喜欢能聊天的安静小馆子，不喜欢需要排长队的网红店。每周至少自己做四顿饭，周末会尝试一道"
            "新菜，最近在学做广式煲仔饭和日式咖喱。",
        ),
    ],
    "habits": [
        ("起床", "工作日六点半起床，先喝一杯温水，再做十五分钟拉伸。"),
        ("Exercise", "Runs 5 km three mornings a week along the Xuhui riverside; yoga on Sunday evenings."),
        (
            "一周的节奏",
            "周一上午安排一周计划，把最重要的三件事写在便签上贴在显示器旁边；周二到周四尽量把会议集中在下午，"
            "上午留给需要专注的工作；周五下午复盘一周，整理笔记和待办。周六上午去菜市场买菜、做饭，下午看书或者"
            "和朋友喝咖啡；周日上午打扫卫生，晚上和父母视频，然后早点睡。每个月第一个周末会整理一次房间和电脑"
            "文件，把不用的东西送人或者扔掉。每个季度会单独留出一天，不开会也不看消息，用来想一想接下来三个月"
            "最重要的事情，并把结论写进笔记里，下一次季度复盘的时候再拿出来对照，看看哪些做到了。",
        ),
        ("Note taking", "Keeps a daily log in Obsidian; one note per meeting, linked to the project page."),
        ("睡觉", "晚上十一点前上床，睡前一小时不看手机，会把手机放在客厅充电。"),
        (
            "Weekly review routine",
            "Every Friday at 4 pm: clear the inbox to zero, move unfinished todos to next week or drop them, "
            "write three lines about what went well and what did not, check the calendar for the next two "
            "weeks, and block two mornings of focus time. Takes about forty minutes with a pot of tea.",
        ),
        ("记账", "每天晚上用记账 App 记当天的支出，每月一号做一次月度总结。"),
        ("Cooking", "Batch-cooks on Saturdays: three dishes for the first half of the week."),
        ("喝水", "办公桌上放一个一升的水瓶，目标每天喝完两瓶。"),
        (
            "手机和信息习惯",
            "手机上只保留必要的通知：电话、家人和团队的消息，其他应用的通知全部关掉。每天早上先处理邮件再看"
            "聊天软件，工作时间把手机放在抽屉里，用电脑处理消息。社交媒体只在周末看，每次不超过半小时。读到"
            "好文章会先存进稍后阅读，周末统一读完并摘录要点到笔记里。每个月清理一次手机相册和下载文件夹，"
            "把值得保留的照片备份到硬盘和云盘各一份。",
        ),
    ],
    "goals": [
        ("今年目标", "完成一次全程马拉松，读完二十四本书，西班牙语达到 A2 水平。"),
        ("Career", "Move from product manager to head of product for a small team within two years."),
        (
            "五年规划",
            "五年内希望带一个十人左右的产品团队，做一款真正帮助人们整理个人信息和记忆的工具；同时在上海买一套"
            "小房子，把父母接来住一段时间。个人方面想每年至少去一个没去过的国家，学会游泳和自由泳换气，"
            "坚持写作，每个月在博客上发一篇关于产品设计的长文章，并且和更多同行交流。为了这些目标，现在每周会留出"
            "两个晚上学习管理和财务知识，每个季度读一本关于团队管理的书，并找一位有经验的前辈定期聊一聊。"
            "也希望在这五年里保持身体健康，把跑步和瑜伽坚持下去，不要因为工作忙就放弃运动和睡眠。",
        ),
        ("Health goal", "Keep resting heart rate under 60 and sleep at least seven hours on weekdays."),
        ("学习", "系统学习统计学和实验设计，年底前完成一门线上课程并做一个小项目。"),
        (
            "Writing goal",
            "Publish one long article a month about product design and personal knowledge tools, each based "
            "on a real project, with drafts reviewed by two friends before publishing. The point is to think "
            "more clearly, not to grow an audience; the first three topics are onboarding, search and trust.",
        ),
        ("存钱", "每个月把收入的三成存进指数基金，不碰个股。"),
        (
            "跑马拉松的计划",
            "目标是今年十一月的上海马拉松，争取在四小时三十分钟以内完成。训练计划是每周跑三次：周二间歇跑、"
            "周四节奏跑、周六长距离慢跑，每个月增加百分之十的跑量，九月份达到单次三十公里。同时每周做两次力量"
            "训练，重点是臀部和核心，避免膝盖受伤。比赛前两周开始减量，注意补充碳水和睡眠。如果报名没有中签，"
            "就改报苏州或者杭州的比赛。",
        ),
        ("Language", "Reach conversational Spanish before a planned trip to Madrid next spring."),
    ],
    "work_study": [
        ("职位", "在一家做效率工具的创业公司担任高级产品经理，负责搜索和个人知识库。"),
        ("Education", "BSc Computer Science, Fudan University (2016); MBA coursework at CEIBS, part time."),
        (
            "当前项目",
            "正在负责“记忆助手”项目：让用户把会议纪要、待办和日程自动整理成可以搜索的个人记忆，并且只在用户"
            "确认以后才分享给外部 AI 助手。团队有四个工程师、一个设计师和一个数据分析师，每两周一个迭代，"
            "下个里程碑是六月底的公开测试版，重点是搜索质量、隐私说明和移动端体验。目前最大的风险是中文搜索的"
            "召回率和长文本的处理速度，已经和工程师约好每周三下午一起看数据。另外还在准备一份给法务同事的隐私"
            "说明草稿，解释哪些信息会被保存、保存多久、用户如何删除，以及外部助手能看到什么、不能看到什么。",
        ),
        ("Tools", "Linear for issues, Figma for design reviews, Notion for specs, Obsidian for personal notes."),
        ("工作方式", "喜欢先写文档再开会；会议没有议程就不参加；重要决定会写成决策记录。"),
        (
            "What my team should know",
            "I prefer async updates in writing, with a clear ask at the top. I answer messages in batches at "
            "10 am, 2 pm and 5 pm, so anything urgent should be a call. I will always ask why before how, and "
            "I am happy to be told I am wrong when there is data behind it. Friday afternoons are for reviews.",
        ),
        ("Skills", "Product discovery, SQL, basic Python, writing specs, running user interviews."),
        ("上过的课", "去年完成了 Coursera 的机器学习课程和一门用户研究方法的线下工作坊。"),
        (
            "做用户访谈的方法",
            "每个月至少访谈五位用户，每次四十五分钟，提前一周发邀请并说明会录音。访谈时只问过去发生过的具体"
            "事情，不问“你会不会用”这种假设问题；尽量让用户多说，自己少说，遇到有意思的地方就追问“当时为什么"
            "这么做”。访谈结束当天就把笔记整理好，标出原话和自己的推测，一周后和团队一起把所有访谈贴在白板上"
            "找共同的模式，再决定下一步要验证什么。",
        ),
        ("Side project", "A small open-source tool that turns meeting notes into todo lists."),
    ],
    "health": [
        ("过敏", "对青霉素过敏，对花粉轻度过敏，春天需要吃抗过敏药。"),
        ("Allergies", "Allergic to penicillin; mild hay fever in spring."),
        ("体检", "去年体检一切正常，维生素 D 偏低，医生建议每天补充并多晒太阳。"),
        ("Sleep", "Light sleeper; uses earplugs and blackout curtains."),
    ],
    "relationships": [
        ("好朋友", "大学室友陈晓和 Emily 是最好的朋友，每个月至少聚一次。"),
        ("Partner", "Dating Alex for three years; they met at a climbing gym."),
        ("同事", "和设计师王小明合作最多，经常一起讨论交互细节。"),
        ("Mentor", "Former manager Sarah, now at a design agency in Berlin; quarterly video calls."),
    ],
    "uncategorized": [
        ("猫", "橘猫“年糕”，四岁，喜欢趴在键盘上。"),
        ("Random", "Collects postcards from every city visited; about 140 so far."),
        ("车", "没有车，出行靠地铁和共享单车。"),
        ("Plants", "Balcony herbs: mint, basil and a slow-growing lemon tree."),
        ("身份证号", "11010519491231002X（只在医院挂号、办签证时需要）"),
    ],
}

# The person marked these sensitive themselves (SPEC D-1: "set by detection or by the user").
MARKED_SENSITIVE = frozenset({"过敏", "Allergies", "体检"})

# An assistant inferred these; the person has not confirmed them, so they are never shared (SPEC C-1).
GUESSES = frozenset({"Movies", "颜色", "Career", "Cooking", "Partner"})

EVIDENCE = {
    "zh": "和助手聊天时提到（示例数据）",
    "en": "Mentioned in a conversation with the assistant (demo data)",
}
