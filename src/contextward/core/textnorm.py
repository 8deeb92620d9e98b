"""Text normalisation for the facts verifier: tokens, term keys, stems, synonyms, segments.

Owns the one tokenizer that both item content and context go through, so a
word always becomes the same key on both sides: NFKC and lowercase, a light
English stemmer, a small synonym table, character bigrams for Chinese, and a
canonical form for numbers with units and currency. Also cuts text into
segments (sentences, long runs in bounded chunks) and segments into clauses.

Pure and deterministic; module-level tables are constants. The only state
is bounded ``lru_cache`` memos of pure functions, which never change a
result. Must never read files or raise on any string input.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache


def words(text: str) -> frozenset[str]:
    """The whitespace-separated words of a table written as one string."""
    return frozenset(text.split())


#: Weekday and month names: values (a date), not words.
WEEKDAYS_MONTHS = words(
    "monday tuesday wednesday thursday friday saturday sunday january february march april "
    "june july august september october november december 周一 周二 周三 周四 周五 周六 周日 "
    "星期一 星期二 星期三 星期四 星期五 星期六 星期日"
)

#: A value key: ``v:<number>`` for retrieval; the unit travels separately.
VALUE_PREFIX = "v:"

CJK_RANGE = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
_CJK_RE = re.compile(f"[{CJK_RANGE}]")
_DIGIT = re.compile(r"\d")

# Units after a number, longest first so "ms" is not read as "m" + "s".
_UNIT_WORDS: dict[str, str] = {
    "percent": "pct",
    "pct": "pct",
    "%": "pct",
    "百分点": "pct",
    "milliseconds": "ms",
    "millisecond": "ms",
    "ms": "ms",
    "毫秒": "ms",
    "seconds": "s",
    "second": "s",
    "secs": "s",
    "sec": "s",
    "s": "s",
    "秒": "s",
    "minutes": "min",
    "minute": "min",
    "mins": "min",
    "min": "min",
    "分钟": "min",
    "hours": "h",
    "hour": "h",
    "hrs": "h",
    "hr": "h",
    "h": "h",
    "小时": "h",
    "days": "day",
    "day": "day",
    "天": "day",
    "weeks": "week",
    "week": "week",
    "周": "week",
    "months": "month",
    "month": "month",
    "个月": "month",
    "years": "year",
    "year": "year",
    "年": "year",
    "kb": "kb",
    "mb": "mb",
    "gb": "gb",
    "tb": "tb",
    "dollars": "usd",
    "dollar": "usd",
    "usd": "usd",
    "美元": "usd",
    "euros": "eur",
    "euro": "eur",
    "eur": "eur",
    "欧元": "eur",
    "yuan": "cny",
    "rmb": "cny",
    "cny": "cny",
    "元": "cny",
    "块": "cny",
    "times": "times",
    "次": "times",
    "倍": "x",
    "lines": "lines",
    "行": "lines",
    "requests": "req",
    "rps": "rps",
    "users": "users",
    "个": "count",
    "人": "people",
    "workers": "workers",
    "retries": "retries",
    "items": "items",
}
_CURRENCY_SIGNS = {"$": "usd", "€": "eur", "£": "gbp", "¥": "cny"}
_UNIT_RE = "|".join(
    (re.escape(u) + (r"\b" if u.isascii() and u.isalpha() else ""))
    for u in sorted(_UNIT_WORDS, key=len, reverse=True)
)
_NUMBER = r"\d[\d,]*(?:[.:/-]\d+)*"

#: One token: currency amount, number (with unit), word/identifier/path, CJK run.
# Each pattern opens with a lookahead on its possible first characters: it lets
# the regex engine skip everything else quickly (about twice as fast here).
TOKEN_RE = re.compile(
    rf"(?=[$€£¥0-9a-z_/~.{CJK_RANGE}])(?:"
    rf"[$€£¥] ?{_NUMBER}(?: ?[kmb]\b)?"
    rf"|{_NUMBER}(?: ?(?:{_UNIT_RE}|k\b))?"
    r"|[a-z_/~.][a-z0-9_./~'-]*[a-z0-9_/]|[a-z_]"
    rf"|[{CJK_RANGE}]+)"
)

_STOP_WORDS = words(
    """a an the this that these those it its it's is are was were be been being am
    to of in on at by for from with as into onto upon about over under than then
    and or but so if else when while where which who whom whose what why how
    i me my we us our you your he him his she her they them their there here
    do does did done doing has have had having will would shall should can could may might must
    all any each every some such both either few more most other own same very too
    just also only even still yet already again now once up down out off
    not no nor never none because since therefore thus hence
    let lets get gets got via per etc eg ie actually instead rather
    one two three 's s t"""
)

