"""Whether a text may hold a secret, answered without a regular expression.

A leaf module (no imports at all): the hook fast path asks it before it spools a
prompt unmasked (``spool``), and ``redact`` asks it before it compiles its
patterns, which costs a hook process tens of milliseconds while most of what a
hook masks (a session id, a short command) holds no secret.

Must never: answer False for a text that ``redact`` would mask (a false alarm
only costs the patterns' scan).
"""

from __future__ import annotations

# Lower-cased fragments that any supported secret format contains, plus long
# unbroken runs checked separately. A false alarm costs only the full path.
_HINTS = (
    "sk-", "sk_", "rk_", "akia", "asia", "agpa", "aida", "aroa", "anpa", "anva",
    "gh" + "p_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat", "glpat", "gldt", "glrt",
    "xox", "hooks.slack", "aiza", "ya29.", "eyj", "-----begin", "://", "bearer",
    "basic ", "secret", "token", "passw", "pwd", "api_key", "apikey", "api-key",
    "private", "credential", "auth", "key=", "key:", "key\"", "_key", "-key", "npm_",
    "pypi-", "hf_", "shpat", "sq0", "sg.", "dop_v1", "xapp", "ntn_", "lin_api", "glc_",
    "-pass", "key-",  # the flag pattern (`--pass hunter2x`), mailgun keys
    "passphrase", "key is", "key was",  # "the deploy key is 9f8e…"
    "-u ", "-u=", "--user", "sshpass", "mysql", "mariadb", "login", "密码",  # -u user:pw, -p pw
    "pass=", "pass:", "pass\"", "pass'", "pass\\", ".key",  # DB_PASS=…, app.key=…
)  # fmt: skip
_LONG_RUN = 24


#: What a key's run is made of: a long unbroken run may be a key of any format.
_RUN_CHARS = "+/=_-."
_UUID_DASHES = (8, 13, 18, 23)


def may_hold_secret(text: str) -> bool:
    """True when ``text`` might contain a secret; False only when it certainly cannot.

    A long run of key characters may be a key of any format, but a UUID alone is none:
    hosts name sessions and tool calls by one, and no secret format is one (each names
    itself by a prefix or a word these hints hold)."""
    lowered = text.lower()
    if any(hint in lowered for hint in _HINTS):
        return True
    start = 0
    for end, char in enumerate(text):
        if char.isalnum() or char in _RUN_CHARS:
            continue
        if end - start >= _LONG_RUN and not _uuid(text[start:end]):
            return True
        start = end + 1
    return len(text) - start >= _LONG_RUN and not _uuid(text[start:])


def _uuid(run: str) -> bool:
    """Whether ``run`` is one UUID ("0f3c5a4e-9b1d-4c2e-8f7a-1d2e3f4a5b6c") and nothing more."""
    return (
        len(run) == 36
        and all(run[n] == "-" for n in _UUID_DASHES)
        and all(c in "0123456789abcdefABCDEF" for c in run.replace("-", ""))
    )
