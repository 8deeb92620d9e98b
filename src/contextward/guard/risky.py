"""Risky shell commands: a verdict with reason codes for a handful of catastrophes.

Owns the narrow list of commands that deserve one confirmation before they
run: ``rm -r`` (or ``find -delete``) of ``/`` or the home directory, ``git push
--force`` without a lease, ``git reset --hard``, ``mkfs`` or ``dd`` onto a device,
``chmod -R 777`` of ``/`` or home, ``curl``/``wget`` piped into a shell or a
script interpreter, and ``sudo rm``.

A relative operand is judged where it runs: ``cd /``, ``cd ~`` (and ``cd`` on to
a relative directory from there) earlier on the same line is followed, so
``cd / && rm -rf *`` is ``rm -rf /*``. A directory the text spells as neither
(``cd build``, ``cd "$DIR"``) leaves a relative operand unjudged; one it cannot
resolve (``cd $(echo /)``, ``cd {/,}``, ``cd $DIR``) may be either, so all of it
(``rm -rf *`` there) is ``rm-unknown-dir``.

What another command runs is checked as the command it is: ``find -exec``'s
command with ``{}`` standing for what the find finds, ``xargs``' command with
what the stage before it prints, a ``sh -c`` script with its positional
parameters filled in.

Detection works on real shell tokens — :mod:`shlex` with ``punctuation_chars``
after a quote-aware pre-scan that separates ``;``, ``&&``, ``||``, ``|``,
newlines, subshells and command substitutions — never on substrings, so
benign lookalikes (``echo "rm -rf /"``, ``git push --force-with-lease``,
``rm -rf ./build``, ``grep 'git reset --hard' notes.txt``) stay silent.

This module never runs, rewrites or blocks a command and never logs one: it
returns a :class:`RiskVerdict`; the host adapter decides what to ask.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass, field
from typing import NamedTuple

from ..redact import mask

__all__ = ["RISK_CODES", "RiskFinding", "RiskVerdict", "assess_command"]

#: Every reason code :func:`assess_command` can return, with its meaning.
RISK_CODES: dict[str, str] = {
    "chmod-777-home": "recursive chmod 777 of the home directory",
    "chmod-777-root": "recursive chmod 777 of the filesystem root",
    "dd-device": "dd writing onto a device",
    "git-push-force": "git push --force, or a +ref push without --force-with-lease",
    "git-reset-hard": "git reset --hard discards uncommitted work",
    "mkfs-device": "mkfs formatting a device",
    "pipe-to-shell": "downloaded script executed by a shell or interpreter",
    "rm-home": "recursive delete (rm -r, find -delete) of the home directory",
    "rm-root": "recursive delete (rm -r, find -delete) of the filesystem root",
    "rm-unknown-dir": (
        "recursive delete of everything in a directory the command cannot resolve"
        " (after cd $(…), cd {…} or cd $VAR: it may be / or home)"
    ),
    "sudo-rm": "rm run with sudo",
}

#: Longest command text analysed; the rest is ignored and the verdict says so.
MAX_COMMAND_CHARS = 100_000
#: How deep ``bash -c``, ``eval`` and substitutions are followed.
MAX_DEPTH = 6
_PREVIEW = 160

_SHELLS = frozenset({"sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "fish", "busybox"})
#: Programs that run a heredoc fed to them; to any other command it is data.
_HEREDOC_RUNNERS = _SHELLS | {"python", "python3", "perl", "ruby", "node", "php", "ssh"}
_DOWNLOADERS = frozenset({"curl", "wget"})
_OPERATOR_CHARS = "();<>|&"
# Quoted or escaped operator characters, braces and dollars are swapped for private-use
# characters before shlex sees them, so a quoted ";" is never an operator, and a ``cd``
# target still shows what was quoted (``cd "$DIR"`` against ``cd $DIR``).
_PROTECTABLE = _OPERATOR_CHARS + "{}$"
_PROTECT = {ch: chr(0xE000 + i) for i, ch in enumerate(_PROTECTABLE)}
_UNPROTECT = str.maketrans({v: k for k, v in _PROTECT.items()})
_SUB_OPEN, _SUB_CLOSE = "\ue100", "\ue101"
_SUB_RE = re.compile(f"{_SUB_OPEN}(\\d+){_SUB_CLOSE}")
_DOC_OPEN, _DOC_CLOSE = "\ue102", "\ue103"
_DOC_RE = re.compile(f"^{_DOC_OPEN}(\\d+){_DOC_CLOSE}$")
#: Every private-use character the analysis marks text with (protected characters,
#: substitution and heredoc marks, the unresolved directory). The patterns only some
#: commands need are kept as text, compiled (and cached by :mod:`re`) on first use: a
#: hook pays for every pattern compiled at import.
_RESERVED = "[\ue000-\ue1ff]"
_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(\[[^\]]*\])?\+?=")
#: ``~``, ``$HOME``, ``${HOME}`` and the forms that expand to it when set (``${HOME:?}``).
_HOME = re.compile(r"^(?:~|\$HOME\b|\$\{HOME(?:[:]?[-?=][^}]*)?\})(?=/|$)")
_KEYWORDS = frozenset({"if", "then", "else", "elif", "do", "while", "until", "!", "time"})
_SAFE_DEVICES = ("null", "zero", "stdout", "stderr", "tty", "full", "random", "urandom")
_WORLD_MODES = frozenset({"777", "0777", "a+rwx", "a=rwx", "ugo+rwx", "ugo=rwx", "+rwx"})


@dataclass(frozen=True)
class RiskFinding:
    """One risky simple command: a stable ``code``, its meaning, and the (masked) command."""

    code: str
    reason: str
    command: str

    def to_dict(self) -> dict[str, str]:
        return {"code": self.code, "reason": self.reason, "command": self.command}


@dataclass(frozen=True)
class RiskVerdict:
    """The verdict on one shell command line.

    ``exact`` is False when the text could not be tokenised as written (an
    unbalanced quote, or longer than :data:`MAX_COMMAND_CHARS`) and a lenient
    reading was used instead, or when nesting deeper than :data:`MAX_DEPTH` was
    not followed.
    """

    findings: tuple[RiskFinding, ...] = ()
    exact: bool = True

    @property
    def risky(self) -> bool:
        return bool(self.findings)

    @property
    def codes(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(f.code for f in self.findings))

    def to_dict(self) -> dict[str, object]:
        return {
            "risky": self.risky,
            "codes": list(self.codes),
            "exact": self.exact,
            "findings": [f.to_dict() for f in self.findings],
        }


def assess_command(command: str) -> RiskVerdict:
    """Return the risk verdict for one shell command line (never raises on any str)."""
    exact = len(command) <= MAX_COMMAND_CHARS
    command = command[:MAX_COMMAND_CHARS]
    if command and max(command) >= "\ue000" and re.search(_RESERVED, command):
        # The private-use characters the analysis marks text with: one in the command
        # itself would read as a mark (a substitution that was never lifted).
        command = re.sub(_RESERVED, "\ufffd", command)
    findings: list[RiskFinding] = []
    exact = _assess(command, 0, findings) and exact
    unique = tuple(dict.fromkeys(findings))
    return RiskVerdict(unique, exact)


# --- parsing -----------------------------------------------------------------


@dataclass
class _Simple:
    """A simple command: its words (redirections removed) and the heredocs fed to it."""

    words: list[str]
    docs: list[int] = field(default_factory=list)
    #: The words as tokenised, quoted operators, braces and ``$`` still protected.
    raw: list[str] = field(default_factory=list)


@dataclass
class _Group:
    """A subshell or brace group: a list of pipelines, and the operator that ended each
    (``&``: it ran in the background, so its ``cd`` moved no later command)."""

    pipelines: list[list[_Simple | _Group]] = field(default_factory=list)
    ends: list[str] = field(default_factory=list)


@dataclass
class _Scan:
    """The prepared text and the substitutions lifted out of it."""

    text: str
    subs: list[tuple[str, str]]  # (kind "$(" | "`" | "<(" | ">(", body)
    exact: bool
    docs: list[tuple[str, bool]] = field(default_factory=list)  # (heredoc body, expanded)


def _prescan(command: str) -> _Scan:
    """Protect quoted operators, lift substitutions and heredoc bodies out, turn newlines
    into ``;``."""
    out: list[str] = []
    subs: list[tuple[str, str]] = []
    docs: list[tuple[str, bool]] = []
    pending: list[tuple[str, bool, int]] = []  # heredocs whose body starts after this line
    exact = True
    i, n = 0, len(command)
    quote = ""  # "", "'" or '"'
    at_word_start = True

    def lift(kind: str, start: int) -> int:
        body, end = _balanced(command, start, "`" if kind == "`" else ")")
        subs.append((kind, body))
        out.append(f"{_SUB_OPEN}{len(subs) - 1}{_SUB_CLOSE}")
        return end

    while i < n:
        ch = command[i]
        nxt = command[i + 1] if i + 1 < n else ""
        if quote == "'":
            if ch == "'":
                quote = ""
            out.append(_PROTECT.get(ch, ch))
            i += 1
            continue
        if ch == "\\":
            if nxt == "\n":
                i += 2
                continue
            out.append(ch + _PROTECT.get(nxt, nxt))
            i += 2
            at_word_start = False
            continue
        if ch == "$" and nxt == "(":
            if command.startswith("$((", i):
                # Arithmetic: keep as one word, parentheses protected.
                body, end = _balanced(command, i + 3, ")")
                out.append("$" + "".join(_PROTECT.get(c, c) for c in f"(({body})"))
                i = end
            else:
                i = lift("$(", i + 2)
            at_word_start = False
            continue
        if ch == "`":
            i = lift("`", i + 1)
            at_word_start = False
            continue
        if quote == '"':
            if ch == '"':
                quote = ""
            out.append(_PROTECT.get(ch, ch))
            i += 1
            continue
        # Unquoted from here on.
        if ch == "<" and nxt == "<" and not command.startswith("<<<", i):
            heredoc = _heredoc_word(command, i + 2)
            if heredoc is not None:
                delimiter, strip_tabs, quoted, i = heredoc
                docs.append(("", not quoted))
                pending.append((delimiter, strip_tabs, len(docs) - 1))
                out.append(f" << {_DOC_OPEN}{len(docs) - 1}{_DOC_CLOSE} ")
                at_word_start = False
                continue
        if ch in "<>" and nxt == "(":
            i = lift(ch + "(", i + 2)
            at_word_start = False
            continue
        if ch in "'\"":
            quote = ch
        elif ch == "#" and at_word_start:
            while i < n and command[i] != "\n":
                i += 1
            continue
        elif ch == "\n":
            out.append(" ; ")
            i += 1
            for delimiter, strip_tabs, index in pending:
                body, i = _heredoc_body(command, i, delimiter, strip_tabs)
                docs[index] = (body, docs[index][1])
            pending.clear()
            at_word_start = True
            continue
        out.append(ch)
        at_word_start = ch.isspace() or ch in _OPERATOR_CHARS
        i += 1
    if quote:
        exact = False
        out.append(quote)
    return _Scan("".join(out), subs, exact, docs)


def _heredoc_word(command: str, i: int) -> tuple[str, bool, bool, int] | None:
    """The heredoc after ``<<`` at ``i``: delimiter, ``<<-``, quoted, index after it."""
    strip_tabs = command.startswith("-", i)
    i += strip_tabs
    while i < len(command) and command[i] in " \t":
        i += 1
    word: list[str] = []
    quoted = False
    while i < len(command) and not command[i].isspace() and command[i] not in _OPERATOR_CHARS:
        ch = command[i]
        if ch in "'\"":
            end = command.find(ch, i + 1)
            end = len(command) if end < 0 else end
            word.append(command[i + 1 : end])
            quoted, i = True, end + 1
        elif ch == "\\":
            word.append(command[i + 1 : i + 2])
            quoted, i = True, i + 2
        else:
            word.append(ch)
            i += 1
    delimiter = "".join(word)
    return (delimiter, strip_tabs, quoted, i) if delimiter else None


def _heredoc_body(command: str, i: int, delimiter: str, strip_tabs: bool) -> tuple[str, int]:
    """The body lines from ``i`` up to the delimiter line, and the index after it."""
    lines: list[str] = []
    while i < len(command):
        end = command.find("\n", i)
        end = len(command) if end < 0 else end
        line = command[i:end]
        i = end + 1
        if (line.lstrip("\t") if strip_tabs else line) == delimiter:
            break
        lines.append(line)
    return "\n".join(lines), min(i, len(command))


def _expansions(body: str) -> list[str]:
    """The ``$( )`` and backtick texts an unquoted heredoc runs while it is expanded."""
    found: list[str] = []
    i = 0
    while i < len(body):
        if body[i] == "\\":
            i += 2
        elif body.startswith("$((", i):
            i = _balanced(body, i + 3, ")")[1]
        elif body.startswith("$(", i):
            text, i = _balanced(body, i + 2, ")")
            found.append(text)
        elif body[i] == "`":
            text, i = _balanced(body, i + 1, "`")
            found.append(text)
        else:
            i += 1
    return found


def _balanced(text: str, start: int, closer: str) -> tuple[str, int]:
    """The body from ``start`` up to the matching ``closer``, and the index after it."""
    depth, quote, i = 0, "", start
    while i < len(text):
        ch = text[i]
        if quote:
            if ch == "\\" and quote == '"':
                i += 2
                continue
            if ch == quote:
                quote = ""
        elif ch == "\\":
            i += 2
            continue
        elif ch in "'\"" and closer != "`":
            quote = ch
        elif closer == "`" and ch == "`":
            return text[start:i], i + 1
        elif closer == ")" and ch == "(":
            depth += 1
        elif closer == ")" and ch == ")":
            if depth == 0:
                return text[start:i], i + 1
            depth -= 1
        i += 1
    return text[start:], len(text)


def _tokens(text: str) -> tuple[list[str], bool]:
    """Shell tokens via shlex with punctuation_chars; lenient on a broken quote."""
    lexer = shlex.shlex(text, posix=True, punctuation_chars=True)
    lexer.whitespace_split = True
    lexer.commenters = ""  # comments are removed by the pre-scan, only at word starts
    try:
        return list(lexer), True
    except ValueError:
        # Only reachable through an escape at the very end; read it leniently.
        return text.split(), False


def _is_operator(token: str) -> bool:
    return bool(token) and all(ch in _OPERATOR_CHARS for ch in token)


def _parse(tokens: list[str]) -> _Group:
    """Parse tokens into pipelines of simple commands and groups."""
    root = _Group()
    stack: list[_Group] = [root]
    pipeline: list[_Simple | _Group] = []
    pipelines_stack: list[list[_Simple | _Group]] = []
    words: list[str] = []
    raw: list[str] = []
    docs: list[int] = []
    redirect_next = False

    def end_command() -> None:
        nonlocal words, docs, raw
        if words:
            pipeline.append(_Simple(words, docs, raw))
            words, docs, raw = [], [], []

    def end_pipeline(end: str = ";") -> None:
        nonlocal pipeline
        end_command()
        if pipeline:
            stack[-1].pipelines.append(pipeline)
            stack[-1].ends.append(end)
        pipeline = []

    def open_group() -> None:
        nonlocal pipeline
        end_command()
        group = _Group()
        pipeline.append(group)
        pipelines_stack.append(pipeline)
        stack.append(group)
        pipeline = []

    def close_group() -> None:
        nonlocal pipeline
        end_pipeline()
        if len(stack) > 1:
            stack.pop()
            pipeline = pipelines_stack.pop()

    for token in tokens:
        if redirect_next:
            redirect_next = False
            if not _is_operator(token):
                doc = _DOC_RE.match(token)
                if doc:
                    docs.append(int(doc.group(1)))
                continue
        if _is_operator(token):
            for part in _split_operator(token):
                if part == "(":
                    open_group()
                elif part == ")":
                    close_group()
                elif part in ("|", "|&"):
                    end_command()
                elif part[0] in "<>" or part in ("&>", "&>>"):
                    redirect_next = True
                else:  # ; & && || ;; and friends
                    end_pipeline(part)
            continue
        # ``function NAME { …; }``: the body is a group like ``NAME() { …; }``'s.
        if token == "{" and (not words or (words[0] == "function" and len(words) <= 2)):
            open_group()
        elif token == "}" and not words:
            close_group()
        else:
            words.append(token.translate(_UNPROTECT))
            raw.append(token)
    end_pipeline()
    while len(stack) > 1:
        close_group()
    return root


def _split_operator(token: str) -> list[str]:
    """Split a run of operator characters (``)|``, ``;(``) into shell operators."""
    parts: list[str] = []
    i = 0
    known = ("&>>", "<<<", "&&", "||", "|&", ";;", ">>", "<<", ">&", "<&", "&>", ">|", "<>")
    while i < len(token):
        for op in known:
            if token.startswith(op, i):
                parts.append(op)
                i += len(op)
                break
        else:
            parts.append(token[i])
            i += 1
    return parts


# --- analysis ----------------------------------------------------------------


def _assess(
    command: str,
    depth: int,
    findings: list[RiskFinding],
    sudo: bool = False,
    cwd: str | None = None,
    *,
    seen: set[tuple[str, bool, str | None]] | None = None,
) -> bool:
    """Analyse ``command``; ``sudo``: it runs as root (``sudo sh -c '…'``); ``cwd``: the
    directory it starts in when the text spelled it (``/``, ``~``), else None; ``seen``:
    the substitutions already analysed (a script is read again with its substitutions
    spelled out, and must not cost their analysis twice at every level)."""
    seen = set() if seen is None else seen
    scan = _prescan(command)
    tokens, exact = _tokens(scan.text)
    exact = exact and scan.exact
    if depth < MAX_DEPTH:
        for _kind, body in scan.subs:
            if (body, sudo, cwd) not in seen:
                seen.add((body, sudo, cwd))
                exact = _assess(body, depth + 1, findings, sudo, cwd, seen=seen) and exact
    elif scan.subs:
        exact = False  # not followed: whatever is nested deeper was never looked at
    tree = _parse(tokens)
    context = _Context(scan.subs, depth, findings, scan.docs, sudo, cwd, seen=seen)
    context.group(tree)
    return exact and context.exact


@dataclass
class _Context:
    subs: list[tuple[str, str]]
    depth: int
    findings: list[RiskFinding]
    docs: list[tuple[str, bool]]
    sudo: bool = False
    #: The working directory as far as the text spells it (``/``, ``~/x``); None when it
    #: is spelled as neither and is no concern (``cd build``, ``cd "$DIR"``);
    #: :data:`_UNRESOLVED` when the text cannot say where it is (``cd $(…)``).
    cwd: str | None = None
    exact: bool = True
    #: Where ``cd -`` goes back to, and ``pushd``'s stack, as far as this line moved.
    previous: str | None = None
    stack: tuple[str | None, ...] = ()
    seen: set[tuple[str, bool, str | None]] = field(default_factory=set)

    def group(self, group: _Group) -> None:
        # A ``cd`` inside ``( … )`` never moves what follows the group.
        outer = (self.cwd, self.previous, self.stack)
        for n, (pipeline, end) in enumerate(zip(group.pipelines, group.ends, strict=True)):
            resolved = self.pipeline(pipeline)
            stage = pipeline[0]
            if len(resolved) == 1 and isinstance(stage, _Simple) and end != "&":
                name = resolved[0][0] if resolved[0] is not None else ""
                if name in ("cd", "pushd", "popd"):
                    # What follows runs only where the move went: ``cd x && …``,
                    # ``cd x || exit 1; …``.
                    following = group.pipelines[n + 1 : n + 2]
                    checked = end == "&&" or (end == "||" and _stops(following))
                    # The words as written: a quoted ``$`` or brace is no expansion.
                    self.move(name, _resolve(stage.raw)[1], checked=checked)
        self.cwd, self.previous, self.stack = outer

    def move(self, name: str, args: list[str], *, checked: bool) -> None:
        """Follow ``cd``/``pushd``/``popd`` ARGS (raw words): ``cd -`` and ``popd`` go back
        where this line came from, when it moved (else the directory is no concern).
        Unless ``checked`` (``cd x && …``), what follows also runs when the move failed,
        where the line was: root, home or unresolved there leaves it unresolved."""
        before = self.cwd
        options = _options_end(args)
        target = args[options] if options < len(args) else None
        if name == "popd" and args:
            self.cwd = None  # ``popd +1``, ``popd -n``: not followed
        elif name == "popd" or (name == "pushd" and target is None):
            self.cwd, self.stack = (self.stack[0], self.stack[1:]) if self.stack else (None, ())
            if name == "pushd":
                self.stack = (before, *self.stack)
        elif target == "-" and name == "cd":
            self.cwd = self.previous
        else:
            self.cwd = _changed_directory(name, args, before, self.subs)
            if name == "pushd":
                self.stack = (before, *self.stack)
        self.previous = before
        if not checked and self.cwd != before and _concern(before) and not _concern(self.cwd):
            self.cwd = _UNRESOLVED  # ``cd / ; cd build ; rm -rf *``: ``/`` if build is missing

    def pipeline(self, stages: list[_Simple | _Group]) -> list[tuple[str, list[str], bool] | None]:
        """Check one pipeline; its stages resolved (None for a group)."""
        downloaded = False
        shown: list[str] = []  # the pipeline so far, for the finding's text
        resolved = [None if isinstance(s, _Group) else _resolve(s.words) for s in stages]
        # A heredoc is data unless a shell or interpreter runs it: the command it is fed
        # to, or a shell later in the pipeline (``cat <<X | sh``).
        shell_after = [False] * len(stages)
        for n in range(len(stages) - 2, -1, -1):  # from the end: linear in the stages
            later = resolved[n + 1]
            shell_after[n] = shell_after[n + 1] or (
                later is not None and later[0] in _SHELLS and _reads_stdin(later[1])
            )
        for n, (stage, found, feeds_shell) in enumerate(
            zip(stages, resolved, shell_after, strict=True)
        ):
            if isinstance(stage, _Group) or found is None:
                if isinstance(stage, _Group):
                    self.group(stage)
                    downloaded = downloaded or _downloads(stage)
                shown.extend(("(…)", "|"))
                continue
            name, args, sudo = found
            sudo = sudo or self.sudo
            shown.extend((*stage.words, "|"))
            if downloaded and (
                (name in _SHELLS and _reads_stdin(args)) or _interpreter_script(name, args) == ""
            ):
                self.add("pipe-to-shell", shown[:-1])
            # ``find / | xargs rm -rf`` is ``rm -rf`` of what the stage before prints.
            xargs = _xargs_of(stage.words) if n > 0 else None
            printed = _printed(stages[n - 1], resolved[n - 1]) if xargs and xargs.stdin else None
            runs = _xargs_runs(args, xargs, self.few(printed)) if xargs and printed else []
            for run in runs:
                if run is None:
                    self.exact = False  # filled in, it would pass the analysis cap
                else:
                    self.inner(name, run, sudo, shown[:-1])
            if not runs:
                self.simple(name, args, sudo, stage.words)
            for index in stage.docs:
                self.heredoc(index, name in _HEREDOC_RUNNERS or feeds_shell, sudo)
            downloaded = downloaded or name in _DOWNLOADERS
        return resolved

    def heredoc(self, index: int, runs: bool, sudo: bool) -> None:
        body, expanded = self.docs[index]
        if runs:
            self.recurse(body, sudo)
        elif expanded:
            for text in _expansions(body):
                self.recurse(text, sudo)

    def add(self, code: str, words: list[str], where: str = "") -> None:
        self.findings.append(RiskFinding(code, RISK_CODES[code], self.text(words, where)))

    def text(self, words: list[str], where: str = "") -> str:
        text = " ".join(w if w == "|" else _display(w, self.subs) for w in words) + where
        if len(text) > _PREVIEW:
            text = text[: _PREVIEW - 1] + "…"
        return mask(text)

    def few(self, paths: list[str] | None) -> list[str]:
        """At most a few of ``paths`` to check a command with, root, home or unresolved
        ones first: one run per path, so a find of a thousand start points or an
        ``xargs -I`` of a thousand words costs no more than one of three."""
        unique = list(dict.fromkeys(paths or ()))
        unique.sort(key=lambda path: _target(path, self.cwd) == "")
        # Spelled out (``$(pwd)``): a script they are filled into is read on its own.
        return [_SUB_RE.sub(self.spelled, path) for path in unique[:_MAX_STAND_INS]]

    def spelled(self, match: re.Match[str]) -> str:
        kind, body = self.subs[int(match.group(1))]
        return f"{kind}{body}{'`' if kind == '`' else ')'}"

    def where(self) -> str:
        """Where a relative operand was judged: `` (in /)``, or "" when nowhere known."""
        if self.cwd is None:
            return ""
        return f" (in {_UNRESOLVED_SHOWN if self.cwd == _UNRESOLVED else self.cwd})"

    def inner(self, name: str, args: list[str], sudo: bool, shown: list[str]) -> None:
        """Check the command another one runs with found paths or piped items filled in
        (``find / -exec sh -c 'rm -rf "$1"' _ {} \\;``, ``find / | xargs rm -rf``); its
        findings name the command as written, and where it was judged."""
        before = len(self.findings)
        self.simple(name, args, sudo, [name, *args])
        for pos in range(before, len(self.findings)):
            finding = self.findings[pos]
            where = re.search(_WHERE, finding.command)
            text = self.text(shown, where.group(0) if where else "")
            self.findings[pos] = RiskFinding(finding.code, finding.reason, text)

    def recurse(self, text: str, sudo: bool = False) -> None:
        if self.depth < MAX_DEPTH:
            # The text is read on its own: its substitutions spelled out, not this line's
            # marks (``sh -c "cd $(x) && rm -rf *"``).
            text = _SUB_RE.sub(self.spelled, text)
            found = _assess(text, self.depth + 1, self.findings, sudo, self.cwd, seen=self.seen)
            self.exact = found and self.exact
        else:
            self.exact = False  # too deep to follow: the verdict must not claim it looked

    def fetched(self, word: str) -> bool:
        """Whether ``word`` holds a substitution whose body downloads something."""
        return any(_text_downloads(self.subs[int(m)][1]) for m in _SUB_RE.findall(word))

    def simple(self, name: str, args: list[str], sudo: bool, words: list[str]) -> None:
        if sudo and name == "rm":
            self.add("sudo-rm", words)
        check = _CHECKS.get(name) or (_check_mkfs if name.startswith("mkfs.") else None)
        code = check(args) if check is not None else ""
        if code:
            self.add(code, words)
        path_check = _PATH_CHECKS.get(name)
        code = path_check(args, self.cwd) if path_check is not None else ""
        if code:
            # Name the directory a relative operand was judged in: ``rm -rf * (in /)``.
            self.add(code, words, self.where())
        if name == "find":
            self.find_runs(args, sudo, words)
        if name in _SHELLS or name in ("eval", "source", "."):
            self.interpreter(name, args, words, sudo)
        else:
            script = _interpreter_script(name, args)
            if script and self.fetched(script):  # ``python3 <(curl -s x)``
                self.add("pipe-to-shell", words)

    def interpreter(self, name: str, args: list[str], words: list[str], sudo: bool) -> None:
        if name == "eval":
            if any(self.fetched(a) for a in args):
                self.add("pipe-to-shell", words)
            self.recurse(" ".join(args), sudo)
            return
        if name in ("source", "."):
            if args and self.fetched(args[0]):
                self.add("pipe-to-shell", words)
            return
        script = _shell_script(args)
        if script is not None:
            if self.fetched(script):
                self.add("pipe-to-shell", words)
            # ``sh -c 'rm -rf "$1"' _ /`` runs ``rm -rf "/"``.
            bound = _bind_positionals(script, _shell_parameters(args))
            if bound is None:
                self.exact = False  # filled in, it would pass the analysis cap
            self.recurse(script if bound is None else bound, sudo)
            return
        operand = next((a for a in args if not a.startswith("-")), None)
        if operand is not None and self.fetched(operand):
            self.add("pipe-to-shell", words)

    def find_runs(self, args: list[str], sudo: bool, words: list[str]) -> None:
        """Check what ``find -exec``/``-execdir`` runs, ``{}`` standing for what it finds:
        the start itself when nothing narrows the search (``find /`` finds ``/``)."""
        find = _find_parts(args)
        for run in find.runs:
            # A command that names no ``{}`` runs the same whatever is found: once.
            found = _found_paths(find.starts, find.narrowed)
            for path in self.few(found) if any("{}" in w for w in run) else found[:1]:
                bound = _filled(run, "{}", path)
                if bound is None:
                    self.exact = False  # filled in, it would pass the analysis cap
                    continue
                name, inner_args, inner_sudo = _resolve(bound)
                self.inner(name, inner_args, sudo or inner_sudo, words)


_UNRESOLVED_SHOWN = "a directory the line does not resolve"
#: How many found paths or piped items a command another one runs is checked with.
_MAX_STAND_INS = 3
_WHERE = r" \(in [^()]*\)$"


def _display(word: str, subs: list[tuple[str, str]]) -> str:
    def restore(match: re.Match[str]) -> str:
        kind, body = subs[int(match.group(1))]
        closer = "`" if kind == "`" else ")"
        return f"{kind}{body}{closer}"

    shown = _SUB_RE.sub(restore, word)
    return shlex.quote(shown) if shown != word or not shown or " " in shown else shown


def _resolve(words: list[str]) -> tuple[str, list[str], bool]:
    """Strip assignments, keywords and wrappers (sudo, env, nohup...): name, args, sudo."""
    name, args, sudo, _xargs = _unwrap(words)
    return name, args, sudo


def _xargs_of(words: list[str]) -> _Xargs | None:
    """How the ``xargs`` a command runs under fills in its items, if it runs under one."""
    return _unwrap(words)[3]


def _unwrap(words: list[str]) -> tuple[str, list[str], bool, _Xargs | None]:
    sudo = False
    xargs: _Xargs | None = None
    i = 0
    while i < len(words):
        word = words[i]
        name = word.rsplit("/", 1)[-1]
        if _ASSIGNMENT.match(word) or word in _KEYWORDS:
            i += 1
        elif name in ("sudo", "doas"):
            sudo = True
            i = _skip_options(words, i + 1, with_arg="ugCDprtUTh" if name == "sudo" else "uC")
        elif name == "env":
            i = _skip_options(words, i + 1, with_arg="uCS")
        elif name in ("nohup", "command", "builtin", "exec", "stdbuf", "nice", "ionice"):
            i = _skip_options(words, i + 1, with_arg="nacliCoe")
        elif name == "timeout":
            i = _skip_options(words, i + 1, with_arg="sk") + 1
        elif name == "xargs":  # its arguments are the command it runs
            i, xargs = _xargs_options(words, i + 1)
        elif name == "watch":
            i = _skip_options(words, i + 1, with_arg="nd")
            if not {"-x", "--exec"} & set(words[:i]):
                # watch hands its arguments, joined by spaces, to ``sh -c``.
                return "sh", ["-c", " ".join(words[i:])], sudo, xargs
        else:
            return name, words[i + 1 :], sudo, xargs
    return "", [], sudo, xargs


class _Xargs(NamedTuple):
    """How xargs fills in its items: ``replace`` (``-I {}``) in each argument, else
    appended; ``stdin``: it reads them from stdin (not ``-a FILE``)."""

    replace: str | None
    stdin: bool


#: xargs options whose value is the next word when not attached (``-n 1``, ``-n1``), and
#: those whose value can only be attached (``-i``, ``-i{}``).
_XARGS_WITH_ARG = "adEILnPs"
_XARGS_LONG_WITH_ARG = frozenset(
    {"--arg-file", "--delimiter", "--max-args", "--max-chars", "--max-procs", "--process-slot-var"}
)


def _xargs_options(words: list[str], i: int) -> tuple[int, _Xargs]:
    """Read xargs options from ``words[i:]``: the index of the command, and how it runs."""
    replace: str | None = None
    stdin = True
    while i < len(words):
        word = words[i]
        if word == "--":
            return i + 1, _Xargs(replace, stdin)
        if not word.startswith("-") or word == "-":
            break
        i += 1
        if word.startswith("--"):
            option, eq, value = word.partition("=")
            if option == "--replace":
                replace = value if eq else "{}"
            elif option in _XARGS_LONG_WITH_ARG:
                stdin = stdin and option != "--arg-file"
                i += 0 if eq else 1
            continue
        for pos, letter in enumerate(word[1:], start=2):
            attached = word[pos:]
            if letter in _XARGS_WITH_ARG:
                value = attached
                if not attached:
                    value = words[i] if i < len(words) else ""
                    i += 1
                replace = value if letter == "I" else replace
                stdin = stdin and letter != "a"
                break
            if letter in "eil":  # an optional value, attached only
                if letter == "i":
                    replace = attached or "{}"
                break
    return i, _Xargs(replace, stdin)


def _xargs_runs(args: list[str], xargs: _Xargs, items: list[str]) -> list[list[str] | None]:
    """The arguments xargs gives its command for ``items`` (none: no run; None for a run
    that would pass the analysis cap)."""
    if not items:
        return []
    if xargs.replace:
        return [_filled(args, xargs.replace, item) for item in items]
    return [[*args, *items]]


def _filled(words: list[str], pattern: str, value: str) -> list[str] | None:
    """``words`` with each ``pattern`` replaced by ``value``; None when that would pass
    :data:`MAX_COMMAND_CHARS` (``{}`` a thousand times over a long path)."""
    grow = len(value) - len(pattern)
    if sum(len(w) + w.count(pattern) * grow for w in words) > MAX_COMMAND_CHARS:
        return None
    return [word.replace(pattern, value) for word in words]


def _printed(
    stage: _Simple | _Group, found: tuple[str, list[str], bool] | None
) -> list[str] | None:
    """What stands for the items a pipeline stage prints, when the text says: the paths a
    find finds, echo's words, the names ``ls`` lists (``*``); None when it cannot say
    (``cat list``), which leaves xargs' items unjudged, as ``rm -rf $X`` is."""
    if isinstance(stage, _Group) or found is None:
        return None
    name, args, _sudo = found
    if name == "find":
        find = _find_parts(args)
        return _found_paths(find.starts, find.narrowed)
    if name == "echo":
        return [arg for arg in args if not re.fullmatch(r"-[neE]+", arg)]
    if name == "printf" and args:
        if "%" in args[0]:
            return args[1:]
        return [item for item in re.split(r"\\[n0t]|\s", args[0]) if item]
    if name == "ls":
        short, long, _operands = _short_flags(args)
        every = "a" in short or "--all" in long
        return ["*", ".", ".."] if every else ["*"]
    return None