# Words that carry polarity or modality: never content terms (they are cues).
_CUE_WORDS = words(
    """don't doesn't didn't won't isn't aren't wasn't weren't shouldn't mustn't can't couldn't
    wouldn't haven't hasn't hadn't cannot without neither nothing nobody
    forbidden forbid forbids prohibited prohibit prohibits banned ban disallowed disallow avoid avoids
    required require requires mandatory obligatory need needs needed necessary
    optional optionally allowed allow allows permitted permit fine okay ok acceptable
    sometimes occasionally preferably ideally recommended
    revoked revoke rescinded rescind lifted cancelled canceled cancel withdrawn retracted
    abandoned abandon reverted revert overridden superseded obsolete scrapped discarded withdrew
    dropped rejected reject declined longer anymore forget
    always"""
)

_SYNONYM_GROUPS: tuple[tuple[str, ...], ...] = (
    ("use", "utilize", "utilise", "employ", "adopt"),
    ("delete", "erase", "wipe"),
    ("start", "begin", "launch"),
    ("finish", "complete"),
    ("fix", "repair", "resolve"),
    ("change", "modify", "alter", "edit", "update"),
    ("check", "verify", "validate", "confirm"),
    ("run", "execute"),
    ("fast", "quick", "rapid"),
    ("large", "big", "huge"),
    ("small", "little", "tiny"),
    ("error", "failure", "fail", "fault"),
    ("bug", "defect"),
    ("repo", "repository"),
    ("database", "db"),
    ("config", "configuration", "settings", "setting"),
    ("doc", "docs", "documentation"),
    ("deploy", "release", "ship", "rollout"),
    ("limit", "cap", "ceiling", "maximum", "max"),
    ("budget", "spend", "spending"),
    ("keep", "retain", "preserve", "maintain"),
    ("store", "save", "persist"),
    ("show", "display"),
    ("folder", "directory", "dir"),
    ("prefer", "favor", "favour"),
    ("goal", "aim", "objective", "target"),
    ("task", "job"),
    ("issue", "problem"),
    ("invoke", "trigger"),
    ("fetch", "retrieve", "obtain"),
    ("build", "compile"),
    ("reply", "respond", "response", "answer"),
    ("timeout", "deadline"),
    ("name", "call", "title"),
    ("slow", "sluggish"),
    ("broken", "failing"),
    ("merge", "integrate"),
    ("customer", "client"),
)

# Chinese phrases folded to one spelling before bigrams are taken.
_ZH_SYNONYMS: dict[str, str] = {
    "采用": "使用",
    "选用": "使用",
    "运用": "使用",
    "移除": "删除",
    "去掉": "删除",
    "删掉": "删除",
    "修正": "修复",
    "解决": "修复",
    "封顶": "上限",
    "最高限额": "上限",
    "额度": "上限",
    "发布": "部署",
    "上线": "部署",
    "验证": "检查",
    "核对": "检查",
    "校验": "检查",
    "设置": "配置",
    "执行": "运行",
    "保存": "存储",
    "储存": "存储",
    "目的": "目标",
    "故障": "问题",
    "说明文档": "文档",
    "仓库": "代码库",
    "资料库": "数据库",
    "分支主干": "主分支",
}
_ZH_SYNONYM_RE = re.compile("|".join(sorted(map(re.escape, _ZH_SYNONYMS), key=len, reverse=True)))

