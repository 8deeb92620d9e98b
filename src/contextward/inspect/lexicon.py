"""The English and Chinese cues that signal each kind of memory.

Every pattern is lowercase and must be matched against lowercased text
(``IDENTIFIER`` excepted: it reads case).

Owns only patterns (data). The classifier decides what a match means, by
role and position; nothing here looks at roles.
"""

from __future__ import annotations

import re
from functools import reduce
from operator import or_
from typing import Any

from . import prefilter

try:  # the parser behind ``re`` (CPython 3.11+); without it no look-ahead is added
    from re import _constants as _sre  # type: ignore[attr-defined]
    from re import _parser  # type: ignore[attr-defined]
except ImportError:  # pragma: no cover - another Python implementation
    _parser = None

#: Fullwidth Latin letters, digits and "％" as typed with a Chinese input method in
#: fullwidth mode ("超时设成５秒", "ｎｅｖｅｒ push"), read as their ASCII forms. One
#: character for one, so offsets hold; fullwidth punctuation ("，", "：") is left alone,
#: the patterns know it.
_WIDE = {
    **{0xFF10 + n: 0x30 + n for n in range(10)},
    **{0xFF21 + n: 0x41 + n for n in range(26)},
    **{0xFF41 + n: 0x61 + n for n in range(26)},
    0xFF05: 0x25,
}


_WIDE_CHAR = re.compile("[\uff05\uff10-\uff19\uff21-\uff3a\uff41-\uff5a]")


def narrow(text: str) -> str:
    """``text`` with fullwidth letters, digits and percent signs read as ASCII."""
    if text.isascii() or not _WIDE_CHAR.search(text):
        return text  # most text: no copy
    return text.translate(_WIDE)


def _re(pattern: str) -> re.Pattern[str]:
    # Compiled case-sensitive and matched against lowercased text: much faster than re.I.
    return re.compile(pattern)


def _scanned(pattern: str) -> re.Pattern[str]:
    """``pattern`` compiled behind a look-ahead for the characters its matches start with
    (``_first_characters``): re then passes over a position with one test instead of
    trying every alternative there. The same matches, spans and groups."""
    starts = _first_characters(pattern)
    if not starts:
        return _re(pattern)
    chars = "".join(
        re.escape(chr(lo)) if lo == hi else f"{re.escape(chr(lo))}-{re.escape(chr(hi))}"
        for lo, hi in sorted(starts)
    )
    return _re(f"(?=[{chars}])(?:{pattern})")


def _first_characters(pattern: str) -> set[tuple[int, int]] | None:
    """The ranges of the characters every match of ``pattern`` starts with, read from its
    syntax, when re does not skip ahead by them itself (a pattern that starts with
    ``\\b`` gets no such prefix from re); None when re does, or they cannot be told."""
    if _parser is None:
        return None
    try:
        parsed = _parser.parse(pattern)
    except re.error:
        return None
    items = list(parsed)
    if parsed.state.flags & ~_sre.SRE_FLAG_UNICODE or _prefixed(items):
        return None
    return _starts(items)


def _prefixed(items: list[Any]) -> bool:
    """Whether re skips ahead by the pattern's first character itself (a literal, a class,
    or alternatives that each start with a literal)."""
    while items and items[0][0] is _sre.SUBPATTERN:
        items = list(items[0][1][3])
    if not items:
        return False
    op, arg = items[0]
    if op is _sre.LITERAL or op is _sre.IN:
        return True
    return op is _sre.BRANCH and all(b and b[0][0] is _sre.LITERAL for b in arg[1])


def _starts(items: list[Any]) -> set[tuple[int, int]] | None:
    """The ranges of the characters every match of ``items`` starts with; None when that
    cannot be told (a match may start with any character, or be empty)."""
    for op, arg in items:
        if op is _sre.AT:
            continue  # zero width: the next item starts the match
        if op is _sre.LITERAL:
            return {(arg, arg)}
        if op is _sre.IN:
            ranges: set[tuple[int, int]] = set()
            for kind, value in arg:
                if kind is _sre.LITERAL:
                    ranges.add((value, value))
                elif kind is _sre.RANGE:
                    ranges.add(value)
                else:
                    return None  # a category ("\\w"), a negated class
            return ranges
        if op is _sre.SUBPATTERN:
            return None if arg[1] or arg[2] else _starts(list(arg[3]))
        if op is _sre.BRANCH:
            union: set[tuple[int, int]] = set()
            for branch in arg[1]:
                found = _starts(list(branch))
                if found is None:
                    return None
                union |= found
            return union
        if op is _sre.MAX_REPEAT or op is _sre.MIN_REPEAT:
            return _starts(list(arg[2])) if arg[0] >= 1 else None
        return None
    return None


#: Every pattern part has a bit: the parts a text may hold are the bits of an int (``live``).
#: A part that needs no token has ``_ANY``, which every text holds; a text not focused
#: holds every bit (``_ALL``), so there every part is tried.
_ANY = 1
_ALL = -1
#: The text being classified and the bits of the parts it may hold (``focus``), replaced
#: whole.
_focused: list[tuple[str, int]] = [("", _ALL)]
#: Cues whose needed tokens are not read yet: read on the first ``focus``, not on import.
_unread: list[_Cue | _Gated] = []
#: Each token, and the bits of the parts that need it (``_bit``): the parts a text may
#: hold are found with one look-up per token it holds, not one test per part.
_NEEDED_BY: dict[str, int] = {}
#: The tokens that are one character (a Chinese character, a capital) and not the head of
#: a lowercase run: a text's are found by one set intersection.
_CHARS: set[str] = set()
#: A run of lowercase letters, its head (its first ``prefilter.HEAD`` letters) grouped:
#: ``prefilter.tokens`` without the one-character tokens, and without a look-behind tried
#: at every letter.
_HEADS = re.compile(rf"([a-z]{{1,{prefilter.HEAD}}})[a-z]*")
_bits = [_ANY]  # the last bit given


def _bit(needs: frozenset[str] | None) -> int:
    """A part's bit, set in ``_NEEDED_BY`` under each token it needs; ``_ANY`` when it
    needs none (tried on any text)."""
    if needs is None:
        return _ANY
    _bits[0] <<= 1
    bit = _bits[0]
    for token in needs:
        _NEEDED_BY[token] = _NEEDED_BY.get(token, 0) | bit
        if not _HEADS.fullmatch(token):
            _CHARS.add(token)
    return bit


#: How many units are classified before the cues' needed tokens are read: reading them
#: costs about 35 ms once and saves about 13 µs a unit, so a short inspection (a small
#: file on the command line, a short session's PreCompact) searches every cue as before.
FOCUS_AFTER = 2000
_unfocused = [0]


def prepare() -> None:
    """Read the tokens every cue needs now (``focus`` does after ``FOCUS_AFTER`` units)."""
    for cue in tuple(_unread):
        cue.read_needs()
    _unread.clear()


def focus(low: str) -> None:
    """Make ``low`` the text about to be searched for many cues: its tokens are found once,
    and a cue (or a part of one) that needs a token it lacks is not tried on it at all
    (``prefilter``). Any other text is searched as it is."""
    if _unread:
        _unfocused[0] += 1
        if _unfocused[0] <= FOCUS_AFTER:
            return  # every cue is searched: the same matches, without the fixed cost
        prepare()
    _focused[0] = (low, _live(low))