#: ``$1``, ``${1}``, ``$@``, ``$*`` and ``"$@"`` in a ``sh -c`` script (not ``\$1``).
_POSITIONAL = r'(?<!\\)(?:"\$(?:@|\{@\})"|\$(?:([0-9@*])|\{([0-9]+|[@*])\}))'
#: A parameter value that can stand in a script as it is: no quote, space, operator or
#: substitution marker (another one is checked as an unknown word).
_PLAIN_VALUE = r"[\w./~*+,:=@%^${}?-]*"


def _shell_parameters(args: list[str]) -> list[str]:
    """The words after a ``sh -c`` script: ``$0``, ``$1``…"""
    for pos, arg in enumerate(args):
        if arg == "--" or not arg.startswith("-"):
            return []
        if not arg.startswith("--") and "c" in arg[1:]:
            return args[pos + 2 :]
    return []


def _bind_positionals(script: str, parameters: list[str]) -> str | None:
    """``script`` with its positional parameters filled in from ``parameters`` (``$0``
    first), so ``sh -c 'rm -rf "$1"' _ /`` is read as ``rm -rf "/"``; None when the
    result would pass :data:`MAX_COMMAND_CHARS` (``$@`` a thousand times over)."""
    if not parameters or "$" not in script:
        return script
    plain = [p if re.fullmatch(_PLAIN_VALUE, p) else "_" for p in parameters]
    every = " ".join(plain[1:])
    quoted = " ".join(f'"{p}"' for p in plain[1:])
    out: list[str] = []
    size = start = 0
    for match in re.finditer(_POSITIONAL, script):
        key = match.group(1) or match.group(2)
        if key is None:  # "$@": one word per parameter
            value = quoted
        elif key in "@*":
            value = every
        else:
            value = plain[int(key)] if int(key) < len(plain) else ""
        out.extend((script[start : match.start()], value))
        size += match.start() - start + len(value)
        start = match.end()
        if size > MAX_COMMAND_CHARS:
            return None
    out.append(script[start:])
    return "".join(out)


