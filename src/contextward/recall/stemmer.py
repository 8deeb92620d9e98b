"""A light, conservative English stemmer written for recall.

Owns: mapping an English word (already lower-case) to a stem so that
inflections meet — ``retrieving``/``retrieval``, ``patch``/``patches``,
``retry``/``retries``/``retried``, ``api``/``APIs``, ``db``/``DBs`` — while
unrelated words stay apart. It is a
suffix stripper, not Porter: Porter turns ``organization`` into ``organ`` and
then answers ``organic``; this one only strips inflections and a few
derivational endings, and only when a long enough stem remains.

Must never: touch non-ASCII words, digits or identifiers with digits (they
are returned unchanged), or return an empty string.
"""

from __future__ import annotations

from functools import lru_cache

__all__ = ["stem"]

_VOWELS = frozenset("aeiouy")
# The four-letter English words in -is/-us that are not a plural of a
# three-letter stem. The shape is otherwise a short plural (APIs, CLIs, GPUs,
# CPUs), and the class is closed: these are all the common ones.
_NOT_SHORT_PLURALS = frozenset(
    ["anus", "axis", "dais", "ibis", "iris", "nous", "onus", "opus", "plus", "thus", "this"]
)
# Derivational endings: (suffix, replacement, shortest stem that may remain).
_DERIVATIONAL: tuple[tuple[str, str, int], ...] = (
    ("ization", "iz", 3),
    ("ational", "at", 3),
    ("ation", "at", 3),
    ("ness", "", 3),
    ("ment", "", 4),
    ("ful", "", 3),
    ("ally", "", 4),
    ("ly", "", 4),
    ("al", "", 5),
)


@lru_cache(maxsize=1 << 16)
def stem(word: str) -> str:
    """The stem of one lower-case word; of a word under four letters, only a plural "s"
    after a consonant goes (``dbs``, ``ids``; not ``bus``, ``gas``, ``yes``)."""
    if len(word) < 3 or not word.isascii() or not word.isalpha():
        return word
    if len(word) == 3:
        # A two-letter stem that ends in a vowel is no stem: bus, gas, yes, has stay whole.
        plural = word[2] == "s" and word[1] not in _VOWELS and word[1] != "s"
        return word[:2] if plural else word
    w = _plural(word)
    w = _inflection(w)
    for suffix, replacement, shortest in _DERIVATIONAL:
        if w.endswith(suffix) and len(w) - len(suffix) >= shortest:
            w = w[: len(w) - len(suffix)] + replacement
            break
    if w.endswith("e") and len(w) > 3:
        w = w[:-1]
    if w.endswith("y") and len(w) > 2 and w[-2] not in _VOWELS:
        w = w[:-1] + "i"
    return w or word


def _plural(w: str) -> str:
    if w.endswith("ies") and len(w) > 4:
        return w[:-3] + "i"
    if w.endswith(("sses", "ches", "shes", "xes", "zes")):
        return w[:-2]
    if w.endswith("s") and not w.endswith(("ss", "us", "is")) and len(w) > 3:
        return w[:-1]
    # -us/-is marks a Latin or Greek singular (status, virus, basis), but on a
    # three-letter stem it is a plural: apis, clis, gpus.
    if w.endswith(("us", "is")) and len(w) == 4 and w not in _NOT_SHORT_PLURALS:
        return w[:-1]
    return w


def _inflection(w: str) -> str:
    for suffix in ("ingly", "edly", "ing", "ied", "ed"):
        if not w.endswith(suffix) or (suffix == "ed" and w.endswith("eed")):
            continue
        base = w[: len(w) - len(suffix)]
        if suffix == "ied":
            return base + "i" if len(base) >= 2 else w
        if len(base) < 3 or not (_VOWELS & set(base)):
            return w
        # running -> run, but passed -> pass, filled -> fill, buzzed -> buzz.
        if len(base) > 3 and base[-1] == base[-2] and base[-1] not in "lsz" + "aeiou":
            base = base[:-1]
        return base
    return w
