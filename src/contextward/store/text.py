"""Text the store can hold: SQLite stores UTF-8, so lone surrogates are replaced.

Must never: change text that is already valid (the common case returns it as is).
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable

from ..redact import mask


def storable(text: str) -> str:
    """``text`` with lone surrogates (undecodable bytes from argv or files) replaced.

    SQLite stores UTF-8 only; without this a stray byte in a command line would
    make a write fail. Bytes that argv or a file could not decode come back as
    U+FFFD, as a reader would show them.
    """
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:
        pass
    try:
        return text.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
    except UnicodeEncodeError:
        return text.encode("utf-8", "replace").decode("utf-8")


def storable_id(value: str) -> str:
    """An id a host sent, as the store may keep it: repaired, and hashed when it holds a
    secret (hosts make ids themselves; a payload naming a session by a token is not one)."""
    value = storable(value)
    if mask(value) == value:
        return value
    return "masked-" + hashlib.sha256(value.encode("utf-8")).hexdigest()[:32]


#: Ends a key that held a secret: a digest of the unmasked text, so two commands that
#: differ only in their secret stay two keys ("GH_TOKEN=[secret:github-token] ./deploy.sh").
_SECRET_TAG = re.compile(r" #variant:[0-9a-f]{16}$")


def storable_key(text: str, salt: Callable[[], bytes]) -> str:
    """A lookup key the store may keep for ``text`` (a streak key): masked, and when that
    masked a secret, tagged with a digest of the unmasked text keyed with the store's
    ``salt`` (HMAC-SHA256; asked for only then), so the key cannot be brute-forced back
    into a short secret without the salt file. The tag is never shown (``shown_key``);
    the store keeps the digest, never the secret."""
    text = storable(text)
    masked = mask(text)
    if masked == text:
        return text
    import hmac  # only for a key that held a secret: the hook's usual path never needs it

    digest = hmac.new(salt(), text.encode("utf-8"), hashlib.sha256).hexdigest()
    return f"{masked} #variant:{digest[:16]}"


def shown_key(key: str) -> str:
    """A stored key as it is shown: without the digest of the secrets it held."""
    return _SECRET_TAG.sub("", key)


def encodable(value: object) -> bool:
    """Whether JSON-like ``value`` holds no lone surrogate (JSON's "\\ud800" decodes to one)."""
    try:
        json.dumps(value, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


__all__ = ["encodable", "shown_key", "storable", "storable_id", "storable_key"]