def _skip_options(words: list[str], i: int, *, with_arg: str) -> int:
    while i < len(words):
        word = words[i]
        if word == "--":
            return i + 1
        if _ASSIGNMENT.match(word):
            i += 1
            continue
        if not word.startswith("-") or word == "-":
            return i
        if not word.startswith("--") and len(word) == 2 and word[1] in with_arg:
            i += 2
        else:
            i += 1
    return i


def _short_flags(args: list[str]) -> tuple[set[str], set[str], list[str]]:
    """Split ``args`` into short flag letters, long options and operands (``--`` aware)."""
    short: set[str] = set()
    long: set[str] = set()
    operands: list[str] = []
    options_done = False
    for arg in args:
        if options_done or arg == "-" or not arg.startswith("-"):
            operands.append(arg)
        elif arg == "--":
            options_done = True
        elif arg.startswith("--"):
            long.add(arg.split("=", 1)[0])
        else:
            short.update(arg[1:])
    return short, long, operands


def _target(path: str, cwd: str | None = None) -> str:
    """``root``, ``home`` or ``""`` for an rm/chmod/find operand: every spelling that
    expands to the root or home directory or above it (``/..``, ``/*/``, ``${HOME:?}``,
    ``~/../..``), or to all it holds (``/*``, ``~/*``, ``~/.*``); a relative operand is
    judged in ``cwd`` when the command line spelled it (``.`` after ``cd /``), and is
    ``unknown`` when it names all of a directory the line could not resolve (``*`` after
    ``cd $(…)``)."""
    if path and cwd is not None and not path.startswith(("/", "~", "$")):
        if cwd == _UNRESOLVED:
            return "unknown" if _depth(path) <= 0 else ""
        path = _joined(cwd, path)
    home = _HOME.match(path)
    if home:
        base, rest = "home", path[home.end() :]
    elif path.startswith("/"):
        base, rest = "root", path
    else:
        return ""
    depth = _depth(rest)
    if depth > 0:
        return ""
    return base if base == "root" or depth == 0 else "home"  # above home holds it