def _live(text: str) -> int:
    """The bits of the parts ``text`` may hold: those of the tokens it holds."""
    tokens = _HEADS.findall(text)
    if not (text.isascii() and text.islower()):  # it may hold a capital or a Chinese character
        tokens += _CHARS.intersection(text)
    return reduce(or_, map(_NEEDED_BY.__getitem__, _NEEDED_BY.keys() & tokens), _ANY)


class _Cue:
    """A cue pattern split by script, for speed: its Latin alternatives, tried on all
    text, and its Chinese ones, each of which needs a Chinese character, tried only on
    text that is not ASCII (``str.isascii`` is O(1)). In one alternation, English text
    pays for every Chinese branch at every position; apart, it skips them all. On the
    focused text (``focus``) a part is not tried at all when the text lacks every token
    it needs.

    A test, as ``_StartOrAnywhere`` is: ``search`` and ``match`` find a match whenever
    the whole alternation would, not always the same one. ``sub`` is the whole's."""

    __slots__ = (
        "_chinese",
        "_chinese_bit",
        "_chinese_needs",
        "_latin",
        "_latin_bit",
        "_latin_needs",
        "_whole",
    )

    def __init__(self, latin: str, chinese: str) -> None:
        self._latin = _scanned(latin)
        self._chinese = _scanned(chinese)
        self._whole: re.Pattern[str] | str = f"{latin}|{chinese}"  # compiled by ``whole``
        self._latin_needs: frozenset[str] | None = None  # None: tried on any text
        self._chinese_needs: frozenset[str] | None = None
        self._latin_bit = _ANY  # the parts' bits (``_bit``)
        self._chinese_bit = _ANY
        _unread.append(self)

    def read_needs(self) -> None:
        self._latin_needs = prefilter.needs(self._latin)
        self._chinese_needs = prefilter.needs(self._chinese)
        self._latin_bit = _bit(self._latin_needs)
        self._chinese_bit = _bit(self._chinese_needs)

    def search(self, text: str) -> re.Match[str] | None:
        focused, live = _focused[0]  # one read: another thread may focus another text
        if focused is not text:
            live = _ALL
        if live & self._latin_bit:
            found = self._latin.search(text)
            if found is not None:
                return found
        if text.isascii() or not live & self._chinese_bit:
            return None
        return self._chinese.search(text)

    def match(self, text: str) -> re.Match[str] | None:
        # A match is a search's match too: what a search needs, a match needs.
        focused, live = _focused[0]
        if focused is not text:
            live = _ALL
        if live & self._latin_bit:
            found = self._latin.match(text)
            if found is not None:
                return found
        if text.isascii() or not live & self._chinese_bit:
            return None
        return self._chinese.match(text)

    def sub(self, repl: str, text: str) -> str:
        # ASCII text holds no match of the Chinese part: the Latin part replaces alike.
        return (self._latin if text.isascii() else self.whole()).sub(repl, text)

    def whole(self) -> re.Pattern[str]:
        """The Latin and the Chinese alternatives in one pattern, compiled on first use: only
        a ``sub`` of text that is not ASCII needs it, and most cues never take one."""
        if isinstance(self._whole, str):
            self._whole = _re(self._whole)
        return self._whole


class _Gated:
    """A pattern not tried on the focused text when it lacks every token the pattern needs."""

    __slots__ = ("_match_bit", "_needs_bit", "_pattern")

    def __init__(self, pattern: str) -> None:
        self._pattern = _re(pattern)
        # Bits (``_bit``) of what a match needs, searched for or matched at the start.
        self._needs_bit = _ANY
        self._match_bit = _ANY
        _unread.append(self)

    def read_needs(self) -> None:
        self._needs_bit = _bit(prefilter.needs(self._pattern))
        self._match_bit = _bit(prefilter.needs(self._pattern, anchored=True))

    def excludes(self, text: str) -> bool:
        """Whether ``text``, focused, lacks every token a match needs (``match`` or ``search``)."""
        focused, live = _focused[0]
        return focused is text and not live & self._needs_bit

    def search(self, text: str) -> re.Match[str] | None:
        focused, live = _focused[0]
        if focused is text and not live & self._needs_bit:
            return None
        return self._pattern.search(text)

    def match(self, text: str) -> re.Match[str] | None:
        focused, live = _focused[0]
        if focused is text and not live & self._match_bit:
            return None
        return self._pattern.match(text)


class _StartOrAnywhere:
    """A cue set split for speed: alternatives anchored at the start (tried once, with
    ``match``), the ones that may occur anywhere (a ``_Cue``), and costly start-anchored
    ones tried only when the text contains a word they need. One ``search`` over a big
    alternation with ``^`` branches retries every branch at every position, which is slow."""

    __slots__ = ("_anywhere", "_ascii", "_gated", "_start")

    def __init__(
        self, start: str, anywhere: _Cue, gated: tuple[tuple[tuple[str, ...], str], ...] = ()
    ) -> None:
        self._start = _Gated(start)
        self._anywhere = anywhere
        # Each gate's words as one pattern: one scan of the text instead of one per word.
        self._gated = tuple(
            (_re("|".join(map(re.escape, needles))), _Gated(pattern)) for needles, pattern in gated
        )
        # Gates whose words are all ASCII: the only ones ASCII text can open.
        self._ascii = tuple(g for g in self._gated if g[0].pattern.isascii())

    def search(self, text: str) -> re.Match[str] | None:
        found = self._start.match(text) or self._anywhere.search(text)
        if found:
            return found
        # str.isascii is O(1): most English text skips the Chinese gates without a scan.
        for needles, pattern in self._ascii if text.isascii() else self._gated:
            if not pattern.excludes(text) and needles.search(text):
                found = pattern.match(text)
                if found:
                    return found
        return None


#: ``Label: text`` prefixes, the strongest signal there is.
LABELS: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (kind, _re(rf"^\W{{0,3}}(?:{words})\W{{0,3}}\s*[:：]"))
    for kind, words in (
        ("goal", r"goal|goals|objective|aim|mission|目标|目的"),
        (
            "constraint",
            r"constraint|constraints|hard rule|rule|rules|restriction|约束|限制|规则|红线",
        ),
        ("decision", r"decision|decided|final decision|final choice|决定|决策|结论|选型"),
        ("rejected", r"rejected|dropped|abandoned|ruled out|failed attempt|放弃|弃用|否决"),
        (
            "todo",
            r"todo|to do|to-do|next|next steps?|still open|open|open items?|pending|remaining|follow[- ]?ups?|待办|下一步|未完成|遗留",
        ),
        ("state", r"status|state|progress|current state|done so far|现状|状态|进度|当前进展"),
        ("preference", r"preference|preferences|style|偏好|风格"),
        ("requirement", r"requirement|requirements|acceptance criteria|spec|需求|要求|验收标准"),
        ("correction", r"correction|更正|纠正"),
        ("risk", r"risk|risks|warning|caution|careful|watch out|heads up|风险|警告|注意|小心"),
        ("lesson", r"lesson|lessons|learned|gotcha|教训|经验"),
        ("fact", r"fyi|note|facts?|context|备注|背景"),
    )
)

#: Any ``Label:`` prefix at all; most units have none, so this spares the loop.
LABEL_ANY = _re("|".join(f"(?:{label.pattern})" for _, label in LABELS))

