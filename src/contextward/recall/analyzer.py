"""The recall analyzer: text to index terms, the same way for rows and queries.

Owns: Unicode normalisation (NFKC, case folding), splitting into words,
English stopwords, stemming (:mod:`.stemmer`), CJK bigrams (Chinese,
Japanese and Korean runs have no spaces, so every pair of neighbouring
characters is a term, and a lone character is its own), and evidence ids
(``ev-7`` and ``ev-0007`` are one term).

Must never: emit a term containing a character SQLite's ``unicode61``
tokenizer would split on, or read more than :data:`MAX_ANALYZED_CHARS`.
"""

from __future__ import annotations

import re
import unicodedata

from .stemmer import stem

__all__ = ["MAX_ANALYZED_CHARS", "STOPWORDS", "analyze", "evidence_term"]

#: Text beyond this many characters is not indexed (rows are bounded lines anyway).
MAX_ANALYZED_CHARS = 20_000

STOPWORDS = frozenset(
    [
        "a",
        "about",
        "above",
        "after",
        "again",
        "all",
        "am",
        "an",
        "and",
        "any",
        "are",
        "as",
        "at",
        "be",
        "because",
        "been",
        "before",
        "being",
        "below",
        "between",
        "both",
        "but",
        "by",
        "can",
        "could",
        "did",
        "do",
        "does",
        "doing",
        "down",
        "during",
        "each",
        "few",
        "for",
        "from",
        "further",
        "had",
        "has",
        "have",
        "having",
        "he",
        "her",
        "here",
        "hers",
        "herself",
        "him",
        "himself",
        "his",
        "how",
        "i",
        "if",
        "in",
        "into",
        "is",
        "it",
        "its",
        "itself",
        "just",
        "me",
        "more",
        "most",
        "my",
        "myself",
        "no",
        "nor",
        "not",
        "now",
        "of",
        "off",
        "on",
        "once",
        "only",
        "or",
        "other",
        "our",
        "ours",
        "ourselves",
        "out",
        "over",
        "own",
        "same",
        "she",
        "should",
        "so",
        "some",
        "such",
        "than",
        "that",
        "the",
        "their",
        "theirs",
        "them",
        "themselves",
        "then",
        "there",
        "these",
        "they",
        "this",
        "those",
        "through",
        "to",
        "too",
        "under",
        "until",
        "up",
        "very",
        "was",
        "we",
        "were",
        "what",
        "when",
        "where",
        "which",
        "while",
        "who",
        "whom",
        "why",
        "will",
        "with",
        "would",
        "you",
        "your",
        "yours",
        "yourself",
        "yourselves",
        "also",
        "get",
        "got",
        "let",
        "may",
        "might",
        "must",
        "shall",
        "us",
        "via",
        "d",
        "ll",
        "m",
        "re",
        "s",
        "t",
        "ve",
        "don",
        "doesn",
        "didn",
        "isn",
        "wasn",
    ]
)

_CJK = (
    "\u1100-\u11ff\u3040-\u30ff\u3130-\u318f\u3400-\u4dbf\u4e00-\u9fff"
    "\uac00-\ud7af\uf900-\ufaff\uff66-\uff9f"
)
_TOKEN = re.compile(
    f"(?P<ev>\\bev-?0*(?P<n>\\d{{1,12}})\\b)|(?P<cjk>[{_CJK}]+)|(?P<word>[^\\W_{_CJK}]+)"
)


def evidence_term(seq: int) -> str:
    """The index term for evidence id ``seq`` (``ev-0007`` -> ``ev7``)."""
    return f"ev{seq}"


def analyze(text: str) -> list[str]:
    """Index terms of ``text`` in order (duplicates kept: BM25 counts them)."""
    folded = unicodedata.normalize("NFKC", text[:MAX_ANALYZED_CHARS]).casefold()
    terms: list[str] = []
    for match in _TOKEN.finditer(folded):
        if match.group("ev") is not None:
            terms.append(evidence_term(int(match.group("n"))))
        elif match.group("cjk") is not None:
            run = match.group("cjk")
            if len(run) == 1:
                terms.append(run)
            else:
                terms.extend(run[i : i + 2] for i in range(len(run) - 1))
        else:
            word = match.group("word")
            if word in STOPWORDS:
                continue
            terms.append(stem(word))
    return terms