def _depth(rest: str) -> int:
    """How far below its start a path goes (``..`` climbs; ``*`` and ``.*`` at the top
    are everything in it, and ``.*`` took ``..`` along in older shells)."""
    depth = 0
    for part in rest.split("/"):
        if part in ("", "."):
            continue
        if part == "..":
            depth -= 1
        elif part in ("*", ".*") and depth <= 0:
            continue
        else:
            depth += 1
    return depth


#: Longest working directory followed through ``cd``; past it, it is unknown.
_MAX_CWD_CHARS = 256
#: The working directory after a ``cd`` whose target the text cannot resolve: a
#: substitution (``cd $(echo /)``), a brace expansion (``cd {/,}``), an unquoted variable
#: (``cd $DIR``: empty, it is ``cd``, which goes home). It may be ``/`` or home, so
#: ``rm -rf *`` there is asked about.
_UNRESOLVED = "\ue104"
_QUOTED_DOLLAR = _PROTECT["$"]
#: A brace expansion in a raw word (quoted braces are protected): ``{/,}``, ``{a..c}``.
_BRACES = r"\{[^{}]*(?:,|\.\.)[^{}]*\}"
#: A quoted expansion that may be empty: ``"$DIR"``, ``"${DIR}"`` (raw, ``$`` protected).
_QUOTED_VARIABLE = (
    f"{_QUOTED_DOLLAR}(?:[A-Za-z_][A-Za-z0-9_]*|[0-9@*#?$!-]"
    f"|{_PROTECT['{']}[^{_PROTECT['}']}]*{_PROTECT['}']})"
)