_ACK_WORD = (
    r"(?:ok(?:ay)?|noted|understood|got it|thanks?(?: you)?|thx|sure|great|good|nice|cool|perfect|hm+|"
    r"done|yes|yep|yeah|no problem|will do|on it|sounds good|lgtm|looks good(?: to me)?|makes sense|"
    r"right|agreed|alright|all right|great,? thanks?(?: you)?|hi|hello|hey|mostly yes|ok for most|(?:good )?(?:morning|afternoon|evening)|that'?s all(?: for (?:now|today))?|"
    r"thanks,? that'?s all(?: for (?:now|today))?|this (?:one )?is fine|"
    r"keep going|continue|carry on|go on|proceed|go ahead|please continue|继续吧?|"
    r"这个可以|可以的|就这样|"
    r"好的?|收到|明白了?|了解|谢谢|行|可以|没问题|好滴|嗯|对|是的|你好|早上好|早)"
)
#: One acknowledgement or a few in a row ("ok, carry on", "thanks, that's all").
ACK = _re(rf"^{_ACK_WORD}(?:[\s.!,，。！~…]+{_ACK_WORD})*[\s.!,，。！~…]*$")
#: A bare "Wait." or "hold on": a pause; what it takes back, if anything, comes after it.
HOLD = _re(
    r"^\W*(?:(?:hm+|ok(?:ay)?|oh|ah|no|wait|hold on|hang on|one sec(?:ond)?|等一下|等下|等等|稍等)\W*)*"
    r"(?:wait|hold on|hang on|one sec(?:ond)?|等一下|等下|等等|稍等)\W*$"
)


CORRECTION = _StartOrAnywhere(
    # "hm ok then forget the split", "ugh. forget partman": an interjection may lead in.
    r"(?:(?:hm+|ok(?:ay)?|ugh|oh|ah|yeah|so|then|well)[.,!]?\s+)*"
    r"(?:(?:no\s*[—–-]|no[.,]\s|no,? wait\b|wait\s*[,.!—–-]|(?:ok(?:ay)?|oh|hmm|ah),?\s+(?:wait|no)\b|no no\b)|(?:actually|correction|sorry|oops|nope|hmm,? (?:actually|rather|no)|"
    r"scratch [`\w]+|forget (?!to\b|it'?s\b)[`\w]+|never ?mind|i changed my mind|on reflection|"
    r"on second thoughts?|thinking about it (?:more|again)|having thought about it|change of plans?|"
    r"to clarify|i was wrong|i misspoke|my (?:mistake|bad)|let me correct|change of plan|on second thought)\b|"
    r"wrong (?:\w+ ){0,2}[—–,:-]|"
    r"(?:make|change) (?:it|that|this|them)(?: to)? [~≈]?\d|"
    r"(?:更正|纠正|其实|不对|不行|不用|不，|说错了|我说错了|搞错了|改一下|等一下|等下|等等|改主意|算了))",
    _Cue(
        # One \b for both words' alternatives: re tests it once per position.
        r"\b(?:(?:i meant|that'?s (?:wrong|incorrect|not right|not what i)|i misremembered|"
        r"i misread|i got (?:that|it) wrong)\b|"
        # "make monthly $12 actually": the word that takes it back may come last.
        r"actually\s*(?:[,.;!—–]|$))|,? though\s*[?.!]*$",
        r"应该是|我的意思是|用回|改回|换回|记错了|看错了|说反了|[，,][^，,。！？!?]{0,12}其实",
    ),
    (
        (("but",), r".{0,30}\b(?:good|nice|great|fine|sense|works|right)[,!.]?\s+but\b"),
        (
            ("不过", "但", "只是"),
            r".{0,12}(?:挺好|不错|可以|没问题)的?[，,]\s*(?:不过|但是|但|只是)",
        ),
        (("了",), r"\S{0,10}(?:先|就|也)?(?:别|不用|不要|不)[^，,。]{1,16}?了\s*[，,]"),
        # "按权重随机不行，…": the approach named, then turned down.
        (("不行",), r"[^，,。！!？?]{1,16}不行[，,。！!]"),
        # "nvenc 算了，GPU 只有两台": the approach named, then dropped.
        (("算了",), r"[^，,。！!？?]{1,16}算了[，,。！!]"),
        (("不是",), r"\S{0,12}不是\s*[^。，,\s]{1,20}\s*[，,][^。，,]{0,16}?(?:是|在|用|改)"),
        # "那 epoch 还是用回 3", "等下，TTL 还是用 2 小时吧": going back on a choice.
        (("还是",), r".{0,16}?还是(?:用|改|换|走|按|保留|保持|先|直接|别|不要)"),
    ),
)

SUPERSEDE = _Cue(
    r"\b(?:instead|rather than|switch(?:ed|ing)? (?:to|over|back)|no longer|not anymore|"
    r"replac(?:e|es|ed|ing) (?:it|that|this|them|\S+) with|replaced by|change(?:d)? (?:it |that )?to|"
    r"mov(?:e|es|ed|ing) (?:to|from)|now (?:use|uses|using|we use)|go with \S+ after all|back to|after all)\b|"
    r",\s*not\s+(?:the\s+)?[`\w]",
    r"改用|换成|改成|改为|不再|替换|换回|用回|改回|取代|而不是|挪到|推迟到|提前到|改到",
)

REJECTED = _StartOrAnywhere(
    # A summary's "Abandoned the Redis approach because invalidation was too complex."
    r"(?:abandoned|rejected|ditched|scrapped|ruled out|gave up on)\b.{0,120}?"
    r"\b(?:because|since|due to|after)\b",
    _Cue(
        r"\b(?:(?:was|were|got|been|is|are) (?:dropped|rejected|abandoned|ruled out|scrapped|ditched|reverted|"
        r"removed from consideration|a dead end|not an option)|"
        r"(?:we|i) (?:dropped|rejected|abandoned|ditched|scrapped|gave up on|ruled out|decided against|"
        r"backed out|reverted|threw out)|gave up on|decided against|ruled out|"
        r"(?:didn'?t|doesn'?t|won'?t|does not|did not|will not) (?:work|scale|fit|help)|"
        r"made (?:no|zero) difference|"
        r"not an option|dead end|no good|is a non-?starter|we(?:'re| are) not (?:going|using)|"
        r"i(?:'m| am) not (?:using|going with|going to use)|"
        r"(?:is|are) (?:out|not viable|a no-go)|off the table|won'?t fly|no-go)\b|"
        # "Tried a Redis cache; abandoned because …", "Redis cache (abandoned: too complex)".
        r"[;(]\s*(?:abandoned|rejected|ruled out|dropped)\b",
        r"放弃|弃用|否决|排除了|行不通|不可行|走不通|不再考虑|解决不了|不管用|没效果|没有效果|不用\S{0,8}了|回滚了|"
        r"试过.{0,30}(?:不行|失败|没用)",
    ),
    (
        (("but",), r"(?:i|we) (?:considered|tried|looked at|experimented with)\b.{3,120}?,? but\b"),
        (
            (" and ",),
            r"(?:we|i) (?:did|had|used|ran) .{3,60}?\b(?:once|before|last (?:year|quarter|month|time))\b"
            r".{0,30}?\band (?:lost|broke|it broke|had to|ended up|got burned)",
        ),
        (("但", "不过"), r"我?(?:试过|考虑过|尝试过).{2,60}?(?:但是|但|可是|不过)"),
    ),
)

