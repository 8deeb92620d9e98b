"""Secret masking: replace secrets inside otherwise verbatim text.

A leaf module (stdlib only) so every layer that prints, stores, exports or
injects text can mask it. Patterns are value-shaped (a key's own prefix and
length, a header, a URL's password, an assignment to a secret-named
variable) so ordinary prose and code stay untouched: precision over recall.
A mask names the kind it replaced (``[secret:github-token]``); masking is
idempotent (masking masked text changes nothing).

Must never: log or return what it masked (only the count), or import
anything of ours but the leaf ``secret_hints``.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import cache, lru_cache
from typing import Any, NamedTuple

from .secret_hints import may_hold_secret

try:  # the parser behind ``re`` (CPython 3.11+); without it every pattern is searched
    from re import _constants as _sre  # type: ignore[attr-defined]
    from re import _parser  # type: ignore[attr-defined]
except ImportError:  # pragma: no cover - another Python implementation
    _parser = None

#: What a masked secret becomes; the label says which kind was found.
MASK = "[secret:{kind}]"

#: Where a key with its own prefix may start: not inside a word ("risk-assessment-…" is
#: no "sk-" key), but glued to what escapes or encodes a separator before it: an escaped
#: newline or tab, or a \\u escape, of JSON text ("\\nghp_…"), a URL-encoded character
#: ("%3Dghp_…"), or an underscore ("key_sk-…"). Each key's pattern tests its first letter
#: before this (``(?=g)``): the lookbehinds tried at every position of the text doubled
#: the time to mask it.
_LEFT = r"(?:(?<![A-Za-z0-9_])|(?<=\\[ntr])|(?<=\\u[0-9A-Fa-f]{4})|(?<=%[0-9A-Fa-f]{2})|(?<=_))"

#: What a password "is" that is no password ("Password is required.", "… is rotated.").
_PASSWORD_STATES = (
    r"(?:required|invalid|incorrect|wrong|missing|empty|expired|correct|valid|weak|strong|"
    r"changed|reset|hashed|encrypted|stored|rotated|unknown|optional|hidden|masked|redacted|"
    r"secret|unchanged|different|same|set|saved|needed|mandatory|short|long|compromised|"
    r"leaked|protected|sensitive|personal|private|public|shared|temporary|generated|random)"
)

#: Names glued to PASS that name a password ("PGPASS", "DBPASS"); "bypass" and "compass"
#: are glued too, so only these.
_GLUED_PASS = ("PG", "DB", "FTP", "ROOT", "MAIL", "SMTP", "ADMIN", "MYSQL")


def _glued(word: str) -> str:
    """Lookbehinds, from just after ``word``, for a name that is one of ``_GLUED_PASS``
    glued to it and starts where a name can (one lookbehind per width: each is fixed)."""
    widths: dict[int, list[str]] = {}
    for name in _GLUED_PASS:
        widths.setdefault(len(name), []).append(name if word.isupper() else name.lower())
    return "|".join(
        rf"(?<=(?<![\[A-Za-z0-9_])(?:{'|'.join(names)}){word})" for names in widths.values()
    )


# Ordered: more specific formats first, so a key inside a URL or header is named by
# its own kind. A pattern with a ``secret`` group masks only that group (the name,
# header or flag before it stays readable).
_SPECS: tuple[tuple[str, str], ...] = (
    (
        "private-key",
        r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----[\s\S]*?"
        r"(?:-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----|\Z)",
    ),
    ("private-block", r"(?is)<private>.*?(?:</private>|\Z)"),
    (
        "aws-access-key",
        rf"(?=A){_LEFT}(?:AKIA|ASIA|AGPA|AIDA|AROA|ANPA|ANVA|ABIA|ACCA)[A-Z0-9]{{16}}\b",
    ),
    (
        "github-token",
        rf"(?=g){_LEFT}(?:gh[pousr]_[A-Za-z0-9]{{30,}}|github_pat_[A-Za-z0-9_]{{40,}})\b",
    ),
    ("gitlab-token", rf"(?=g){_LEFT}gl(?:pat|dt|rt|ptt|cbt|soat)-[A-Za-z0-9_\-]{{20,}}\b"),
    (
        "slack-token",
        rf"(?=x){_LEFT}xox[abposre]-[A-Za-z0-9\-]{{10,}}\b|(?=x){_LEFT}xapp-\d-[A-Za-z0-9\-]{{10,}}\b",
    ),
    (
        "slack-webhook",
        r"https://hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9/_\-]+",
    ),
    (
        "discord-webhook",
        r"https://(?:ptb\.|canary\.)?discord(?:app)?\.com/api/webhooks/\d+/[A-Za-z0-9_\-]+",
    ),
    ("anthropic-key", rf"(?=s){_LEFT}sk-ant-[A-Za-z0-9_\-]{{20,}}"),
    ("openrouter-key", rf"(?=s){_LEFT}sk-or-v1-[A-Za-z0-9]{{32,}}"),
    ("openai-key", rf"(?=s){_LEFT}sk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_\-]{{20,}}"),
    ("google-key", rf"(?=A){_LEFT}AIza[0-9A-Za-z_\-]{{35}}\b"),
    (
        "google-oauth",
        rf"(?=y){_LEFT}ya29\.[0-9A-Za-z_\-]{{20,}}|(?=G){_LEFT}GOCSPX-[A-Za-z0-9_\-]{{20,}}",
    ),
    ("stripe-key", rf"(?=[rsw]){_LEFT}(?:sk|rk|whsec)_(?:live_|test_)?[A-Za-z0-9]{{24,}}\b"),
    ("npm-token", rf"(?=n){_LEFT}npm_[A-Za-z0-9]{{36}}\b"),
    ("pypi-token", rf"(?=p){_LEFT}pypi-AgE[A-Za-z0-9_\-]{{40,}}"),
    ("huggingface-token", rf"(?=h){_LEFT}hf_[A-Za-z0-9]{{30,}}\b"),
    ("sendgrid-key", rf"(?=S){_LEFT}SG\.[A-Za-z0-9_\-]{{16,}}\.[A-Za-z0-9_\-]{{16,}}"),
    ("digitalocean-token", rf"(?=d){_LEFT}do[por]_v1_[a-f0-9]{{64}}\b"),
    ("shopify-token", rf"(?=s){_LEFT}shp(?:at|ca|pa|ss)_[a-fA-F0-9]{{32}}\b"),
    ("groq-key", rf"(?=g){_LEFT}gsk_[A-Za-z0-9]{{40,}}\b"),
    ("xai-key", rf"(?=x){_LEFT}xai-[A-Za-z0-9]{{40,}}\b"),
    ("vault-token", rf"(?=h){_LEFT}hv[sbr]\.[A-Za-z0-9_\-]{{24,}}"),
    ("age-secret-key", rf"(?=A){_LEFT}AGE-SECRET-KEY-1[0-9A-Z]{{58}}\b"),
    ("databricks-token", rf"(?=d){_LEFT}dapi[a-f0-9]{{32}}(?:-\d+)?\b"),
    ("telegram-bot-token", r"\b\d{8,10}:AA[A-Za-z0-9_\-]{33}\b"),
    ("twilio-key", r"\bSK[0-9a-f]{32}\b"),
    ("mailgun-key", r"\bkey-[0-9a-f]{32}\b"),
    ("memory-key", rf"(?=m){_LEFT}(?:m0|mem0)[-_][A-Za-z0-9]{{30,}}\b"),
    ("jwt", rf"(?=e){_LEFT}eyJ[A-Za-z0-9_\-]{{8,}}\.eyJ[A-Za-z0-9_\-]{{8,}}\.[A-Za-z0-9_\-]{{8,}}"),
    ("azure-key", r"(?i)\b(?:AccountKey|SharedAccessKey)=(?P<secret>[A-Za-z0-9+/]{20,}={0,2})"),
    ("bearer", r"(?i)\bbearer\s+(?P<secret>[A-Za-z0-9._~+/\-]{16,}=*)"),
    ("basic-auth", r"(?i)\bauthorization:\s*basic\s+(?P<secret>[A-Za-z0-9+/]{12,}={0,2})"),
    # "postgres://app:pw@db", "redis://:pw@cache" (no user).
    ("url-password", r"(?<=://)(?P<secret>[^\s:/@]*:[^\s@/]+)(?=@)"),
    (
        "api-key-header",
        r"(?i)\b(?:x-[\w-]*(?:key|token|secret|auth)[\w-]*|api-key|private-token)"
        r":\s*(?P<secret>(?!\[secret:)[^\s\"']{8,})",
    ),
    # "curl -u deploy:pw", "--user deploy:pw": the password after the user (never a
    # numeric "1000:1000" of docker's -u).
    (
        "basic-auth",
        r"(?<![\w-])(?:-u|--user)(?:=|\s+)[^\s:\"'@]+:(?P<secret>(?!\[secret:)(?!\d+\b)"
        r"[^\s\"'@]{3,})",
    ),
    # "sshpass -p pw", "mysql -ppw", "docker login -p pw": -p names a password only after
    # these programs (elsewhere it is a port, a parent directory, a publish).
    (
        "flag",
        r"(?i)\b(?:sshpass\s+-p\s*|(?:mysql|mysqldump|mysqladmin|mariadb)\b[^|;&\n]*?\s-p|"
        r"(?:docker|podman|helm)\s+(?:registry\s+)?login\b[^|;&\n]*?\s-p\s+)"
        r"(?P<secret>(?!\[secret:)[^\s\"'-][^\s\"']{2,})",
    ),
    (
        "flag",
        r"(?i)(?<![\w-])--?(?:password|passwd|pass|token|api-key|apikey|secret|client-secret)"
        r"(?:=|\s+)(?P<secret>(?!\[secret:)[^\s\"'-][^\s\"']{3,})",
    ),
    (
        "assignment",
        # Quotes may come escaped, as in a command: {\"token\": \"…\"}. "Pwd=" (ODBC),
        # MYSQL_PWD, DB_PWD: a password, but the shell's PWD and OLDPWD hold a path, and
        # "pwd: command not found" says no password.
        r"(?im)(?<![\[A-Za-z0-9_])\\*[\"']?(?:[A-Z0-9_.-]*(?:SECRET|TOKEN|PASSWORD|PASSWD|"
        r"API_KEY|APIKEY|PRIVATE_KEY|ACCESS_KEY|AUTH_KEY|CREDENTIALS?|(?P<pwd>PWD))[A-Z0-9_]*)"
        r"\\*[\"']?\s*[=:][ \t]*\\*[\"']?(?(pwd)(?![/~.$]|[a-z]+(?![^\s\"'#()\[\]{},;<>\\])))"
        r"(?P<secret>(?!\[secret:)(?!\d+\b)(?!(?:true|false|null|none)\b)"
        r"[^\s\"'#()\[\]{},;<>\\]{6,})",
    ),
    # ".env" lines "DB_PASS=…", "REDIS_PASS=…", "PGPASS=…", yaml's "smtp_pass: …": PASS
    # ends the name and starts it or follows a separator (or a common glued prefix), so
    # "bypass", "compass" and "PASSED" are no names. An upper-case env name takes any
    # value, as a *_PASSWORD does; any other (a yaml key, "Pass", a bare "PASS=") takes
    # no path and no lower-case word ("first_pass: done"; "--- PASS: TestX" is no
    # assignment at all: a bare PASS takes "=" only), and digits alone are a count
    # ("PASS=12 FAIL=0"). The name meets its separator directly (the fast path's hints).
    # The word comes first and what precedes it is looked back at, so a scan of text
    # with no "pass" costs little.
    (
        "assignment",
        r"(?i:pass)(?:"
        rf"(?P<env>(?<=[A-Z0-9][_.-]PASS)|{_glued('PASS')})|"
        rf"(?i:(?<=[a-z0-9][_.-]pass)|{_glued('pass')})|"
        r"(?P<bare>(?<=(?<![\[A-Za-z0-9_.-])(?i:pass))))"
        r"(?![A-Za-z0-9_])\\*[\"']?(?(bare)=|[=:])[ \t]*\\*[\"']?"
        r"(?(env)|(?![/~.$]|[a-z]+(?![^\s\"'#()\[\]{},;<>\\])))"
        r"(?P<secret>(?!\[secret:)(?!\d+\b)(?!(?i:true|false|null|none)\b)"
        r"[^\s\"'#()\[\]{},;<>\\]{6,})",
    ),
    # "MASTER_KEY=…", "encryption_key: …", "KEY=…": a KEY names ids, paths and columns
    # too (SORT_KEY=created_at, SSH_KEY=~/.ssh/id_rsa), so only a value shaped like a
    # key is masked: 16 characters or more of a key's alphabet with a digit, and mixed
    # case (base64) or 32 and more letters and digits (hex); a bare KEY takes "=" only.
    (
        "assignment",
        r"(?i:key)(?:(?i:(?<=[a-z0-9][_.-]key)(?<!public_key)(?<!publishable_key))|"
        r"(?P<bare>(?<=(?<![\[A-Za-z0-9_.-])(?i:key))))"
        r"(?![A-Za-z0-9_])\\*[\"']?(?(bare)=|[=:])[ \t]*\\*[\"']?"
        r"(?P<secret>(?!\[secret:)(?:base64:)?(?![/~.])(?=[A-Za-z0-9+/=_.-]*\d)(?:"
        r"(?=[A-Za-z0-9+/=_.-]*[a-z])(?=[A-Za-z0-9+/=_.-]*[A-Z])[A-Za-z0-9+/=_.-]{16,}|"
        r"[A-Za-z0-9]{32,})(?![^\s\"'#()\[\]{},;<>\\]))",
    ),
    # "aws configure set aws_secret_access_key wJalr…": the name, a space, the value.
    (
        "assignment",
        r"(?i)\b(?:aws_secret_access_key|aws_session_token|secret_access_key)\s+"
        r"(?P<secret>(?!\[secret:)[A-Za-z0-9/+=]{16,})",
    ),
    # "the admin password is hunter2hunter2", 'The password for staging is "P@ssw0rd!"',
    # "the password is: letmein2024!", "The root password is 'hunter two'.", "The wifi
    # password is sunflower.", "is correct-horse-battery-staple": a quoted value, a value
    # with a digit or a symbol, a passphrase of hyphened words, or one word ending the
    # sentence that is no word of a password's state ("Password is required.").
    (
        "assignment",
        r"(?i)(?:(?<!\[)\b(?:password|passwd|passphrase|secret)\b|密码)(?:\s+for\s+[\w.-]{1,40})?"
        r"\s*(?:\b(?:is|was)\b\s*[:：]?|=|:|：|为|是)\s*[\"'`]?"
        r"(?P<secret>(?!\[secret:)(?:"
        r"(?<=[\"'`])[^\"'`\n]{4,64}(?=[\"'`])|"
        r"(?=[^\s\"'`]*[\d!@#$%^&*+=~?])[^\s\"'`,;，。]{6,}|"
        r"[A-Za-z]+(?:[-_][A-Za-z]+){2,}|"
        rf"(?!{_PASSWORD_STATES}\b)[A-Za-z]{{6,40}}(?=[.;!,]?(?:\Z|[\n\r\"'`)\]])|[.;!,]\s)"
        r"))",
    ),
    # "Our API token is tok-9f8e7d6c5b4a3928", "the deploy key is 9f8e…": a value of letters
    # and digits together, 12 characters or more ("the token is valid for 24h" is no value).
    (
        "assignment",
        r"(?i)\b(?:token|(?:api|access|secret|private|deploy|auth|license|signing)[ _-]?key)\b"
        r"\s+(?:is|was)\s*[:：]?\s*[\"'`]?"
        r"(?P<secret>(?!\[secret:)(?=[^\s\"'`]*\d)(?=[^\s\"'`]*[A-Za-z])[A-Za-z0-9._~+/=-]{12,}"
        r"(?<![.]))",
    ),
    # "passwd hunter2hunter2", "secret wJalr…": with no "is" between, only a value of
    # letters and digits together ("4=password 0=unknown" names no password).
    (
        "assignment",
        r"(?i)(?<!\[)\b(?:password|passwd|passphrase|secret)\s+[\"'`]?"
        r"(?P<secret>(?!\[secret:)(?=[^\s\"'`]*\d)(?=[^\s\"'`]*[A-Za-z])[^\s\"'`=,;，。]{6,})",
    ),
    # An AWS secret access key with no name before it ("Use this key for staging:
    # wJalr…KEY"): 40 characters of base64 with upper and lower case and a digit, on a
    # line that speaks of a key, a secret, a credential or AWS.
    (
        "aws-secret-key",
        r"(?i:\b(?:keys?|secrets?|credentials?|aws)\b)[^\n]{0,80}?(?<![A-Za-z0-9/+=])"
        r"(?P<secret>(?=[^\s]{0,39}[A-Z])(?=[^\s]{0,39}[a-z])(?=[^\s]{0,39}\d)[A-Za-z0-9/+]{40})"
        r"(?![A-Za-z0-9/+=])",
    ),
)


@cache
def _patterns() -> tuple[tuple[str, re.Pattern[str]], ...]:
    """Each kind's pattern, compiled the first time a text may hold a secret: compiling
    them all costs a hook process tens of milliseconds, and most hooks mask nothing or
    text that holds no secret (their needs tell, ``_gates``)."""
    return tuple((kind, re.compile(pattern)) for kind, pattern in _SPECS)


#: Every kind of secret this module recognises (the labels masks carry).
KINDS: tuple[str, ...] = tuple(dict.fromkeys(kind for kind, _ in _SPECS))


def mask(text: str) -> str:
    """Return ``text`` with every secret replaced by a labelled mask."""
    return mask_count(text)[0]


def mask_count(text: str) -> tuple[str, int]:
    """Return the masked text and how many secrets were masked."""
    if len(text) <= _MEMO_CHARS:
        return _mask_short(text)
    return _mask_count(text)


#: Masking a snapshot reads each candidate's text several times (its item, its candidate,
#: the guidance): texts this short are masked once (at most 32 MiB held).
_MEMO_CHARS = 1024


@lru_cache(maxsize=32768)
def _mask_short(text: str) -> tuple[str, int]:
    return _mask_count(text)


def _mask_count(text: str) -> tuple[str, int]:
    if not _patterns.cache_info().currsize and not may_hold_secret(text):
        # Compiling the patterns costs a hook tens of milliseconds, and what a hook masks
        # (a session id, a short command) seldom may hold a secret; once they are
        # compiled, their needs tell as much for less.
        return text, 0
    return _scan(text)


def _scan(text: str) -> tuple[str, int]:
    """Mask ``text`` with the patterns alone (no hints asked). A pattern is searched only
    in a text that holds one of the strings its every match holds (most text holds none
    of any: a few substring tests, each a scan in C, instead of the patterns' search)."""
    gates = _gates()
    wanted = gates.wanted(_folded(text))
    total = 0
    while wanted:
        n = wanted.pop(0)
        pattern, replacement = gates.rules[n]
        text, count = pattern.subn(replacement, text)
        if count:
            total += count
            # A mask's label ("[secret:api-key-header]") is text the later patterns read.
            wanted = [later for later in gates.wanted(_folded(text)) if later > n]
    return text, total


#: What ``re`` matches to an ASCII letter when it ignores case though ``str.lower`` makes
#: it no such letter: the dotted capital I (which lowers to "i" and a dot above), the
#: dotless i and the long s.
_FOLDS = str.maketrans({"\u0130": "i", "\u0131": "i", "\u017f": "s"})


def _folded(text: str) -> str:
    """``text`` in lower case, each character that ``re`` ignoring case takes for an ASCII
    letter made that letter: a pattern's lower-cased literal is in it wherever the
    pattern's match holds that literal, in any case."""
    return text.lower() if text.isascii() else text.translate(_FOLDS).lower()


def _group_replacer(kind: str) -> Callable[[re.Match[str]], str]:
    label = MASK.format(kind=kind)

    def replace(match: re.Match[str]) -> str:
        whole, start = match.group(), match.start()
        inner_start, inner_end = match.span("secret")
        return whole[: inner_start - start] + label + whole[inner_end - start :]

    return replace


_Replacement = str | Callable[[re.Match[str]], str]


class _Gates(NamedTuple):
    """The patterns in order, and the strings one of which every match of each holds."""

    rules: tuple[tuple[re.Pattern[str], _Replacement], ...]
    #: Every pattern's needs, each once, and the patterns (by index) that need it.
    needs: dict[str, tuple[int, ...]]
    #: The needs no other need is part of ("pass" of "password"), each with the needs
    #: that hold it: a text without it holds none of them, so most needs are never tried.
    probes: dict[str, tuple[str, ...]]

    def wanted(self, low: str) -> list[int]:
        """The patterns, in order, whose needs the folded text ``low`` holds."""
        held = [probe for probe in self.probes if probe in low]
        if not held:
            return []
        needs = self.needs
        return sorted(
            {n for probe in held for need in self.probes[probe] if need in low for n in needs[need]}
        )


@cache
def _gates() -> _Gates:
    needs: dict[str, list[int]] = {}
    rules = []
    for n, ((kind, pattern), (_, spec)) in enumerate(zip(_patterns(), _SPECS, strict=True)):
        for need in _needs(spec):
            needs.setdefault(need, []).append(n)
        replace = (
            _group_replacer(kind) if "secret" in pattern.groupindex else MASK.format(kind=kind)
        )
        rules.append((pattern, replace))
    probes = {
        probe: tuple(need for need in needs if probe in need)
        for probe in needs
        if not any(other != probe and other in probe for other in needs)
    }
    return _Gates(tuple(rules), {need: tuple(ns) for need, ns in needs.items()}, probes)


def _needs(pattern: str) -> frozenset[str]:
    """Lower-case strings one of which every match of ``pattern`` holds, read from its
    syntax; the empty string, which every text holds, when none can be told."""
    if _parser is None:  # pragma: no cover - another Python implementation
        return _ANY_TEXT
    try:
        return _sequence(list(_parser.parse(pattern))) or _ANY_TEXT
    except Exception:  # an unforeseen parse tree: the pattern is always searched
        return _ANY_TEXT


#: The need of a pattern whose needs cannot be told: every text holds it.
_ANY_TEXT = frozenset({""})


def _sequence(items: list[Any]) -> frozenset[str] | None:
    """What every match of the sequence ``items`` holds one of: the longest run of its
    literal characters, or the best need of one of its parts (``_part``), whichever
    has the longest shortest string. A run followed by an alternation goes on into
    each alternative's own run ("g" and "hp_" or "ithub_pat_": "ghp_", "github_pat_")."""
    best: frozenset[str] | None = None

    def consider(need: frozenset[str] | None) -> None:
        nonlocal best
        if need and (best is None or min(map(len, need)) > min(map(len, best))):
            best = need

    run = ""
    for op, av in items:
        if op is _sre.LITERAL:
            run += chr(av).lower()
            continue
        found = _part(op, av)
        if run:
            leads = _leads(op, av)
            consider(frozenset(run + lead for lead in leads) if leads else frozenset({run}))
            run = ""
        consider(found)
    consider(frozenset({run}) if run else None)
    return best


def _part(op: Any, av: Any) -> frozenset[str] | None:
    """What every match of one part of a pattern holds one of (None: nothing told)."""
    if op is _sre.SUBPATTERN:
        return _sequence(list(av[3]))
    if op is _sre.BRANCH:
        alternatives = [_sequence(list(branch)) for branch in av[1]]
        if any(need is None for need in alternatives):
            return None
        return frozenset().union(*alternatives)  # type: ignore[arg-type]
    if op in (_sre.MAX_REPEAT, _sre.MIN_REPEAT, _sre.POSSESSIVE_REPEAT):
        low, _high, body = av
        return _sequence(list(body)) if low >= 1 else None
    if op is _sre.ASSERT:  # a look-ahead or look-behind that must hold reads the text too
        return _sequence(list(av[1]))
    if op is _sre.GROUPREF_EXISTS:  # (?(name)yes|no): one of the two
        _group, yes, no = av
        both = [_sequence(list(yes)), _sequence(list(no)) if no is not None else None]
        return None if None in both else frozenset().union(*both)  # type: ignore[arg-type]
    return None


def _leads(op: Any, av: Any) -> list[str] | None:
    """The literal run each alternative of a part starts with, or None when one starts
    with something else (or the part is no group or alternation)."""
    if op is _sre.SUBPATTERN:
        inner = list(av[3])
        if not inner:
            return None
        if inner[0][0] is _sre.LITERAL:
            return [_lead(inner)]
        return _leads(*inner[0])
    if op is _sre.BRANCH:
        leads = [_lead(list(branch)) for branch in av[1]]
        return leads if all(leads) else None
    return None


def _lead(items: list[Any]) -> str:
    """The literal characters ``items`` starts with, in lower case."""
    out = ""
    for op, av in items:
        if op is not _sre.LITERAL:
            break
        out += chr(av).lower()
    return out


#: How far past a cut ``prefix`` looks for a secret the cut would split.
_REACH = 256
#: A word cut by ``prefix`` is dropped whole when it started at most this far back.
_WORD = 80
_SPACE = re.compile(r"\s")


def prefix(text: str, limit: int) -> str:
    """``text[:limit]``, shortened where the cut would fall inside a secret.

    A secret cut in two is no longer recognisable, so ``mask`` would let its first
    half through: a prefix holds whole secrets only (which ``mask`` then masks).
    Secrets are single words (a private block or key, which may hold spaces, is
    masked to the end when cut), so a cut between words is safe, a word it would
    split is dropped whole, and only a very long word is searched for secrets.
    """
    if len(text) <= limit:
        return text
    if text[limit].isspace() or text[limit - 1].isspace():
        return text[:limit]
    space = max((m.start() for m in _SPACE.finditer(text, limit - _WORD, limit)), default=-1)
    if space >= 0:
        return text[: space + 1]
    window = text[: limit + _REACH]
    end, moved = limit, True
    while moved:
        moved = False
        for _, pattern in _patterns():
            group = "secret" if "secret" in pattern.groupindex else 0
            for match in pattern.finditer(window):
                start, stop = match.span(group)
                if start < end < stop:
                    end, moved = start, True
    return text[:end]


def mask_data(value: object) -> object:
    """Mask every string inside JSON-like data (dicts, lists, strings); other values pass.

    A string value under a key that names a secret (``password``, ``api_key``…)
    is masked whole, since a value alone rarely looks like a secret.
    """
    if isinstance(value, str):
        return mask(value)
    if isinstance(value, dict):
        out: dict[object, object] = {}
        for key, item in value.items():
            if (
                isinstance(key, str)
                and isinstance(item, str)
                and _SECRET_NAME.search(key)
                and item.strip()
                and not item.strip().isdigit()
                and not item.startswith("[secret:")
            ):
                out[key] = MASK.format(kind="assignment")
            else:
                out[key] = mask_data(item)
        return out
    if isinstance(value, list | tuple):
        return [mask_data(item) for item in value]
    return value


_SECRET_NAME = re.compile(
    r"(?i)(?:secret|token|passw(?:or)?d|api[_-]?key|private[_-]?key|access[_-]?key|credential)"
    rf"|(?:[_.-]|^(?:{'|'.join(_GLUED_PASS)}))pass$"  # "DB_PASS", "PGPASS"
)

__all__ = ["KINDS", "MASK", "mask", "mask_count", "mask_data"]