def _joined(directory: str, path: str) -> str:
    return directory.rstrip("/") + "/" + path


def _options_end(args: list[str]) -> int:
    """The index of ``cd``'s operand: past ``-P``, ``-L``, ``--`` (``-`` is an operand)."""
    i = 0
    while i < len(args) and args[i].startswith("-") and args[i] != "-":
        i += 1
        if args[i - 1] == "--":
            break
    return i


def _changed_directory(
    name: str, args: list[str], cwd: str | None, subs: list[tuple[str, str]]
) -> str | None:
    """The working directory after ``cd``/``pushd`` ARGS (raw words, quoting visible).

    ``/``, ``~``, ``$HOME`` or a relative step from a known one is followed;
    :data:`_UNRESOLVED` for a target the text cannot resolve (a substitution other than
    ``$(mktemp …)``, a brace expansion, an unquoted variable, or a quoted one whose
    emptiness leaves root or home: ``cd ~/"$DIR"``, or ``cd "$DIR"`` after ``cd /``);
    None for anything else (``cd build``, ``cd "$DIR"``, ``cd ~user``)."""
    i = _options_end(args)
    if i < len(args) and args[i].startswith(("+", "-")):
        return None
    if i >= len(args):
        return "~" if name == "cd" else None  # a bare ``cd`` goes home
    raw = args[i]
    path = raw.translate(_UNPROTECT)  # one character for one: indexes agree
    if not path:
        return cwd  # ``cd ''`` stays
    home = _HOME.match(path)
    rest, raw_rest = (path[home.end() :], raw[home.end() :]) if home else (path, raw)
    found = [subs[int(m)][1] for m in _SUB_RE.findall(raw)]
    if any(not _makes_temporary(body) for body in found):
        return _UNRESOLVED
    if "$" in raw_rest or re.search(_BRACES, raw_rest):
        return _UNRESOLVED  # unquoted: it may be empty (``cd`` alone goes home) or anything
    if found:
        # ``$(mktemp -d)`` is a new directory, never root or home; its parent is unknown.
        return _UNRESOLVED if ".." in rest.split("/") else None
    if _QUOTED_DOLLAR in raw_rest:
        # A quoted variable may be empty: ``cd "$DIR"`` then stays where it was, and
        # ``cd ~/"$DIR"`` goes home. A directory that is no concern when it is set
        # (``cd "$DIR"/build``) is no concern at all.
        emptied = re.sub(_QUOTED_VARIABLE, "", raw).translate(_UNPROTECT)
        maybe = _changed_directory(name, [*args[:i], emptied], cwd, subs) if emptied else cwd
        return _UNRESOLVED if _concern(maybe) else None
    if any(ch in rest for ch in "`*?[~"):
        return None
    if home or path.startswith("/"):
        moved: str | None = path
    elif cwd == _UNRESOLVED:
        # A named directory below an unresolved one is no spelling of root or home.
        return _UNRESOLVED if _depth(path) <= 0 else None
    else:
        moved = None if cwd is None else _joined(cwd, path)
    # A longer path is no spelling of root or home worth following; capping it keeps one
    # line of thousands of ``cd x`` and ``rm`` linear.
    return moved if moved is not None and len(moved) <= _MAX_CWD_CHARS else None


