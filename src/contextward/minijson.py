"""A small JSON reader and writer for the hook fast path, built on CPython's ``_json``.

``import json`` pulls in ``re``, ``enum`` and ``functools``: several
milliseconds, more than the whole fast path may cost. ``_json`` (the C
accelerator that ``json`` itself uses) is built in and imports nothing, so
strings are scanned and escaped in C and only the structure is walked here.
Semantics are ``json.loads`` / ``json.dumps(ensure_ascii=True)`` for the
values hook payloads hold; anything else raises ``ValueError``.

Must never: be used where the ``json`` module is already loaded anyway.
"""

from __future__ import annotations

from _json import encode_basestring_ascii, scanstring

_WS = " \t\n\r"
_CONSTANTS = {"true": True, "false": False, "null": None}
_NUMBER_CHARS = frozenset("+-0123456789.eE")
MAX_DEPTH = 64


def loads(text: str) -> object:
    value, end = _value(text, _skip(text, 0), 0)
    if _skip(text, end) != len(text):
        raise ValueError("extra data after the JSON value")
    return value


def dumps(value: object) -> str:
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, str):
        return str(encode_basestring_ascii(value))
    if isinstance(value, int):
        return str(int(value))
    if isinstance(value, list | tuple):
        return "[" + ", ".join(dumps(v) for v in value) + "]"
    if isinstance(value, dict):
        parts = []
        for key, item in value.items():
            if not isinstance(key, str):
                raise ValueError("object keys must be strings")
            parts.append(f"{encode_basestring_ascii(key)}: {dumps(item)}")
        return "{" + ", ".join(parts) + "}"
    raise ValueError(f"cannot encode {type(value).__name__}")


def _skip(text: str, i: int) -> int:
    while i < len(text) and text[i] in _WS:
        i += 1
    return i


def _value(text: str, i: int, depth: int) -> tuple[object, int]:
    if depth > MAX_DEPTH:
        raise ValueError("JSON nested too deeply")
    if i >= len(text):
        raise ValueError("unexpected end of JSON")
    char = text[i]
    if char == '"':
        value, end = scanstring(text, i + 1, True)
        return value, end
    if char == "{":
        return _object(text, i + 1, depth + 1)
    if char == "[":
        return _array(text, i + 1, depth + 1)
    for word, constant in _CONSTANTS.items():
        if text.startswith(word, i):
            return constant, i + len(word)
    end = i
    while end < len(text) and text[end] in _NUMBER_CHARS:
        end += 1
    token = text[i:end]
    if not token:
        raise ValueError(f"unexpected character at {i}")
    try:
        return (float(token) if any(c in token for c in ".eE") else int(token)), end
    except ValueError:
        raise ValueError(f"bad number at {i}") from None


def _object(text: str, i: int, depth: int) -> tuple[dict[str, object], int]:
    result: dict[str, object] = {}
    i = _skip(text, i)
    if i < len(text) and text[i] == "}":
        return result, i + 1
    while True:
        if i >= len(text) or text[i] != '"':
            raise ValueError(f"expected a key at {i}")
        key, i = scanstring(text, i + 1, True)
        i = _skip(text, i)
        if i >= len(text) or text[i] != ":":
            raise ValueError(f"expected ':' at {i}")
        result[key], i = _value(text, _skip(text, i + 1), depth)
        i = _skip(text, i)
        if i < len(text) and text[i] == ",":
            i = _skip(text, i + 1)
            continue
        if i < len(text) and text[i] == "}":
            return result, i + 1
        raise ValueError(f"expected ',' or '}}' at {i}")


def _array(text: str, i: int, depth: int) -> tuple[list[object], int]:
    result: list[object] = []
    i = _skip(text, i)
    if i < len(text) and text[i] == "]":
        return result, i + 1
    while True:
        value, i = _value(text, i, depth)
        result.append(value)
        i = _skip(text, i)
        if i < len(text) and text[i] == ",":
            i = _skip(text, i + 1)
            continue
        if i < len(text) and text[i] == "]":
            return result, i + 1
        raise ValueError(f"expected ',' or ']' at {i}")