REASON = _Cue(
    r"\b(?:because|since|due to|caus(?:ed|es|ing)|too (?:slow|big|large|flaky|heavy|expensive)|"
    r"kept (?:failing|locking|timing|crashing|breaking)|led to|so (?:we|i))\b",
    r"因为|由于|导致|原因|所以",
)

DECISION = _Cue(
    r"\b(?:we(?:'ll| will| are going to|'re going to| should| shall) (?:use|go with|store|keep|adopt|"
    r"stick with|switch to|move to|build on|rely on)|(?:decided|decide) (?:to|on)|going with|go with|"
    r"chose|chosen|picked|opted for|settled on|agreed on|landed on|standardi[sz]ed on|"
    r"let'?s (?:use|go with|stick with|switch to|keep using|store|adopt)|use \S+(?: \S+)? instead|"
    r"use \S+(?: \S+)?,\s*not\b|"
    r"switch(?:ed|ing)? (?:to|over to)|the plan is|we(?:'re| are) (?:using|storing|going with)|"
    r"final (?:choice|answer|pick|decision)|the (?:\w+ )?fix (?:goes|is|will be)|"
    r"(?:using|opening|storing|moving|switching|keeping) (?:\S+ ){0,3}(?:instead|in|with|to))\b",
    r"^那就|^那我们就|决定|选择了|选定|采用|最终(?:选|用|方案|决定)|改用|就用|定为|方案是|换成|统一用|"
    r"用\s*[a-z][\w.-]*\s*(?:部署|实现|存储|来|做|写)|双写|方案",
)

CONSTRAINT_START = _Gated(
    r"^(?:please,? )?(?:don'?t|do not|never|avoid|stop|no more|under no circumstances|let'?s not|"
    r"不要|不能|不准|不许|禁止|别|切勿|千万别|千万不要|不得|严禁|绝不|永远不要|避免)"
)
CONSTRAINT = _StartOrAnywhere(
    r"(?:only|no \w+)\b",
    _Cue(
        r"\b(?:never|must not|mustn'?t|must never|may not|can'?t|cannot|can not|should not|shouldn'?t|should never|do not|don'?t|"
        r"is not allowed|are not allowed|not allowed to|isn'?t allowed|aren'?t allowed|forbidden|prohibited|"
        r"off[- ]limits|hands off|read[- ]only|under no circumstances|without (?:asking|approval|permission|"
        r"my (?:ok|okay|approval|permission)|a review|changing|touching|breaking)|always|no longer|"
        r"stick to|stays? (?:on|within|under|below|valid|the same|compatible|working|supported|available)|leave (?:\S+ ){1,4}(?:alone|as is|untouched|unchanged)|"
        r"stays? (?:untouched|unchanged|as is|frozen|put|pinned|on)|is frozen|are frozen|"
        r"(?:must|has to|have to|needs? to) (?:stay|remain|keep)|remains? (?:backward|compatible|unchanged)|"
        r"backward[- ]compatib\w*|(?:changes|everything|all \w+|it) (?:go|goes|must go|has to go) through|"
        r"\w+s go (?:out )?(?:only )?through|nothing else|, so no \w+|(?:rather|instead) than (?:editing|changing|doing|touching) it yourself|"
        r"no third[- ]party|is contractual|keep (?:\S+ ){1,5}(?:stable|unchanged|as is|compatible|out of|under|below|current|existing|the same|as they are|"
        r"intact|private|green|small|minimal)|nothing (?:\w+ )?(?:straight|directly) (?:to|in)|only (?:use|touch|change|edit|"
        r"modify|run|deploy|push|commit|work on|target|support)|"
        r"no (?:new )?(?:dependencies|deps|packages|libraries|force[- ]push\w*|direct push\w*|changes to|"
        r"breaking|migrations|downtime|emails?|secrets|network|internet)\b|is a hard requirement|"
        r"on my behalf|without me|we(?:'re| are) not (?:adding|using|doing|going to|touching|changing)|"
        # A standing instruction: "From now on just run the unit tests before commits."
        r"from now on|going forward|from here on(?: out)?|henceforth)\b|"
        # "PRs only.", "Linux only, no Windows": outside the group above, whose closing \b
        # never follows the full stop.
        r"\b(?!(?:that|this|it|them|once|one)\b)\w+ only\s?(?:[.,;—–-]|$)",
        r"从现在起|从现在开始|从今以后|今后都|以后都|以后一律|"
        r"不要|(?<!能)不能|不准|不许|禁止|切勿|千万别|不得|严禁|不可以|绝不|永远不|只能|只许|只用|一律|务必|"
        r"始终|保持|避免|不再|一定要|得继续|继续用|只改|只负责|只读|别(?![人的处名])|"
        # "周五不发版", "节假日不改配置": a recurring time when something is not done, a
        # standing rule ("周五不发版了", a plan dropped, and "周五不在", are not).
        r"(?:周[一二三四五六日天末]|星期[一二三四五六日天]|礼拜[一二三四五六日天]|晚上|夜里|夜间|深夜|"
        r"凌晨|半夜|节假日|假期|节前|下班后|工作日|休息日|双休日?)\s*不\s*"
        r"(?:发版|发布|上线|部署|发|改|动|合|推|升级|重启|变更|迁移|跑|执行|打包)"
        r"(?![\u4e00-\u9fff]{0,4}了)|"
        # "所有改动都走 PR", "只走 CI": the one way things go, a standing rule ("都走了", "我们都走
        # 不通" are not).
        r"(?:都|只|统一|全部|全都|必须)走(?![了吧啦过不完])\s*[\w\u4e00-\u9fff]",
    ),
)

GOAL = _Cue(
    r"\b(?:goal|objective|the aim|the point is|we(?:'re| are) (?:building|adding|trying to|working on|"
    r"implementing|migrating|porting|moving|rewriting|replacing)|i(?:'m| am) (?:building|trying to|working on)|"
    r"i want (?:to|you to)|i(?:'d| would) like (?:to|you to)|i need (?:you )?to|"
    r"we need to (?:ship|build|add|implement|migrate|get|port|move|replace|support)|the task is|"
    r"your (?:job|task) is|end result|by (?:friday|monday|tuesday|wednesday|thursday|saturday|sunday|"
    r"the end of|end of)|deadline|(?:user|they|owner) (?:wants?|asked|requested))\b",
    r"目标|目的是|任务是|我们要|我想要|我想让|我需要你|需要实现|打算|希望你|帮我(?:把|实现|做|加|写)",
)

PREFERENCE = _Cue(
    r"\b(?:i (?:prefer|'d prefer|would prefer|'d rather|would rather|like (?:it|my|the|to|when)|"
    r"want (?:it|them) (?:to be|in))|prefer(?:ably|red|s)?|please (?:use|write|keep|name|format)|"
    r"(?:in|use) (?:\w+ ){0,2}(?:style|format|casing|naming)|i(?:'d| would) (?:rather|like)|"
    r"(?:nicer|cleaner) (?:if|to)|(?:is|are) (?:enough|plenty|fine for now))\b",
    r"我更喜欢|我喜欢|偏好|倾向于|更倾向|最好用|尽量|习惯用|请用|风格|保持一致|就够了|就行|就可以了",
)

REQUIREMENT = _Cue(
    r"\b(?:must|has to|have to|needs? to|should|required|requires?|mandatory|make sure|ensure|it is essential|"
    r"expected to|acceptance criteria|supports?|compatible with|at least|at most|no more than|within \d|"
    r"needs? (?:the same|a|an))\b",
    r"需要|必须|要求|应该|确保|保证|支持|兼容|至少|最多|不超过|控制在|以内|要",
)

