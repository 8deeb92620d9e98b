"""Shell command fingerprints and the trust analysis of a command line.

Owns: a small, forgiving shell lexer (quotes, escapes, ``$(...)``, backticks,
comments and control operators), the normalised command *fingerprint*, the
loop-brake *streak key*, and the detection of exit statuses that prove
nothing (an unchecked pipeline, a failure mask, a negation).

Must never: run a command, raise on malformed input (an unterminated quote
is read to the end of the line), or touch the store. Pure and stdlib only.
"""

from __future__ import annotations

import itertools
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


def shown_command(command: str) -> str:
    """A command (or fingerprint) as it is shown to people: its words and operators one
    space apart, a ``;`` against the word before it (``ls; echo done``)."""
    parts: list[str] = []
    for token in shell_tokens(command):
        text = ";" if token.text == "\n" else token.text
        if parts and token.op and text == ";":
            parts[-1] += ";"
        else:
            parts.append(text)
    return " ".join(parts)


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
    """The loop-brake key: the fingerprint without a trailing failure mask or separator,
    each word in one spelling of what the shell passes (``'tests/a.py'``, ``"tests/a.py"``
    and ``tests/a.py`` are one word)."""
    tokens = _strip_trailing_separators(_tokens(command))
    cut = _mask_start(tokens)
    if cut is not None:
        tokens = _strip_trailing_separators(tokens[:cut])
    return _render([t if t.op else Token(_canonical_word(t.text)) for t in tokens])


#: Characters the shell expands or treats specially in an unquoted word: quoting them
#: changes what runs (``*.py`` globs, ``'*.py'`` does not), so such a word stays verbatim.
_UNQUOTED_SPECIAL = frozenset("*?[]{}~!")
#: What ``shlex.quote`` leaves bare.
_SAFE_WORD = re.compile(r"[\w@%+=:,./-]+", re.ASCII)


def _canonical_word(word: str) -> str:
    """``word`` spelled the one way for the value the shell passes, when quoting is all
    that differs; verbatim when it expands anything (``$``, a backtick, a glob, ``~``) or
    cannot be read, so no two words that run differently ever share a spelling."""
    if "$" in word or "`" in word or not any(ch in "'\"\\" for ch in word):
        return word
    value: list[str] = []
    i, n = 0, len(word)
    while i < n:
        ch = word[i]
        if ch == "'":
            end = word.find("'", i + 1)
            if end < 0:
                return word
            value.append(word[i + 1 : end])
            i = end + 1
        elif ch == '"':
            i += 1
            while i < n and word[i] != '"':
                if word[i] == "\\" and i + 1 < n and word[i + 1] in '"\\':
                    i += 1
                value.append(word[i])
                i += 1
            if i >= n:
                return word
            i += 1
        elif ch == "\\":
            if i + 1 >= n or word[i + 1] == "\n":
                return word
            value.append(word[i + 1])
            i += 2
        elif ch in _UNQUOTED_SPECIAL:
            return word
        else:
            value.append(ch)
            i += 1
    text = "".join(value)
    if _ASSIGNMENT.match(text):
        if not _ASSIGNMENT.match(word):  # ``"x"=1`` is a command's name, no assignment
            return "'" + text.replace("'", "'\"'\"'") + "'"
        # ``A='x y'`` stays an assignment: only its value is quoted.
        name, _, rest = text.partition("=")
        return f"{name}={_quoted(rest)}"
    return _quoted(text)


def _quoted(text: str) -> str:
    return text if _SAFE_WORD.fullmatch(text) else shlex.quote(text)


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
    return (
        bool(words)
        and words[0] not in _SETUP | _ALWAYS_TRUE | {"exit", "return"}
        and not _ASSIGNMENT.match(words[0])
    )


#: How deep ``bash -c '…'`` and ``eval '…'`` texts are followed.
_NESTED_DEPTH = 4
_SHELLS = frozenset({"sh", "bash", "zsh", "dash", "ksh", "mksh", "ash"})
#: Keywords whose command's exit status is consumed (a condition never fails the line).
_CONDITIONS = frozenset({"if", "elif", "while", "until"})
CONDITION = "condition: the exit status of a command tested by `if`/`while` never fails the line"


def _unquote(word: str) -> str:
    """The word as the shell passes it (quotes removed); verbatim when it cannot be read."""
    try:
        parts = shlex.split(word)
    except ValueError:
        return word
    return parts[0] if len(parts) == 1 else word