#: Chinese cue phrases (polarity, modality, revocation, time markers): never terms.
ZH_CUES: frozenset[str] = words(
    """不 没 没有 别 勿 切勿 禁止 严禁 不得 不能 不可 不要 不准 不许 绝不 从不 永不 决不 避免 未 并非 无法
    必须 务必 一定要 一定 始终 总是 永远 须 需要 要求 必需 应当 应该 应
    可以 允许 可选 随意 也行 也可以 不必 无需 不需要 不用 酌情 视情况 尽量 最好 可自行
    取消 撤销 撤回 废除 作废 不再 失效 解除 推翻 放弃 否决 已取消 已撤销
    原为 原来 原先 原本 之前 以前 此前 曾经 曾 旧 从 改为 调整为 改成 变为 变成 提高到 降低到 提高至 降至 升至
    现在 目前 现为 已经 已 没问题 没关系 无所谓 别忘了 别忘记 不要忘了 不要忘记 记得 记住"""
)
# Compounds that contain a cue character but are not cues.
ZH_NOT_CUES = (
    *sorted(
        words("不错 不断 不仅 不过 不少 不同 不久 不管 无论 非常 未来 从而 从事 自从 一定程度")
    ),
    *sorted(words("应用 响应 对应 相应 适应 反应 供应 别的 区别 分别 特别 类别 级别 识别 已知")),
)
ZH_CUE_RE = re.compile(
    "|".join(map(re.escape, sorted((*ZH_CUES, *ZH_NOT_CUES), key=len, reverse=True)))
)
#: Chinese weekdays: values, cut out of a run like cue phrases so both sides split alike.
ZH_WEEKDAY_RE = re.compile("(?:周|星期|礼拜)[一二三四五六日天]")
ZH_SPLIT_RE = re.compile(f"{ZH_WEEKDAY_RE.pattern}|{ZH_CUE_RE.pattern}")
_ZH_STOP_CHARS = frozenset("的了是在和与及把被也都就还而并或但要这那我们你他它之其着")


def normalize(text: str, *, lower: bool = True) -> str:
    """NFKC, curly quotes to straight, Chinese numerals as digits, lowercase: the form
    every comparison uses."""
    text = arabic(nfkc(text).replace("\u2019", "'").replace("\u2018", "'"))
    return text.lower() if lower else text