TODO = _Cue(
    r"\b(?:todo|to-do|still (?:need|needs|open|missing|broken|fails|failing|returns|to|pending|has|have)|"
    r"not (?:yet|done|finished|implemented|wired|handled|covered)|not (?:\w+ ){1,2}yet|isn'?t (?:\w+ )?yet|hasn'?t been|haven'?t (?:done|implemented|"
    r"finished|added|written|wired|handled|touched)|is (?:still )?(?:unfinished|incomplete|pending|"
    r"todo|stubbed)|is still (?:missing|broken)|remains? (?:open|to be|broken|unsolved)|left to do|next (?:step|up)|follow[- ]up|"
    r"later we|(?:we|i)(?:'ll)? (?:still )?need to|we have to|need to (?:add|fix|write|implement|finish|update|"
    r"handle|migrate|wire|port|remove|check|test|document)|after that|once (?:that|this)(?:'s| is) done|"
    r"tomorrow|wip|open question|unresolved|until \w+ the)\b|TODO",
    r"待办|还没|尚未|未完成|还需要|还要|接下来|下一步|之后再|稍后|回头|还差|没有完成|仍然|暂未|未解决",
)

STATE = _Cue(
    r"\b(?:now (?:succeeds|passes|builds|works|returns|runs|compiles|loads|stops?|sends|uses|has|calls|writes|reads|handles|includes|supports|follows|shows)|"
    r"now works|works end to end|is (?:now )?working|are (?:now )?working|is done|are done|is deployed|"
    r"are deployed|is merged|was merged|has been (?:migrated|added|implemented|fixed|deployed|merged|updated|"
    r"moved|removed|renamed)|have been (?:migrated|added|implemented|fixed|deployed|merged|updated|moved)|"
    r"is (?:now )?(?:green|passing|live|in place)|all (?:\d+ )?tests pass|tests (?:are )?(?:green|passing|pass)|"
    r"i(?:'ve| have) (?:now )?(?:added|implemented|fixed|updated|created|migrated|written|removed|renamed|moved|"
    r"refactored|finished|completed|wired|replaced|ported)|we(?:'ve| have) (?:added|implemented|fixed|"
    r"migrated|finished|completed|shipped)|is on (?:the )?branch|(?:branch|pr) \S+ (?:has|holds|contains))\b|"
    r"^(?:status|so far|currently|right now|at this point|as of now|now)\b",
    r"^现在|目前|现在已|已经|已完成|完成了|进度|当前|跑通|通过了|已合并|已部署|已上线",
)

FACT = _Cue(
    r"\b(?:lives? (?:in|on)|live in|is (?:stored|kept|defined|configured|located|set|declared|read) (?:in|at|via|from)|"
    r"are (?:stored|kept|defined|configured|located) (?:in|at)|runs? on|listens? on|is (?:called|named)|"
    r"points to|reads from|writes to|is served (?:from|by)|comes? from|is owned by|belongs to|"
    r"is (?:version|v)\s?\d|(?:uses?|is on|runs) (?:python|node|postgres\w*|redis|java|go|rust|ruby|php|"
    r"mysql|django|flask|fastapi|react|vue|rails|spring|kafka|rabbitmq)\b|port \d+|version \d|"
    r"the (?:\w+ ){0,3}(?:is|are) (?:in|at|under) [`/\w]|owns the|maintains the|is the owner)\b",
    r"位于|存放在|放在|配置在|定义在|在\s?\S{1,40}(?:里|中|下)|端口|版本|路径|叫做|名为|依赖|负责",
)


class _Identifier:
    """Paths, file names, CONSTANTS, snake_case, versions, calls, CamelCase (reads case).

    Each costly alternative needs a character ("/", ".", "_", "`", "(") that most prose
    lacks, so it is tried only when that character is there.
    """

    __slots__ = ()
    _SLASH = re.compile(r"\b[\w.-]+/[\w./-]+|https?://")
    _DOT = re.compile(
        r"\b[\w-]+\.(?:py|ts|js|go|rs|rb|java|json|ya?ml|toml|md|sql|sh|cfg|ini|env)\b|"
        r"\b\d+(?:\.\d+){1,3}\b|\.\w+\("
    )
    _UNDERSCORE = re.compile(r"\b[A-Z][A-Z0-9]*_[A-Z0-9_]+\b|\b[a-z]+_[a-z_]+\b")
    _TICK = re.compile(r"`[^`]+`")
    _CAMEL = re.compile(r"\b[A-Z][a-z]+[A-Z]\w*")

    def search(self, text: str) -> re.Match[str] | None:
        return (
            ("`" in text and self._TICK.search(text))
            or ("/" in text and self._SLASH.search(text))
            or ("." in text and self._DOT.search(text))
            or ("_" in text and self._UNDERSCORE.search(text))
            or self._CAMEL.search(text)
            or None
        )


IDENTIFIER = _Identifier()
#: A digit anywhere: a number a statement names.
DIGIT = re.compile(r"\d")
#: "Commit messages in English, please.": asked of the agent, whatever else it says.
PLEASE = re.compile(r"\b(?:please|pls|plz)\b")

# "cannot be downgraded over OTA", "KEDA is installed cluster-wide": what later work must
# live with.
LIMITATION = _Cue(
    r"\b(?:cannot|can'?t|can not|is not (?:possible|supported)|isn'?t supported|are not supported|"
    r"is (?:installed|enabled|disabled|deployed|pinned)|are (?:installed|enabled|disabled|pinned))\b",
    r"不支持|无法|不能",
)

RISK = _Cue(
    r"\b(?:risk|risky|be careful|careful with|watch out|beware|danger|dangerous|might break|could break|"
    r"may break|can break|will break|caution|heads up|flaky|race condition|data loss|"
    r"los(?:e|es|ing) (?:\w+ )?(?:data|events?|messages?|writes?|orders?)|"
    r"(?:will|could|would) (?:fail|break|crash|time out|lose|corrupt)|"
    r"memory leak\w*|leaks?|unbounded|without bound|deadlocks?|out of memory)\b",
    r"风险|小心|当心|可能会|危险|竞态|丢数据|内存泄漏|死锁",
)

LESSON = _Cue(
    r"\b(?:lesson|learned|turns out|turned out|the trick is|the fix was|root cause|remember (?:that|to)|"
    r"note to self|pitfall|for future reference|gotcha)\b",
    r"教训|原来是|踩坑|经验|根本原因|记住",
)

NARRATION = _Gated(
    r"^(?:let me|let's (?:see|check|look|try|run|start)|i'll|i will|i'm going to|i am going to|i'm|now i|"
    r"first,? (?:i|let)|next,? (?:i|let)|looking at|checking|running|i see|i found|i notice|i can see|"
    r"here(?:'s| is| are)|this (?:shows|means)|ok(?:ay)?,|alright,|great,|good,|sure,|perfect,|"
    r"thanks|understood|the (?:output|result|diff|test output) (?:shows|says)|"
    r"adding|fixing|updating|running|checking|creating|writing|installing|trying|retrying|rerunning|"
    r"让我|我来|我先|现在我|接下来我|我看|我会|好的，|看起来|下面)"
)