def _stops(pipelines: list[list[_Simple | _Group]]) -> bool:
    """Whether the pipeline after a ``||`` ends the script: ``exit``, ``return``."""
    if len(pipelines) != 1 or len(pipelines[0]) != 1 or isinstance(pipelines[0][0], _Group):
        return False
    return _resolve(pipelines[0][0].words)[0] in ("exit", "return")


def _concern(cwd: str | None) -> bool:
    """Whether everything in ``cwd`` is root, home or unresolved."""
    return cwd is not None and (cwd == _UNRESOLVED or _target(".", cwd) != "")


def _makes_temporary(body: str) -> bool:
    """Whether a substitution's text is ``mktemp …``: it prints a directory it just made."""
    words = body.split()
    return bool(words) and words[0].rsplit("/", 1)[-1] == "mktemp"


def _check_rm(args: list[str], cwd: str | None) -> str:
    short, long, operands = _short_flags(args)
    if not ({"r", "R"} & short or "--recursive" in long):
        return ""
    return _deleted(operands, cwd)


def _deleted(paths: list[str], cwd: str | None) -> str:
    targets = {_target(path, cwd) for path in paths}
    if "root" in targets:
        return "rm-root"
    if "home" in targets:
        return "rm-home"
    return "rm-unknown-dir" if "unknown" in targets else ""