_ZH_DIGITS = {"零": 0, "一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7}
_ZH_DIGITS |= {"八": 8, "九": 9}
_ZH_UNITS = {"十": 10, "百": 100, "千": 1000}
_ZH_LARGE = {"万": 10_000, "亿": 100_000_000}
_ZH_RUN = "[零一二两三四五六七八九十百千万亿]{2,}"
#: A run of Chinese numeral characters, or digits scaled by 万 / 亿 ("2万", "1.5亿").
# The leading lookahead, as in TOKEN_RE, lets the engine skip other characters quickly.
_ZH_NUMERAL = re.compile(
    rf"(?=[\d零一二两三四五六七八九十百千万亿])(?:(?<![\d.])(\d+(?:\.\d+)?)\s?([万亿])(?!一)|{_ZH_RUN})"
)
#: The same without 万 and 亿 in the text, where only a run can match: no digit is tried.
_ZH_NUMERAL_RUN = re.compile(_ZH_RUN)


def _numeral(run: str) -> int | None:
    """The value of a Chinese numeral ("两万" 20000, "三百五" 350, "一万二" 12000), or
    None for a run that is not one: a digit and a unit are both needed, and a run
    opening with a unit is a word ("千万" is "by all means", "万一" "in case")."""
    if run[0] in "千万亿" or not any(c in _ZH_DIGITS for c in run):
        return None
    if not any(c in _ZH_UNITS or c in _ZH_LARGE for c in run):
        return None
    total = section = digit = 0
    unit = 1  # the last unit read: a digit after it counts in the next unit down
    for char in run:
        if char in _ZH_DIGITS:
            digit = _ZH_DIGITS[char]
        elif char in _ZH_UNITS:
            unit = _ZH_UNITS[char]
            section += (digit or 1) * unit
            digit = 0
        else:
            unit = _ZH_LARGE[char]
            total = (
                (total + section + digit) * unit
                if total < unit
                else total + (section + digit) * unit
            )
            section = digit = 0
    if digit and run[-2] not in _ZH_DIGITS and unit >= 100:
        digit *= unit // 10  # 三百五, 一万二: the digit counts in the next unit down
    return total + section + digit


def _digits_for(match: re.Match[str]) -> str:
    if match.lastindex:  # digits scaled by 万 / 亿
        scaled = float(match.group(1)) * _ZH_LARGE[match.group(2)]
        return str(int(scaled)) if scaled.is_integer() else match.group()
    value = _numeral(match.group())
    return match.group() if value is None else str(value)


# One Chinese digit before a measure word or unit ("五秒", "三次", "两个"): a count. "一"
# is left alone ("一个问题" is "a problem", no count a summary must repeat), and so is
# 十分 ("very"; "十分钟" is ten minutes).
_ZH_NUMERAL_CHAR = re.compile("[零一二两三四五六七八九十百千万亿]")
_ZH_COUNT = re.compile(
    # The digit first, then a look back past it at the character before (as fast as a
    # search for the digit alone, where a leading look-behind is tried at every position).
    r"([二两三四五六七八九十])(?<![零一二两三四五六七八九十百千万亿\d].)"
    r"(?=[秒次个小天元块条行台倍周年位名人副]|分钟)"
)


def arabic(text: str) -> str:
    """``text`` with Chinese numerals written in digits ("两万行" -> "20000行", "2万" ->
    "20000", "五秒" -> "5秒"), so a value reads the same in either script. Words made of
    numeral characters ("千万", "万一", "统一", "十分") are left alone."""
    if text.isascii() or not _ZH_NUMERAL_CHAR.search(text):
        return text
    # No search first: one pass of ``sub`` is as cheap as one of ``search`` when nothing
    # matches, and half the cost when something does.
    numeral = _ZH_NUMERAL if "万" in text or "亿" in text else _ZH_NUMERAL_RUN
    text = numeral.sub(_digits_for, text)
    text = _ZH_COUNT.sub(lambda m: str(_ZH_DIGITS.get(m.group(1)) or _ZH_UNITS["十"]), text)
    return text


def nfkc(text: str) -> str:
    """NFKC form; the cheap check first, since most text already is."""
    if unicodedata.is_normalized("NFKC", text):
        return text
    if "\n" not in text:
        return unicodedata.normalize("NFKC", text)
    # A line break is a starter that composes with nothing, so lines normalise alone: of a
    # long context (mostly English with some Chinese punctuation) only the lines that need
    # it are rebuilt, the others just checked (1 MB: 14 ms instead of 26 ms).
    return "\n".join(
        line if unicodedata.is_normalized("NFKC", line) else unicodedata.normalize("NFKC", line)
        for line in text.split("\n")
    )


def _base_stem(word: str) -> str:
    if len(word) <= 3:
        return word
    if word.endswith(("ies", "ied")) and len(word) > 4:
        word = word[:-3] + "y"
    elif word.endswith("sses") or (
        word.endswith("es") and (word[-3] in "sxz" or word[-4:-2] in ("ch", "sh"))
    ):
        word = word[:-2]
    elif word.endswith("s") and not word.endswith(("ss", "us", "is")):
        word = word[:-1]
    for suffix in ("ing", "ed"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            word = word[: -len(suffix)]
            if len(word) > 3 and word[-1] == word[-2] and word[-1] not in "lsz":
                word = word[:-1]
            break
    if word.endswith("ment") and len(word) > 7:
        word = word[:-4]
    if word.endswith("ly") and len(word) > 5:
        word = word[:-2]
    if word.endswith("e") and len(word) > 3:
        word = word[:-1]
    return word


_SYNONYMS: dict[str, str] = {
    _base_stem(word): _base_stem(group[0]) for group in _SYNONYM_GROUPS for word in group
}


def stem(word: str) -> str:
    """A light suffix stemmer with the synonym table applied: ``stored`` -> ``stor``."""
    base = _base_stem(word)
    return _SYNONYMS.get(base, base)


def value_key(number: str) -> str:
    """Canonical number text: digit-group commas dropped, trailing ``.0`` kept as written."""
    return number.replace(",", "")


@lru_cache(maxsize=65536)
def parse_value(token: str) -> tuple[str, str] | None:
    """``(number, unit)`` for a currency or number token (``"$5k"`` -> ``("5000", "usd")``)."""
    unit = ""
    text = token
    if text[0] in _CURRENCY_SIGNS:
        unit = _CURRENCY_SIGNS[text[0]]
        text = text[1:].lstrip()
    match = re.match(_NUMBER, text)
    if match is None:
        return None
    number = value_key(match.group())
    rest = text[match.end() :].strip()
    if rest in ("k", "m", "b") and re.fullmatch(r"\d+(?:\.\d+)?", number):
        scale = {"k": 1_000, "m": 1_000_000, "b": 1_000_000_000}[rest]
        scaled = float(number) * scale
        number = str(int(scaled)) if scaled.is_integer() else str(scaled)
    elif rest:
        unit = _UNIT_WORDS.get(rest, unit or rest)
    return number, unit


@lru_cache(maxsize=262144)
def token_keys(token: str) -> tuple[str, ...]:
    """The term keys one normalised token contributes (none for stop and cue words)."""
    first = token[0]
    if first.isdigit() or first in _CURRENCY_SIGNS:
        value = parse_value(token)
        return (VALUE_PREFIX + value[0],) if value else ()
    if _CJK_RE.match(first):
        return cjk_keys(token)
    if token in WEEKDAYS_MONTHS:
        return (VALUE_PREFIX + token,)
    word_kind = classify_word(token)
    if word_kind in ("path", "identifier"):
        return (token.rstrip("./"),)
    if "-" in token or "/" in token or "." in token:
        return tuple(key for part in re.split(r"[-/.]", token) if part for key in token_keys(part))
    if token.endswith("'s"):
        token = token[:-2]
    if token in _STOP_WORDS or token in _CUE_WORDS or "'" in token:
        return ()
    return (stem(token),)


@lru_cache(maxsize=262144)
def classify_word(token: str) -> str:
    """``path``, ``identifier`` or ``word`` for a lowercase word-like token."""
    if "/" in token:
        if token.startswith(("/", "./", "~/", "../")) or token.count("/") >= 2 or "." in token:
            return "path"
        return "word"
    stripped = token.strip(".")
    if "_" in stripped or _DIGIT.search(stripped):
        return "identifier"
    if "." in stripped and re.fullmatch(r"[a-z][a-z0-9]*(?:\.[a-z0-9]+)+", stripped):
        return "identifier"
    return "word"


#: Measure words (classifiers). A classifier before its noun changes nothing a
#: summary must repeat: "加个开关", "加一个开关" and "加开关" all add a switch.
_ZH_MEASURES = "个些条项种次件份位张台套"
#: Where a measure character opens a word of its own ("个人", "条件", "项目", "次数").
_ZH_MEASURE_WORDS = words(
    "个人 个别 个性 个体 个子 个案 个数 个位 个月 个小 些许 些微 条件 条款 条例 条目 条理 项目 项链 "
    "种类 种子 种植 次数 次要 次序 次日 次级 次性 件数 份额 位置 位于 张贴 台阶 套餐"
)
# A classifier counts as one only before its noun (another Chinese character, no word
# of its own) and after what takes one: "一" (not the ordinal "第一"), a demonstrative,
# or, for 个 and 些 alone, any other character ("加个开关", "写些测试"); 条, 项, 种, 次
# after other characters are words' ends ("进度条", "选项", "各种", "其次"). A count in
# other digits ("两个" is "2个") is a value, read before this.
_ZH_MEASURE_CHARS = re.compile(f"[{_ZH_MEASURES}]")
_ZH_MEASURE_RE = re.compile(
    rf"(?:(?<!第)一[{_ZH_MEASURES}]|(?<=[这那哪每某几])[{_ZH_MEASURES}]|(?<=[{CJK_RANGE}])[个些])"
    rf"(?=[{CJK_RANGE}])"
)


def _unmeasured(run: str) -> str:
    """``run`` without the classifiers before its nouns."""

    def fold(match: re.Match[str]) -> str:
        end = match.end()
        return match.group() if run[end - 1 : end + 1] in _ZH_MEASURE_WORDS else ""

    return _ZH_MEASURE_RE.sub(fold, run)


@lru_cache(maxsize=65536)
def cjk_keys(run: str) -> tuple[str, ...]:
    """Character bigrams of a Chinese run after synonym folding, cue phrases cut out."""
    run = _ZH_SYNONYM_RE.sub(lambda m: _ZH_SYNONYMS[m.group()], run)
    if _ZH_MEASURE_CHARS.search(run):
        run = _unmeasured(run)
    keys = [VALUE_PREFIX + day for day in ZH_WEEKDAY_RE.findall(run)]
    for piece in _split_cues(run):
        if len(piece) == 1:
            if piece not in _ZH_STOP_CHARS:
                keys.append(piece)
            continue
        for index in range(len(piece) - 1):
            gram = piece[index : index + 2]
            if gram[0] not in _ZH_STOP_CHARS and gram[1] not in _ZH_STOP_CHARS:
                keys.append(gram)
    return tuple(keys)


def _split_cues(run: str) -> list[str]:
    pieces: list[str] = []
    last = 0
    for match in ZH_SPLIT_RE.finditer(run):
        if match.group() in ZH_NOT_CUES:
            continue
        pieces.append(run[last : match.start()])
        last = match.end()
    pieces.append(run[last:])
    return [piece for piece in pieces if piece]


def keys_of(text: str) -> list[str]:
    """Term keys of ``text`` in order (``text`` already normalised)."""
    return [key for token in TOKEN_RE.findall(text) for key in token_keys(token)]


# Sentence ends: terminal punctuation before space, Chinese terminals, blank
# lines and the start of a list item or heading. A single newline is a wrap.
# The pattern opens with the ending character itself and looks back at it to pick the
# kind of end: a leading character class lets the engine skip to candidates, where a
# leading lookahead is tried at every position (segments of 1 MB: three times faster).
# Groups 1 and 2 hold what follows the ending character and stays with the sentence.
# Closing Markdown ("~~Use Redis.~~ Set …", "**Never push.** Then …") stays with its
# sentence: the next one must not open with a strike's closing "~~".
_SENTENCE_END = re.compile(
    r"[.!?。！？\n](?:(?<=[.!?])([\"')\]~*_]*)\s+|(?<=[。！？])([。！？]*[」』”）)]*)\s*"
    r"|(?<=\n)\s*\n|(?<=\n)(?=[ \t]*(?:[-*•+>#]|\d+[.)])\s))"
)
#: Longest segment before a long run of text is cut into chunks.
MAX_SEGMENT_CHARS = 480


def segments(text: str) -> list[str]:
    """Sentences of ``text`` (ending punctuation kept); long ones are cut at spaces."""
    out: list[str] = []
    last = 0
    for end in _SENTENCE_END.finditer(text):
        # Ending punctuation stays with its sentence; the space after it, or a newline, goes.
        _keep(text[last : end.end(end.lastindex) if end.lastindex else end.start()], out)
        last = end.end()
    _keep(text[last:], out)
    if "~~" in text:
        _close_strikes(out)
    return out


def _close_strikes(out: list[str]) -> None:
    """Each segment holds whole strikes: a strike a segment opens and a later one (at most
    three on) closes is closed at the end of the one and opened again at the start of the
    others ("~~Use Redis. Cache for 5 minutes.~~" strikes both sentences), and a closing
    "~~" a segment opens with goes back to the one before ("~~不要推到 main。~~超时设成
    5 秒。", with no space after "。~~" to end a sentence at, strikes the first only). A
    "~~" that nothing closes strikes nothing, as before."""
    n = 0
    while n < len(out):
        if out[n].count("~~") % 2:
            close = next((m for m in range(n + 1, min(n + 4, len(out))) if "~~" in out[m]), None)
            if close is not None and out[close].count("~~") % 2:
                out[n] += "~~"
                for m in range(n + 1, close):
                    out[m] = f"~~{out[m]}~~"
                if out[close].startswith("~~"):
                    out[close] = out[close][2:].lstrip()
                else:
                    out[close] = "~~" + out[close]
                n = close
                continue
        n += 1
    out[:] = [piece for piece in out if piece and not piece.isspace()]


def _keep(piece: str, out: list[str]) -> None:
    if len(piece) > MAX_SEGMENT_CHARS:
        _chunk(piece, 0, len(piece), out)
    elif piece and not piece.isspace():
        out.append(piece)


def _chunk(text: str, start: int, end: int, out: list[str]) -> None:
    while end - start > MAX_SEGMENT_CHARS:
        cut = text.rfind(" ", start + MAX_SEGMENT_CHARS // 2, start + MAX_SEGMENT_CHARS)
        if cut <= start:
            cut = start + MAX_SEGMENT_CHARS
        piece = text[start:cut]
        if not piece.isspace():
            out.append(piece)
        start = cut
    piece = text[start:end]
    if piece and not piece.isspace():
        out.append(piece)


CLAUSE_END = re.compile(
    r"(?=[,:;()\[\]—–\s，；：、（）bhwat但不然])"  # the first characters, as in TOKEN_RE
    r"(?:(?:(?<!\d),|,(?!\d)|(?<!\d):|:(?![\d/])|[;()\[\]—–])\s*|\s-\s|[，；：、（）]"
    r"|\b(?:but|however|whereas|although|though)\b|但是|不过|然而)"
)


def clause_spans(text: str) -> list[tuple[int, int]]:
    """``(start, end)`` of the clauses of a segment: cut at commas, semicolons, contrast words."""
    spans: list[tuple[int, int]] = []
    last = 0
    for match in CLAUSE_END.finditer(text):
        if match.start() > last:
            spans.append((last, match.start()))
        last = match.end()
    if last < len(text):
        spans.append((last, len(text)))
    return [(start, end) for start, end in spans if not text[start:end].isspace()]