# A request in the owner's lead-in to a paste ("Here is the log from prod, figure out
# why:"): what follows is evidence to look at, not an instruction to keep.
ASKS = _Cue(
    r"\b(?:figure out|find out|look into|investigate|debug|diagnose|fix|explain)\b|"
    r"\bwhy\b.{0,40}[:：]$",
    r"帮我看|看看为什么|为什么|排查|修一下|分析一下",
)

IMPERATIVE = _Cue(
    r"(?:^|[,;:]\s*)(?:please,? )?(?:add|implement|build|create|write|fix|make|update|refactor|remove|delete|rename|"
    r"migrate|ship|deploy|support|set up|port|move|convert|replace|change|integrate|wire|hook up|extract|"
    r"split|test|document|handle|bump|upgrade|clean up|investigate|look into|figure out|get|open|ask|notify|"
    r"tell|file|schedule|run|check|verify|find out|find)\b",
    r"^(?:请|帮我|麻烦)?(?:实现|添加|加上|加个|修复|重构|写|做|改|把|给|去掉|删除|升级|迁移|支持|处理|补上)",
)

USE = _Gated(
    r"(?:^|[,;:]\s)(?:please,? )?(?:use|go with|stick with|keep using|switch to)\b|^(?:用|改用|就用|换成)"
)
# "Set the HTTP timeout to 30 seconds.", "switch the invoice store to PostgreSQL",
# "把超时设成 30 秒": the owner setting a named thing to a value, a choice.
SETS = _Gated(
    r"^(?:(?:ok(?:ay)?|then|and|so|please|pls)[, ]+)*(?:set|switch|point|pin|configure)\s+"
    r"(?!up\b)(?:the |our |its |all |every )?[\w`./-]+(?:\s+[\w`./-]+){0,3}?"
    r"(?:\s+from\s+[\w`./-]+)?\s+(?:to|at|=)\s+\S|"
    # "Keep the connection pool at 20 connections.": a value set, not a thing kept as is.
    r"^(?:please,? )?keep\s+(?:the |our )?[\w`./-]+(?:\s+[\w`./-]+){0,3}?\s+at\s+[~≈]?\d|"
    # "导出任务超时时间设为 10 分钟。", "把并发调到 8": a named thing set to a value.
    # "限流阈值设成每分钟 100 次": a rate's period before its number; "导出编码改成 GBK",
    # "任务状态改成存 Redis": a named thing set to another name.
    r"^(?:请)?(?:把)?[^，,。；;？?\s]{1,20}?\s*(?:设为|设成|设置为|设置成|调到|调成|调为|定为|改成|改为|改到)\s*"
    r"(?:(?:每(?:秒|分钟?|小时|天|周|月)\s*)?[~约]?\d|(?:存到?|用|放到?)?\s*[A-Za-z])"
)
STRONG_PREFERENCE = _Gated(
    r"\bi (?:prefer|'d prefer|would prefer|'d rather|would rather)\b|我更喜欢|我喜欢|偏好|更倾向"
)
KEEP_IMPERATIVE = _Gated(r"^(?:please,? )?keep\b|^保持")
INVESTIGATE = _Gated(
    r"^(?:(?:first|now|next|then|so)[, ]+)?(?:i'll|i will|let me|i'm going to)\s+(?:now\s+|first\s+)?(?:look|check|read|start|inspect|see|"
    r"search|grep|run|open|sketch|try|examine|investigate|have a look|review|dig|find|figure|take a look|"
    r"go|begin|do|write up)\b|"
    r"^(?:(?:first|now|next|then|so|ok(?:ay)?|great|perfect|excellent|good)[!,. ]+)?let me\b|"
    r"^(?:i'll|i will|i can|i'd be happy to|happy to) help\b|"
    r"^(?:(?:好的?|嗯|那|ok)[，,]?\s*)?(?:我先|让我|我来看|我看|我现在|现在我|接下来我|我来帮你|我帮你)|"
    r"^(?:那|好的?[，,]?\s*|然后)?我(?:再|去|顺便|来)?(?:查|看|估算|算|对|试|跑|确认|核对|检查|找|比较|对比|排查)"
    r"(?:一下|下|看|看看)|"
    # "我用 jemalloc 的 heap profile 看一下", "看下处理 7 号分区的 pod 日志"
    r"^我用(?!的)\s?\S.{0,30}?(?:看一下|看看|查一下|分析一下)|^看(?:一)?下(?!面)|"
    r"^先\S{0,24}(?:对一下|看一下|试一下|跑一下|查一下|确认一下)|^接下来(?:看|查|和|去|跑|对)"
)
# "Regarding the warehouse — let me check what load_raw.sql uses.": a short lead-in,
# then the assistant's next step.
LET_ME_TAIL = _Gated(
    r"^.{0,40}?(?:[—–:;,]|\.\.\.)\s*let me (?:check|look|see|verify|confirm|find|grep|search|dig|"
    r"measure|re-?\w+|test|try|double-check|investigate|inspect|pull|read|run|figure)\b"
)
INTENT = _Gated(
    r"^(?:(?:then|so|instead|now|next|first|here)[, ]+)?(?:i'll|i will|i'm going to|i am going to|my plan is|"
    r"the plan is|i suggest|i propose|i recommend|my (?:suggestion|recommendation) is|"
    r"i(?:'d| would) (?:suggest|propose|recommend|go with|use|add|group|split|put|make|move|keep|start with|"
    r"parse|build|write|store|wrap|implement|cache|create|switch|replace))\b|"
    r"^(?:我打算|我会|我准备|我计划|打算|我建议|建议)"
)
# "I suggest …", "建议…": the assistant proposing a course of action.
PROPOSAL = _Gated(
    r"^(?:(?:then|so|instead)[, ]+)?(?:i suggest|i propose|i recommend|i(?:'d| would) (?:suggest|propose|recommend)|"
    r"my (?:suggestion|recommendation) is|i(?:'d| would) lean towards?)\b|^(?:我建议|建议)|"
    # "修复思路我倾向于：…": the plan put forward after a heading-like lead.
    r"^.{0,8}?(?:我倾向于|我更倾向|倾向于用)"
)
# "Now running the full suite.": what the assistant is doing this very moment.
PROGRESSIVE = _Gated(
    r"^(?:(?:now|next|ok(?:ay)?|alright|so)[, ]+)?(?:running|rerunning|retrying|checking|rechecking|looking|making|"
    r"rolling|adding|fixing|updating|writing|creating|installing|trying|reading|resizing|building|"
    r"deploying|applying|opening|pushing|reverting|removing|cleaning|testing|starting|kicking off|"
    r"rebuilding|re-running|regenerating|restarting|waiting)\b"
)
# "Now the countdown.", "Now the Stripe side — creating the products in test mode.": the
# assistant moving on to its next part.
MOVING_ON = _Gated(r"^(?:now|next)[, ]+(?:the|on to|onto)\s+(?:[\w/-]+\s?){1,3}(?:[.:]|\s[—–-]\s)")
# The cues that say outright that something said before is replaced (", not X" and
# "fall back to" only contrast or describe).
REPLACE_STRONG = _Cue(
    r"\b(?:instead|switch(?:ed|ing)? (?:to|over|back)|no longer|not anymore|rather than|"
    r"replac(?:e|es|ed|ing) (?:it|that|this|them|\S+) with)\b",
    r"改用|换成|不再|而不是|换回|用回|改回",
)
# "Also add …", "也要…": an addition beside what was said, not a replacement of it.
# "PNG uploads too." adds; "too fiddly" says why, and adds nothing.
ADDITIVE = _Cue(
    r"^(?:also|and also|plus)\b|\b(?:also\b|too\s*(?:[.,;!)]|$)|"
    # "crypto prices are a separate cache: 30 seconds": a value for another thing.
    r"(?:is|are) (?:a )?separate\b)",
    r"也要|也得|还要|另外|也有|也需要",
)
# "New sessions are written only to Postgres": how the system will behave, a design.
DESIGN = _Gated(
    r"\b(?:are|is|will be|get|gets|stay|stays) (?:\w+ )?(?:written|stored|persisted|cached|routed|sent|"
    r"served|queued|retried|encrypted|hashed|signed|validated|kept|loaded|read) (?:\w+ )?"
    r"(?:to|in|into|from|by|via|through|on|after|before|with|until|per)\b"
)
# The owner's word for the very next step: "Please look first what we have.", "Start by
# reading how auth works today.", "Submit it as is.", "Try it locally, I'll click through."
LOOK_FIRST = _Gated(
    r"^(?:please,? |pls,? )?(?:(?:first|start by|now) )?(?:look (?:at|first)|show me|"
    r"read(?:ing)? (?!only)|try it|submit it|take a look|have a look|check (?:it|that|this|what))\b"
)
# The owner reacting ("Oh, that's sneaky, thank you.", "OMG ok bad news 😭 they just moved
# it.") or saying what they do themselves right now ("I'll ping him now.", "Back from the
# security review.", "结果贴给你"): said to the assistant, nothing to keep.
OWNER_ASIDE = _Gated(
    r"^(?:ok(?:ay)?,? |🙏 ?)?(?:i'll (?:\w+ ){0,3}(?:now|him|her|them)\b|(?:sending|trying) it\b|"
    r"i'll keep an eye)|结果贴给你|贴(?:在)?下面了|^(?:back from|just came from)\b|"
    r"^(?:oh|omg|huh|wow|wonderful|right|good catch|great|nice|cool|perfect|damn|ah)\b[,!.]? *"
    r"(?:ok,? )?(?:so )?(?:that'?s|this is|i was|bad news|it'?s)\b"
)
# "All 212 tests pass.": a test run reported and nothing else.
TESTS_ONLY = _Gated(
    r"^(?:(?:great|perfect|excellent|good|nice|ok(?:ay)?|done)[!,.—– ]+)?"
    # "Release build and all 148 tests pass.", "Type check is clean and all 18 tests pass,
    # including the new guard specs.", "Build and tests are green."
    r"(?:(?:(?:the |release |debug )?build|type ?check(?: is clean)?|lint(?: is clean)?),? and )?"
    r"(?:and )?(?:all |both )?(?:\d+ )?"
    r"(?:of the )?(?:unit |integration |e2e )?tests? (?:now |still )?(?:pass|passed|passing|are passing|"
    r"are green|is green|succeed)(?: now| again| locally)?(?:, including [^.!]{1,80})?[.!]*$|"
    r"^(?:太好了|好的?|很好)?[！!，, ]*(?:测试|单测)?(?:全部|都|也)?(?:通过|跑通|过)了?[。！!]*$|"
    # "StockServiceTest 4 个用例都过了。", "编译通过，新加的 4 个单测都过了。"
    # (A name of at most 80 characters: unbounded, a long number's digits would be tried
    # both as the name and as the count, in time of the square of its length.)
    r"^(?:[\w.]{1,80} ?)?(?:(?:rebase ?完成|编译(?:和单测)?通过)[，,] ?)*(?:新加的 ?)?(?:\d+ ?个)?"
    r"(?:测试|单测|用例|单元测试)(?:用例)?(?:全部|都|也|全)(?:通过|跑通|过)了?[。！!]*$"
)
# "I need to create the migration first.": the step the assistant takes next.
IMMEDIATE = _Gated(r"\b(?:first|now|next|right away)\s*[.!。]?$|^(?:i need to|we need to) first\b")
# "I'll keep /api/v1 stable": the assistant promising to respect a rule, not a new choice.
COMPLY = _Gated(
    r"^(?:(?:then|so|now)[, ]+)?(?:i'll|i will|i'm going to)\s+(?:keep|stick|follow|respect|avoid|not|never|"
    r"leave|stay|make sure|be careful|honou?r|obey)\b"
)
ECHO = _Gated(
    r"^(?:that makes sense|good (?:point|idea|catch)|sounds good|of course|will do|fair enough|"
    r"ok(?:ay)?|right|sure|got it|understood|thanks|makes sense|明白|收到|了解|好的|好|行)\s*[,，.。!！—–-]\s*\S"
)
SWITCH_ECHO = _re(
    r"^(?:(?:ok(?:ay)?|sure|right|alright)[, ]+)?(?:switch(?:ed|ing)|mov(?:ed|ing)|chang(?:ed|ing)|"
    r"revert(?:ed|ing)|going back|back|stay(?:ed|ing)|stick(?:ing)?|using|go(?:ing)? with) (?:to |on |with )?"
)
# "... ; fixed.", "... and it passes now": the assistant reporting a failure it just fixed.
FIXED = _Cue(
    r"\b(?:fixed|(?:it|they|that|the build|the tests?|everything) (?:passes|pass|builds|works|resolves|is green)"
    r"(?: now)?|(?:passes|resolves|works|builds) now|typo|my (?:bad|mistake)|on my side|forgot (?:to|the)|"
    r"missing (?:`|import|include|the import))\b",
    r"通过|修好了|解决了|好了|补上了|加上了|改好了|漏了|写错了|手误",
)
# Courtesy, approval and filler: what is left of a user's unit once these are gone is its
# content ("weekly is fine" -> "weekly"; "ok do it" -> nothing).
_FILLER_TEXT = """a an the and but or so to of for in on at it its it's this that these those there here
    i i'm i'll i've me my we we're we'll us our you you're your yours they them he she
    is are was were be been am do does did done doing go going goes ahead get got
    ok okay k kk yes yeah yep yup sure fine alright right great good nice cool perfect lovely
    awesome amazing excellent brilliant wonderful fantastic neat sweet super
    thanks thank thx ty cheers please pls sorry oops hi hello hey morning afternoon evening
    that's thats sounds sound looks look seems makes make sense agreed agree lgtm
    work job stuff thing things bit lot much very really quite just also too then now
    all for today that's all what how when why who which well oh ah hmm wow yay haha lol
    try gn gm bye cya ttyl another question tho though anyway
    let's lets can could would should will shall may might must need want like love
    up down out off over with as by from into about than more less still yet again
    no not nope nah none nothing something anything everything
    one two mine yours see progress effort idea help much
    ugh argh shit damn dang oof phew whoa huh meh omg idk lmao heh hah ha woohoo
    green works worked working"""