def _check_chmod(args: list[str], cwd: str | None) -> str:
    short, long, operands = _short_flags(args)
    if not ("R" in short or "--recursive" in long) or not operands:
        return ""
    if operands[0] not in _WORLD_MODES:
        return ""
    targets = {_target(op, cwd) for op in operands[1:]}
    if "root" in targets:
        return "chmod-777-root"
    return "chmod-777-home" if "home" in targets else ""


#: find tests that pick files by name: a delete limited by one is no catastrophe.
_FIND_NAME_TESTS = frozenset(
    {"-name", "-iname", "-path", "-ipath", "-wholename", "-iwholename", "-regex", "-iregex"}
)
#: find operators that can turn a name test around (``! -name x``, ``-name x -o …``).
_FIND_WIDENING = frozenset({"!", "-not", "-o", "-or", ","})


class _Find(NamedTuple):
    """A find command read: start points, the commands ``-exec``/``-execdir`` run,
    whether it has ``-delete``, and whether a name test limits what it finds (``-name x``,
    not ``! -name x`` or ``-name x -o …``)."""

    starts: list[str]
    runs: list[list[str]]
    deletes: bool
    narrowed: bool


def _find_parts(args: list[str]) -> _Find:
    i = 0
    while i < len(args) and (args[i] in ("-H", "-L", "-P", "-D") or args[i].startswith("-O")):
        i += 2 if args[i] == "-D" else 1
    starts: list[str] = []
    while i < len(args) and not args[i].startswith("-") and args[i] not in ("(", "!", ","):
        starts.append(args[i])
        i += 1
    expression = args[i:]
    runs: list[list[str]] = []
    deletes = narrowed = widened = False
    pos = 0
    while pos < len(expression):
        word = expression[pos]
        if word in _FIND_RUNS:
            end = _exec_end(expression, pos)
            if expression[pos + 1 : end]:
                runs.append(expression[pos + 1 : end])
            pos = end + 1
            continue
        if word == "-delete":
            deletes = True
        elif word in _FIND_NAME_TESTS and pos + 1 < len(expression):
            narrowed = narrowed or expression[pos + 1] not in ("*", ".*")
            pos += 1
        elif word in _FIND_WIDENING:
            widened = True
        pos += 1
    # GNU find starts at "." when given no start point.
    return _Find(starts or ["."], runs, deletes, narrowed and not widened)


#: find actions that run a command on what it finds (``-ok`` asks first: not followed).
_FIND_RUNS = frozenset({"-exec", "-execdir"})


def _exec_end(expression: list[str], pos: int) -> int:
    """The index of the ``;`` (or the ``+`` after ``{}``) ending the -exec at ``pos``."""
    end = pos + 1
    while end < len(expression) and expression[end] != ";":
        if expression[end] == "+" and expression[end - 1] == "{}":
            break
        end += 1
    return end