def _nested_script(words: list[str]) -> str | None:
    """The shell text ``bash -c '…'`` or ``eval …`` runs, with the shell options that
    change how its status is reported (``-o pipefail``, ``-e``) set first."""
    while words and _ASSIGNMENT.match(words[0]):
        words = words[1:]
    if not words:
        return None
    name = _unquote(words[0]).rsplit("/", 1)[-1]
    if name == "eval":
        return " ".join(_unquote(w) for w in words[1:])
    if name not in _SHELLS:
        return None
    setup: list[str] = []
    args = [_unquote(w) for w in words[1:]]
    pos = 0
    while pos < len(args):
        arg = args[pos]
        if arg == "--" or not arg.startswith(("-", "+")):
            return None
        letters = "" if arg.startswith("--") else arg[1:]
        takes_name = "o" in letters and pos + 1 < len(args)
        if arg.startswith("-") and takes_name and args[pos + 1] in ("pipefail", "errexit"):
            setup.append(f"set -o {args[pos + 1]};")
        if arg.startswith("-") and "e" in letters:
            setup.append("set -e;")
        if "c" in letters:
            return " ".join((*setup, args[pos + 1] if pos + 1 < len(args) else ""))
        pos += 2 if takes_name else 1
    return None


def _fallback_end(tokens: list[Token], start: int) -> int:
    """Index just past the command or group that starts at ``start`` (after ``||``)."""
    if start >= len(tokens):
        return start
    first = tokens[start]
    opener, closer = ("(", ")") if first.op and first.text == "(" else ("{", "}")
    if first.text != opener:
        end = start
        while end < len(tokens) and not tokens[end].op:
            end += 1
        return end
    depth = 0
    for index in range(start, len(tokens)):
        tok = tokens[index]
        if tok.text == opener and tok.op == first.op:
            depth += 1
        elif tok.text == closer and tok.op == first.op:
            depth -= 1
            if depth == 0:
                return index + 1
    return len(tokens)


def _keeps_failure(words: list[str]) -> bool:
    """``false``, ``exit 1``: a fallback that fails in turn hands the failure on."""
    if not words:
        return False
    head = _unquote(words[0])
    if head in ("false", "/bin/false", "/usr/bin/false"):
        return True
    return head in ("exit", "return") and len(words) > 1 and _unquote(words[1]) not in ("0", "")


def _program(words: list[str]) -> str:
    rest = [w for w in words if not _ASSIGNMENT.match(w)]
    return _unquote(rest[0]).rsplit("/", 1)[-1] if rest else ""


def _fallback_proves(before: list[str], fallback: list[Token]) -> bool:
    """Whether ``A || B`` still reports A's failure: B fails in turn, or checks again
    (``pytest || pytest --lf``, ``make test || make check``)."""
    commands = [[w for w in words if w not in ("{", "}")] for _, words, _ in _commands(fallback)]
    commands = [words for words in commands if words]
    if not commands:
        return False
    if _keeps_failure(commands[-1]):
        return True
    program = _program(before)
    return any((program and _program(words) == program) or _runs_tests(words) for words in commands)


def _masked_fallbacks(tokens: list[Token]) -> bool:
    """Any ``A || B`` whose B proves nothing about A (``|| { echo failed; }``, ``|| cat
    log``): the line exits with B's status when A fails."""
    for index, tok in enumerate(tokens):
        if not (tok.op and tok.text == "||"):
            continue
        start = index
        while start and not tokens[start - 1].op:
            start -= 1
        before = [t.text for t in tokens[start:index]]
        fallback = tokens[index + 1 : _fallback_end(tokens, index + 1)]
        if not _fallback_proves(before, fallback):
            return True
    return False


#: Programs that are test runners whatever their arguments.
_RUNNERS = frozenset(
    {"pytest", "py.test", "tox", "nox", "ctest", "rspec", "phpunit", "jest", "vitest", "mocha"}
)
#: ``PROGRAM SUBCOMMAND`` test runs (``go test``, ``cargo nextest run``).
_TEST_SUBCOMMANDS = {
    "go": ("test",),
    "cargo": ("test", "nextest"),
    "dotnet": ("test",),
    "deno": ("test",),
    "bun": ("test",),
    "swift": ("test",),
}
#: Build tools whose test target or phase may stand anywhere among the operands.
_TEST_TARGETS = {
    "make": ("test", "check"),
    "gmake": ("test", "check"),
    "gradle": ("test", "check"),
    "gradlew": ("test", "check"),
    "mvn": ("test", "verify"),
    "mvnw": ("test", "verify"),
}
_SCRIPT_RUNNERS = frozenset({"npm", "pnpm", "yarn", "bun"})
_PYTHON = re.compile(r"^(?:python[0-9.]*|py|coverage)$")
_TEST_MODULES = frozenset({"pytest", "unittest", "tox", "nox"})
#: Words that only prefix the real command: keywords and wrappers that run their arguments.
_PREFIXES = frozenset({"!", "{", "(", "time", "if", "then", "do", "else", "elif", "while", "until"})
_WRAPPERS = frozenset(
    {"env", "nohup", "command", "exec", "nice", "stdbuf", "sudo", "doas", "xvfb-run", "npx", "bunx"}
)
_RUN_TOOLS = frozenset({"uv", "poetry", "pipenv", "pdm", "hatch", "rye"})