FILLER_WORDS = frozenset(_FILLER_TEXT.split())
# "yesss", "ughhh", "nooo": a letter drawn out is the same word.
_DRAWN_OUT = re.compile(r"([a-z])\1{2,}")
FILLER_CJK = _re(
    r"好的|好嘞|好滴|好吧|好呀|好啊|太好了|非常好|很好|不错|可以的?|行吧|没问题|收到|明白了?|了解|"
    r"谢谢你?|多谢|感谢|辛苦(?:了|啦|你了)?|厉害|完美|棒|就这么办|就这样吧?|这样就行|那就好|"
    r"你好|早上好|早|晚安|先这样|就先这样|先这么着|按这个来|照这个来|先这么搞|这么搞|就这么定|可以接受|能接受|没毛病|搞定|原来如此|好家伙|卧槽|我靠|绝了|牛|"
    r"嗯+|哈+|呀|啊|吧|呢|啦|了|哦|噢|喔|吗|的|是的|对的?|好|行|嗯|请|麻烦"
)
# Pleasantries and sign-offs: "hope your day is going well", "let me know what you find".
COURTESY = _Gated(
    r"^(?:(?:hey|hi|hello|ok(?:ay)?|so)[,! ]+)?(?:(?:i |we )?hope (?:you|your|all|everything)|how are you|how'?s it going|"
    r"thank you|thanks|thx|good catch|nice catch|ah,? (?:yes|right|ok|i see)|oh,? (?:right|i see)|"
    r"(?:ur|you'?re|you are) a (?:legend|lifesaver|life saver|star|hero)|you rock|"
    r"have a (?:nice|good|great|lovely) (?:evening|day|weekend|night)|"
    r"(?:wonderful|amazing|awesome|brilliant|fantastic|lovely|excellent|perfect),? (?:this|that)(?:'s| is) "
    r"(?:much |so |way )?(?:better|great|perfect|exactly)|"
    r"let me know (?:what|if|when|how)|thanks in advance|take your time|no rush|appreciate (?:it|your)|"
    r"(?:that|this) (?:makes sense|sounds good|looks good|is great|is helpful))\b|"
    r"^(?:希望你|辛苦你|麻烦你了|有劳|不着急|慢慢来|有问题告诉我|有什么发现告诉我)|"
    r"^.{0,12}(?:随时(?:问我|找我|告诉我|联系我)|有问题随时)"
)
_LATIN_WORD = re.compile(r"[a-z][a-z'’]*|\d+")
_CJK_CHAR = re.compile(r"[\u4e00-\u9fff]")