def _found_paths(starts: list[str], narrowed: bool) -> list[str]:
    """What stands for the paths a find finds, in checking what it runs on them: each
    start point when nothing narrows the search (it finds the start itself), else a
    path below it."""
    return starts if not narrowed else [start.rstrip("/") + "/found" for start in starts]


def _check_find(args: list[str], cwd: str | None) -> str:
    """``find`` deleting everything under root or home: ``-delete`` or ``-exec rm``, with
    no name test to limit it (``find ~ -name .DS_Store -delete`` is targeted)."""
    find = _find_parts(args)
    deletes = find.deletes or any(_resolve(run)[0] == "rm" for run in find.runs)
    if not deletes or find.narrowed:
        return ""
    return _deleted(find.starts, cwd)


def _check_dd(args: list[str]) -> str:
    for arg in args:
        if arg.startswith("of=/dev/"):
            device = arg[len("of=/dev/") :]
            if device not in _SAFE_DEVICES and not device.startswith("fd/"):
                return "dd-device"
    return ""


def _check_mkfs(args: list[str]) -> str:
    return "mkfs-device" if any(a.startswith("/dev/") for a in args) else ""


_GIT_GLOBAL_WITH_ARG = frozenset(
    {"-C", "-c", "--git-dir", "--work-tree", "--namespace", "--config-env", "--super-prefix"}
)


def _check_git(args: list[str]) -> str:
    i = 0
    while i < len(args) and args[i].startswith("-"):
        i += 2 if args[i] in _GIT_GLOBAL_WITH_ARG else 1
    if i >= len(args):
        return ""
    sub, rest = args[i], args[i + 1 :]
    options = rest[: rest.index("--") if "--" in rest else None]
    if sub == "reset" and any(_abbreviates(o, "--hard", 3) for o in options):
        return "git-reset-hard"
    if sub == "push":
        return _check_push(rest)
    return ""


def _check_push(args: list[str]) -> str:
    """A forced push: ``--force`` / ``-f`` whatever else is given (git's ``--force`` turns
    a lease off), or a ``+refspec`` without a lease."""
    force = plus = lease = dry_run = False
    options_done = False
    skip = False
    for arg in args:
        if skip:
            skip = False
        elif options_done or not arg.startswith("-"):
            plus = plus or arg.startswith("+")
        elif arg == "--":
            options_done = True
        elif arg.startswith("--"):
            option = arg.split("=", 1)[0]
            # git takes an unambiguous abbreviation (``--forc``, ``--mir``) for the option;
            # ``--mirror`` force-updates and deletes remote refs.
            force = (
                force or _abbreviates(option, "--force", 5) or _abbreviates(option, "--mirror", 3)
            )
            dry_run = dry_run or _abbreviates(option, "--dry-run", 4)
            lease = lease or option in ("--force-with-lease", "--force-if-includes")
            if option == "--no-force-with-lease":
                lease = False
            skip = (
                option in ("--push-option", "--repo", "--receive-pack", "--exec") and "=" not in arg
            )
        else:
            for pos, letter in enumerate(arg[1:]):
                if letter == "f":
                    force = True
                if letter == "n":
                    dry_run = True
                if letter == "o":
                    skip = pos == len(arg) - 2  # -o takes the next word when nothing follows
                    break
    if dry_run:
        return ""  # changes nothing
    return "git-push-force" if force or (plus and not lease) else ""


def _abbreviates(option: str, full: str, shortest: int) -> bool:
    """``option`` is ``full`` or git's abbreviation of it (at least ``shortest`` chars)."""
    return len(option) >= shortest and full.startswith(option)


_CHECKS = {
    "dd": _check_dd,
    "git": _check_git,
    "mke2fs": _check_mkfs,
    "mkfs": _check_mkfs,
}
#: Checks whose operands are paths, judged in the working directory the line spelled.
_PATH_CHECKS = {
    "chmod": _check_chmod,
    "find": _check_find,
    "rm": _check_rm,
}

#: Script interpreters a download can be piped into: the flags that give the program
#: on the command line (stdin is then data, ``python3 -m json.tool``), and the flags
#: whose value is the next word.
_INTERPRETERS: dict[str, tuple[str, str]] = {
    "node": ("ep", "r"),
    "perl": ("eE", ""),
    "php": ("rfBRFE", "dc"),
    "python": ("cm", "WX"),
    "ruby": ("e", "rICE"),
}
_INTERPRETER_NAME = re.compile(r"^(python|pypy|perl|ruby|node|nodejs|php)[0-9.]*$")
#: Long options after which the interpreter runs no script at all, or an inline one.
_NO_SCRIPT_LONG = frozenset({"--eval", "--print", "--check", "--help", "--version"})


def _interpreter_script(name: str, args: list[str]) -> str | None:
    """The script a python/perl/ruby/node/php invocation runs: its operand, ``""`` for
    stdin (no operand, or ``-``), None when the program is inline or ``name`` is none."""
    match = _INTERPRETER_NAME.match(name)
    if match is None:
        return None
    kind = {"pypy": "python", "nodejs": "node"}.get(match.group(1), match.group(1))
    inline, with_arg = _INTERPRETERS[kind]
    i = 0
    while i < len(args):
        arg = args[i]
        if arg == "-":
            return ""
        if arg == "--":
            return args[i + 1] if i + 1 < len(args) else ""
        if not arg.startswith("-"):
            return arg
        if arg.startswith("--"):
            if arg.split("=", 1)[0] in _NO_SCRIPT_LONG:
                return None
        else:
            for pos, letter in enumerate(arg[1:]):
                if letter in inline:
                    return None
                if letter in with_arg:
                    i += pos == len(arg) - 2  # its value is the next word
                    break
        i += 1
    return ""


def _shell_script(args: list[str]) -> str | None:
    """The ``-c`` script of a shell invocation, if any."""
    for pos, arg in enumerate(args):
        if arg == "--" or not arg.startswith("-"):
            return None
        if not arg.startswith("--") and "c" in arg[1:]:
            return args[pos + 1] if pos + 1 < len(args) else ""
    return None


def _reads_stdin(args: list[str]) -> bool:
    """A shell with no script operand (or ``-s`` / ``-``) runs what arrives on stdin."""
    if _shell_script(args) is not None:
        return False
    for arg in args:
        if arg.startswith("-") and not arg.startswith("--") and "n" in arg[1:]:
            return False  # ``bash -n``: a syntax check, nothing runs
        if arg in ("-", "--"):
            return True
        if not arg.startswith("-"):
            return False
        if not arg.startswith("--") and "s" in arg[1:]:
            return True
    return True


def _downloads(group: _Group) -> bool:
    for pipeline in group.pipelines:
        for stage in pipeline:
            if isinstance(stage, _Group):
                if _downloads(stage):
                    return True
            elif _resolve(stage.words)[0] in _DOWNLOADERS:
                return True
    return False


def _text_downloads(text: str) -> bool:
    scan = _prescan(text)
    tokens, _ = _tokens(scan.text)
    return _downloads(_parse(tokens))