def _runner_words(words: list[str]) -> list[str]:
    """``words`` without assignments, keywords and wrappers: the program and its args."""
    words = [_unquote(w) for w in words]
    i = 0
    while i < len(words):
        word = words[i]
        name = word.rsplit("/", 1)[-1]
        if _ASSIGNMENT.match(word) or word in _PREFIXES:
            i += 1
        elif name in _WRAPPERS or name == "timeout":
            i += 1
            while i < len(words) and words[i].startswith("-"):
                i += 1
            i += 1 if name == "timeout" else 0  # the duration
        elif name in _RUN_TOOLS and words[i + 1 : i + 2] == ["run"]:
            i += 2
            while i < len(words) and words[i].startswith("-"):
                i += 1
        else:
            return words[i:]
    return []


def _runs_tests(words: list[str], depth: int = 0) -> bool:
    """Whether one simple command runs a test runner (not one that only names it:
    ``echo npm test``, ``pip install pytest``, ``grep pytest``)."""
    script = _nested_script(words) if depth < _NESTED_DEPTH else None
    if script is not None:
        return is_test_run(script, _depth=depth + 1)
    run = _runner_words(words)
    if not run:
        return False
    name, args = run[0].rsplit("/", 1)[-1], run[1:]
    operands = [a for a in args if not a.startswith("-")]
    if name in _RUNNERS:
        return True
    if _PYTHON.match(name):
        return any(a == "-m" and m in _TEST_MODULES for a, m in itertools.pairwise(args))
    if name == "node":
        return "--test" in args
    if name in _SCRIPT_RUNNERS and operands:
        script_name = operands[1] if operands[0] in ("run", "run-script") else operands[0]
        if len(operands) == 1 and operands[0] in ("run", "run-script"):
            return False
        if script_name in ("test", "t") or script_name.startswith(("test:", "test-")):
            return True
    if name in _TEST_SUBCOMMANDS and operands:
        return operands[0] in _TEST_SUBCOMMANDS[name]
    targets = _TEST_TARGETS.get(name, ())
    return any(a in targets or a.endswith(tuple(f":{t}" for t in targets)) for a in operands)


def is_test_run(command: str | list[Token], *, _depth: int = 0) -> bool:
    """Whether ``command`` runs a test runner, so its outcome is evidence."""
    return any(_runs_tests(words, _depth) for _, words, _ in _commands(_tokens(command)))


def untrusted_reasons(command: str | list[Token], *, _depth: int = 0) -> tuple[str, ...]:
    """Why an exit 0 of ``command`` would not prove success; empty when it would.

    ``bash -c '…'`` and ``eval '…'`` texts are read too: their own masks count."""
    tokens = _tokens(command)
    reasons: list[str] = []
    nested: list[str] = []
    condition = False
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
        condition = condition or bool(words and words[0] in _CONDITIONS)
        script = _nested_script(words) if _depth < _NESTED_DEPTH else None
        if script is not None:
            nested.extend(untrusted_reasons(script, _depth=_depth + 1))
        last_of_list = before in _LIST_SEPARATORS and after in {"", ")"}
        if _always_true(words) and (before == "||" or last_of_list):
            masked = True
    stripped = _strip_trailing_separators(tokens)
    if stripped and stripped[-1].op and stripped[-1].text == "&":
        reasons.append("backgrounded: a trailing `&` exits 0 before the command finishes")
    if pipeline:
        reasons.append("pipeline without pipefail: the exit status is only the last stage's")
    if masked or _masked_fallbacks(tokens):
        reasons.append("failure mask (`|| true`, `; true`, `|| :` or similar) forces exit 0")
    elif lost:
        reasons.append(
            "list with `;`: the exit status is only the last command's, an earlier failure is lost"
        )
    if condition:
        reasons.append(CONDITION)
    return tuple(dict.fromkeys((*reasons, *nested)))


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
    "is_test_run",
    "pipefail_rewrite",
    "shell_tokens",
    "shown_command",
    "streak_key",
    "untrusted_reasons",
]