def has_content(low: str) -> bool:
    """Whether a lowercased unit says something beyond courtesy, approval and filler."""
    if COURTESY.match(low) and len(low) < 60:
        return False
    if any(w not in FILLER_WORDS for w in _LATIN_WORD.findall(_DRAWN_OUT.sub(r"\1", low))):
        return True
    if not _CJK_CHAR.search(low):
        return False
    return len(_CJK_CHAR.findall(FILLER_CJK.sub("", low))) >= 2


DECLARATIVE = _Cue(
    r"\b(?:is|are|was|were|has|have|takes?|returns?|fails?|holds?|contains?|uses?|runs?|reads?|"
    r"writes?|calls?|depends|lives|points|needs|means|stays?)\b",
    r"有|是|在|从",
)

# "Why not just use the retry helper?", "要不直接用现成的？": the owner proposing, not asking.
SUGGESTION = _Gated(
    r"^(?:(?:hmm|so|ok(?:ay)?|but)[, ]+)?(?:why not|what about|how about|shall we|should we|can we|could we|"
    r"can't we|couldn't we|wouldn't it be (?:better|simpler|easier)|maybe (?:we|just|use|go with|try|switch)|"
    r"is it (?:possible|ok|okay) to)\b|^(?:要不|能不能|可不可以|是不是可以|要不要|干脆)"
)
REQUEST_QUESTION = _Gated(
    r"^(?:(?:hey|hi|hello|so|ok|okay|next|also|and|then|now|first|one more thing)[,:— ]+)?(?:can|could|would|will) you\b|^(?:能不能|可以|能否|麻烦你?).*[?？]$"
)

# "1 and 2 yes.", "1 和 3 可以。", "先试 1": a reply that picks from the assistant's list;
# the choice is kept where the assistant restates it, as the reply means nothing alone.
PICK = _re(
    r"^(?:(?:ok(?:ay)?|yes|yeah|sure|sounds good|好的?|可以|行|嗯)[,，.!。 ]*)?"
    r"(?:(?:please |let'?s |then |先)?(?:go with|do|try|pick|take|start with|试|做|选|用|上))?\s*(?:option |方案|选项)?#?"
    r"(?:\d|[abc]\b)(?:\s*(?:and|&|,|，|和|跟|、|\+|or)\s*#?(?:\d|[abc]\b))*\s*"
    r"(?:(?:first|then|yes|ok|please|pls|sounds good|is fine|are fine|fine|good|agreed|approved|lgtm|"
    r"works|吧|可以|行|没问题|都可以|都行|先)[ ,，.!。]*)*[.!。]*$"
)
# "Spark 可以。", "Blue/green sounds right.", "ok 有道理": the owner approving a proposal by
# name; what was approved is kept where the assistant proposed it.
APPROVAL = _Gated(
    r"^(?:(?:ok(?:ay)?|yes|yeah|嗯+|好|行)[,，.!。 ]*)?[^,，。.!?！？]{0,24}?\s*"
    r"(?:(?<!不)(?:可以|没问题|没毛病|有道理|好懂)|"
    r"\b(?:sounds (?:good|right|fine|great)|is fine|looks (?:good|right)|works for me|makes sense)|"
    # "滚动可以了。", "refresh works now.": the owner confirming the fix works.
    r"(?<!不)可以了|(?<!不)正常了|\b(?:works (?:now|again)|is fixed))"
    r"[。.!！~ ]*$|"
    r"^(?:ok(?:ay)?,? )?(?:同意|赞成|agree with|agreed on)\s*[^,，。.!?]{0,24}[。.!！]*$"
)
# "how long would the copy take", "语言怎么判断的": questions written without "?".
WH_QUESTION = _Gated(
    r"^(?:(?:and|so|but|ok(?:ay)?|hmm)[, ]+)?(?:how (?:long|much|many|often|do|does|did|is|are|would|will|can)|"
    r"what (?:is|are|was|does|do|did|would|will|happens)|why (?:is|are|does|do|did|would)|"
    r"where (?:is|are|does|do)|which (?:one|is|are)|is there|are there|do we|does (?:it|this|that)|"
    r"did (?:we|you|it))\b|"
    r"^\S{0,12}(?:怎么|为什么|为啥|什么|哪个|哪里|多少|多久|是否|能否|有没有|是不是)\S{0,10}$"
)

RESOLVED = _Cue(
    r"\b(?:tests? (?:fail|failed|failing|fails)|the (?:test )?failure|fixed (?:it|that|the typo))\b",
    r"测试.{0,6}失败|这个失败|失败是因为|报错是因为",
)
TODO_DEADLINE = _Cue(
    r"\b(?:before (?:we|merging|the release|release|shipping|deploying|launch)|still|not yet)\b",
    r"之前|上线前|发布前|还没|还需要",
)
FINDING = _Gated(r"都是|因为|导致|原因|所以|发现|原来|问题在于|问题出在")
# "…, so the assertion races it": the assistant explaining a cause.
FINDING_EN = _Gated(
    r"\b(?:because|which means|which is why|that'?s why|so (?:the|it|any|every|each|a|we)|causes|caused|"
    r"the (?:root )?cause)\b"
)
EPILOGUE = _Gated(r"\b(?:next|now|first|later)\s*[.!。]?$")

SUMMARY_BOILERPLATE = _re(
    r"this session is being continued|the summary below covers|analysis:|<analysis>|</?summary>|"
    r"please continue the conversation|continue with the last task"
)
