"""Secret masking: replace secrets inside otherwise verbatim text.

A leaf module (stdlib only) so every layer that prints, stores or injects
text can mask it. It never logs or returns what it masked, only the count.
"""

from __future__ import annotations

import re

#: What a masked secret becomes; the label says which kind was found.
MASK = "[secret:{kind}]"

# Ordered: more specific formats first, so a key inside a URL or header is
# named by its own kind.
_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (kind, re.compile(pattern))
    for kind, pattern in (
        (
            "private-key",
            r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY-----[\s\S]*?(?:-----END (?:[A-Z0-9]+ )*PRIVATE KEY-----|\Z)",
        ),
        ("aws-access-key", r"\b(?:AKIA|ASIA|AGPA|AIDA|AROA|ANPA|ANVA)[A-Z0-9]{16}\b"),
        ("github-token", r"\b(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{40,})\b"),
        ("gitlab-token", r"\bglpat-[A-Za-z0-9_\-]{20,}\b"),
        ("slack-token", r"\bxox[abposr]-[A-Za-z0-9\-]{10,}\b"),
        ("slack-webhook", r"https://hooks\.slack\.com/services/[A-Za-z0-9/_\-]+"),
        ("anthropic-key", r"\bsk-ant-[A-Za-z0-9_\-]{20,}"),
        ("openai-key", r"\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_\-]{20,}"),
        ("google-key", r"\bAIza[0-9A-Za-z_\-]{35}\b"),
        ("stripe-key", r"\b(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}\b"),
        ("jwt", r"\beyJ[A-Za-z0-9_\-]{8,}\.eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}"),
        ("bearer", r"(?i)(?<=\bbearer )[A-Za-z0-9._~+/\-]{16,}=*"),
        ("url-password", r"(?<=://)[^\s:/@]+:[^\s@/]+(?=@)"),
        (
            "assignment",
            r"(?im)(?<![\[A-Za-z0-9_])(?:[A-Z0-9_]*(?:SECRET|TOKEN|PASSWORD|PASSWD|API_KEY|APIKEY|PRIVATE_KEY|ACCESS_KEY)[A-Z0-9_]*)\s*[=:]\s*(?!\[secret:)[\"']?[^\s\"'#]{6,}[\"']?",
        ),
    )
)


def mask(text: str) -> str:
    """Return ``text`` with every secret replaced by a labelled mask."""
    return mask_count(text)[0]


def mask_count(text: str) -> tuple[str, int]:
    """Return the masked text and how many secrets were masked."""
    total = 0
    for kind, pattern in _PATTERNS:
        if kind == "assignment":
            text, count = pattern.subn(_mask_assignment, text)
        else:
            text, count = pattern.subn(MASK.format(kind=kind), text)
        total += count
    return text, total


def _mask_assignment(match: re.Match[str]) -> str:
    name, sep, _value = re.split(r"(\s*[=:]\s*)", match.group(), maxsplit=1)
    return f"{name}{sep}{MASK.format(kind='assignment')}"
