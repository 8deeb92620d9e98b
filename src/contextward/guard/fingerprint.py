"""Shell command fingerprints and the trust analysis of a command line.

Owns: a small, forgiving shell lexer (quotes, escapes, ``$(...)``, backticks,
comments and control operators), the normalised command *fingerprint*, the
loop-brake *streak key*, and the detection of exit statuses that prove
nothing (an unchecked pipeline, a failure mask, a negation).

Must never: run a command, raise on malformed input (an unterminated quote
is read to the end of the line), or touch the store. Pure and stdlib only.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass

#: Control operators, longest first so ``||`` wins over ``|``.
_OPERATORS = ("||", "&&", "|&", ";;", "|", "&", ";", "(", ")", "\n")
#: Operators that end one command of a list (the status of the list is the last one's).
_LIST_SEPARATORS = frozenset({";", "\n", "&", ";;"})
#: Commands that always succeed: after ``||`` or as the last command of a list they mask failure.
_ALWAYS_TRUE = frozenset({"true", ":", "/bin/true", "/usr/bin/true", "echo", "printf"})


@dataclass(frozen=True)
class Token:
    """One shell token: a word (kept verbatim, quotes included) or a control operator."""

    text: str
    op: bool = False


@dataclass(frozen=True)
class CommandAssessment:
    """What a command line is, for evidence and the loop brake.

    ``fingerprint`` collapses whitespace outside quotes and drops comments and
    trailing separators; ``streak_key`` additionally drops trailing failure
    masks, so ``npm test || true`` shares a streak with ``npm test``.
    ``untrusted_reasons`` is empty when an exit 0 of this command proves that
    every stage succeeded.
    """

    fingerprint: str
    streak_key: str
    untrusted_reasons: tuple[str, ...]

    @property
    def trusted(self) -> bool:
        return not self.untrusted_reasons


#: Characters that mean nothing to the tokenizer's other branches (no quote, escape,
#: substitution, operator, comment or blank).
_PLAIN = re.compile(r"[^ \t\r\n\\'\"`$|&;()#]+")


def shell_tokens(command: str) -> list[Token]:
    """Split a command line into words and control operators, as bash would at top level.

    Words keep their quoting verbatim; nested ``$(...)`` and backtick
    substitutions stay inside their word. Comments are dropped.
    """
    tokens: list[Token] = []
    word: list[str] = []
    i, n = 0, len(command)

    def flush() -> None:
        if word:
            tokens.append(Token("".join(word)))
            word.clear()

    while i < n:
        ch = command[i]
        if ch in " \t\r":
            flush()
            i += 1
        elif ch == "#" and not word:
            while i < n and command[i] != "\n":
                i += 1
        elif ch == "\\":
            word.append(command[i : i + 2])
            i += 2
        elif ch == "'":
            end = command.find("'", i + 1)
            end = n if end < 0 else end + 1
            word.append(command[i:end])
            i = end
        elif ch == '"':
            end = _skip_double_quoted(command, i + 1)
            word.append(command[i:end])
            i = end
        elif ch == "`":
            end = _skip_backtick(command, i + 1)
            word.append(command[i:end])
            i = end
        elif ch == "$" and command.startswith("$(", i):
            end = _skip_parens(command, i + 2)
            word.append(command[i:end])
            i = end
        elif (plain := _PLAIN.match(command, i)) is not None:
            # A run of ordinary characters at once: a long word costs one match.
            word.append(plain.group())
            i = plain.end()
        else:
            op = next((o for o in _OPERATORS if command.startswith(o, i)), None)
            if op is not None and _in_redirection(command, i, word):
                op = None
            if op is None or (op in "()" and word and word[-1].endswith(("=", "<", ">"))):
                # ``a=(1 2)`` arrays and ``<(...)`` process substitution stay in the word.
                if op is not None:
                    end = _skip_parens(command, i + 1)
                    word.append(command[i:end])
                    i = end
                    continue
                word.append(ch)
                i += 1
            else:
                flush()
                tokens.append(Token(op, op=True))
                i += len(op)
    flush()
    return tokens


def _in_redirection(text: str, i: int, word: list[str]) -> bool:
    """``2>&1``, ``&>file`` and ``>|file`` are redirections, not control operators."""
    ch = text[i]
    after_redirect = bool(word) and word[-1].endswith((">", "<"))
    if ch == "&":
        return after_redirect or text.startswith("&>", i)
    return ch == "|" and bool(word) and word[-1].endswith(">") and not text.startswith("||", i)


def _skip_double_quoted(text: str, i: int) -> int:
    n = len(text)
    while i < n:
        ch = text[i]
        if ch == "\\":
            i += 2
        elif ch == '"':
            return i + 1
        elif ch == "$" and text.startswith("$(", i):
            i = _skip_parens(text, i + 2)
        else:
            i += 1
    return n


def _skip_backtick(text: str, i: int) -> int:
    n = len(text)
    while i < n:
        if text[i] == "\\":
            i += 2
        elif text[i] == "`":
            return i + 1
        else:
            i += 1
    return n


def _skip_parens(text: str, i: int) -> int:
    """Index just past the ``)`` closing a group opened before ``i`` (quotes respected)."""
    depth, n = 1, len(text)
    while i < n:
        ch = text[i]
        if ch == "\\":
            i += 2
            continue
        if ch == "'":
            end = text.find("'", i + 1)
            i = n if end < 0 else end + 1
            continue
        if ch == '"':
            i = _skip_double_quoted(text, i + 1)
            continue
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    return n


def _render(tokens: list[Token]) -> str:
    return " ".join(";" if t.text == "\n" else t.text for t in tokens)


def _strip_trailing_separators(tokens: list[Token]) -> list[Token]:
    end = len(tokens)
    while end and tokens[end - 1].op and tokens[end - 1].text in _LIST_SEPARATORS - {"&"}:
        end -= 1
    return tokens[:end]


def fingerprint(command: str | list[Token]) -> str:
    """The normalised command: whitespace collapsed outside quotes, comments and trailing ``;`` dropped."""
    return _render(_strip_trailing_separators(_tokens(command)))


def _tokens(command: str | list[Token]) -> list[Token]:
    return shell_tokens(command) if isinstance(command, str) else command


def _commands(tokens: list[Token]) -> list[tuple[str, list[str], str]]:
    """Split tokens into ``(operator before, words, operator after)`` triples of simple commands."""
    out: list[tuple[str, list[str], str]] = []
    before: str = ""
    words: list[str] = []
    for tok in tokens:
        if tok.op:
            if words or tok.text not in "()":
                out.append((before, words, tok.text))
            before, words = tok.text, []
        else:
            words.append(tok.text)
    if words:
        out.append((before, words, ""))
    return out


def _always_true(words: list[str]) -> bool:
    if not words:
        return False
    head = words[0]
    if head in _ALWAYS_TRUE:
        return True
    return head in {"exit", "return"} and len(words) > 1 and words[1] == "0"


def _mask_start(tokens: list[Token]) -> int | None:
    """Index of the operator that starts a trailing failure mask, if the command ends in one."""
    toks = _strip_trailing_separators(tokens)
    cut: int | None = None
    while toks:
        # Find the last top-level operator and the words after it.
        idx = max((i for i, t in enumerate(toks) if t.op), default=-1)
        if idx <= 0:
            break
        op, words = toks[idx].text, [t.text for t in toks[idx + 1 :]]
        if op in {"||", ";", "\n"} and _always_true(words):
            cut = idx
            toks = _strip_trailing_separators(toks[:idx])
        else:
            break
    return cut


def streak_key(command: str | list[Token]) -> str:
    """The loop-brake key: the fingerprint without a trailing failure mask or separator."""
    tokens = _strip_trailing_separators(_tokens(command))
    cut = _mask_start(tokens)
    if cut is not None:
        tokens = _strip_trailing_separators(tokens[:cut])
    return _render(tokens)


def _sets_pipefail(words: list[str]) -> bool:
    if not words or words[0] != "set":
        return False
    for index, flag in enumerate(words[1:], start=1):
        value = words[index + 1] if index + 1 < len(words) else ""
        if flag.startswith("-") and "o" in flag and value == "pipefail":
            return True
    return False


def _sets_errexit(words: list[str]) -> bool:
    if not words or words[0] != "set":
        return False
    return any(
        (flag.startswith("-") and not flag.startswith("--") and "e" in flag[1:])
        or (flag == "-o" and index + 1 < len(words) and words[index + 1] == "errexit")
        for index, flag in enumerate(words[1:], start=1)
    )


#: Commands of a list whose status no one needs: setting the shell up, and the keywords
#: of a compound command (``for …; do …; done``, ``if …; then …; fi``), read as a whole.
_SETUP = frozenset(
    {"set", "export", "unset", "ulimit", "umask", "shopt", "true", ":"}
    | {"for", "while", "until", "if", "then", "do", "else", "elif", "case", "select", "{"}
)
_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")


def _discarded(words: list[str]) -> bool:
    """Whether a failure of ``words``, run before ``;``, would be lost: any command but
    setting the shell up or one that cannot fail ("export CI=1; pytest" and "echo start;
    pytest" prove what pytest proves)."""
    return bool(words) and words[0] not in _SETUP | _ALWAYS_TRUE and not _ASSIGNMENT.match(words[0])


def untrusted_reasons(command: str | list[Token]) -> tuple[str, ...]:
    """Why an exit 0 of ``command`` would not prove success; empty when it would."""
    tokens = _tokens(command)
    reasons: list[str] = []
    pipefail = errexit = False
    pipeline = False
    masked = False
    lost = False
    commands = _commands(tokens)
    for index, (before, words, after) in enumerate(commands):
        if _sets_pipefail(words):
            pipefail = True
        if _sets_errexit(words):
            errexit = True
        if after in {"|", "|&"} and not pipefail:
            pipeline = True
        # "./run_tests.sh; git status": the list exits with the last command's status.
        if (
            after in _LIST_SEPARATORS
            and index + 1 < len(commands)
            and before not in {"|", "|&", "||"}
            and not errexit
            and _discarded(words)
        ):
            lost = True
        if index == 0 and words and words[0] == "!":
            reasons.append("negated: `!` inverts the exit status")
        last_of_list = before in _LIST_SEPARATORS and after in {"", ")"}
        if _always_true(words) and (before == "||" or last_of_list):
            masked = True
    stripped = _strip_trailing_separators(tokens)
    if stripped and stripped[-1].op and stripped[-1].text == "&":
        reasons.append("backgrounded: a trailing `&` exits 0 before the command finishes")
    if pipeline:
        reasons.append("pipeline without pipefail: the exit status is only the last stage's")
    if masked:
        reasons.append("failure mask (`|| true`, `; true`, `|| :` or similar) forces exit 0")
    elif lost:
        reasons.append(
            "list with `;`: the exit status is only the last command's, an earlier failure is lost"
        )
    return tuple(reasons)


def assess(command: str) -> CommandAssessment:
    """Fingerprint, streak key and trust reasons of one command line."""
    tokens = shell_tokens(command)  # once: a long command costs one pass
    return CommandAssessment(fingerprint(tokens), streak_key(tokens), untrusted_reasons(tokens))


def pipefail_rewrite(command: str) -> str:
    """The same command made to fail when any pipeline stage fails."""
    return f"bash -o pipefail -c {shlex.quote(command)}"


__all__ = [
    "CommandAssessment",
    "Token",
    "assess",
    "fingerprint",
    "pipefail_rewrite",
    "shell_tokens",
    "streak_key",
    "untrusted_reasons",
]
