"""Risky shell commands: a verdict with reason codes for a handful of catastrophes.

Owns the narrow list of commands that deserve one confirmation before they
run: ``rm -r`` (or ``find -delete``) of ``/`` or the home directory, ``git push
--force`` without a lease, ``git reset --hard``, ``mkfs`` or ``dd`` onto a device,
``chmod -R 777`` of ``/`` or home, ``curl``/``wget`` piped into a shell or a
script interpreter, and ``sudo rm``.

A relative operand is judged where it runs: ``cd /``, ``cd ~`` (and ``cd`` on to
a relative directory from there) earlier on the same line is followed, so
``cd / && rm -rf *`` is ``rm -rf /*``. A directory the text does not spell
(``cd build``, ``cd "$DIR"``) leaves the working directory unknown and a
relative operand unjudged.

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
# Quoted or escaped operator characters and braces are swapped for private-use
# characters before shlex sees them, so a quoted ";" is never an operator.
_PROTECTABLE = _OPERATOR_CHARS + "{}"
_PROTECT = {ch: chr(0xE000 + i) for i, ch in enumerate(_PROTECTABLE)}
_UNPROTECT = str.maketrans({v: k for k, v in _PROTECT.items()})
_SUB_OPEN, _SUB_CLOSE = "\ue100", "\ue101"
_SUB_RE = re.compile(f"{_SUB_OPEN}(\\d+){_SUB_CLOSE}")
_DOC_OPEN, _DOC_CLOSE = "\ue102", "\ue103"
_DOC_RE = re.compile(f"^{_DOC_OPEN}(\\d+){_DOC_CLOSE}$")
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
    findings: list[RiskFinding] = []
    exact = _assess(command[:MAX_COMMAND_CHARS], 0, findings) and exact
    unique = tuple(dict.fromkeys(findings))
    return RiskVerdict(unique, exact)


# --- parsing -----------------------------------------------------------------


@dataclass
class _Simple:
    """A simple command: its words (redirections removed) and the heredocs fed to it."""

    words: list[str]
    docs: list[int] = field(default_factory=list)


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
    docs: list[int] = []
    redirect_next = False

    def end_command() -> None:
        nonlocal words, docs
        if words:
            pipeline.append(_Simple(words, docs))
            words, docs = [], []

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
) -> bool:
    """Analyse ``command``; ``sudo``: it runs as root (``sudo sh -c '…'``); ``cwd``: the
    directory it starts in when the text spelled it (``/``, ``~``), else None."""
    scan = _prescan(command)
    tokens, exact = _tokens(scan.text)
    exact = exact and scan.exact
    if depth < MAX_DEPTH:
        for _kind, body in scan.subs:
            exact = _assess(body, depth + 1, findings, sudo, cwd) and exact
    elif scan.subs:
        exact = False  # not followed: whatever is nested deeper was never looked at
    tree = _parse(tokens)
    context = _Context(scan.subs, depth, findings, scan.docs, sudo, cwd)
    context.group(tree)
    return exact and context.exact


@dataclass
class _Context:
    subs: list[tuple[str, str]]
    depth: int
    findings: list[RiskFinding]
    docs: list[tuple[str, bool]]
    sudo: bool = False
    #: The working directory as far as the text spells it (``/``, ``~/x``), else None.
    cwd: str | None = None
    exact: bool = True

    def group(self, group: _Group) -> None:
        outer = self.cwd  # a ``cd`` inside ``( … )`` never moves what follows the group
        for pipeline, end in zip(group.pipelines, group.ends, strict=True):
            resolved = self.pipeline(pipeline)
            if len(resolved) == 1 and resolved[0] is not None and end != "&":
                name, args, _sudo = resolved[0]
                if name in ("cd", "pushd", "popd"):
                    self.cwd = _changed_directory(name, args, self.cwd)
        self.cwd = outer

    def pipeline(self, stages: list[_Simple | _Group]) -> list[tuple[str, list[str], bool] | None]:
        """Check one pipeline; its stages resolved (None for a group)."""
        downloaded = False
        shown: list[str] = []  # the pipeline so far, for the finding's text
        resolved = [None if isinstance(s, _Group) else _resolve(s.words) for s in stages]
        # A heredoc is data unless a shell or interpreter runs it: the command it is fed
        # to, or a shell later in the pipeline (``cat <<X | sh``).
        shell_after = [
            any(r is not None and r[0] in _SHELLS and _reads_stdin(r[1]) for r in resolved[n + 1 :])
            for n in range(len(stages))
        ]
        for stage, found, feeds_shell in zip(stages, resolved, shell_after, strict=True):
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
        text = " ".join(w if w == "|" else _display(w, self.subs) for w in words) + where
        if len(text) > _PREVIEW:
            text = text[: _PREVIEW - 1] + "…"
        self.findings.append(RiskFinding(code, RISK_CODES[code], mask(text)))

    def recurse(self, text: str, sudo: bool = False) -> None:
        if self.depth < MAX_DEPTH:
            self.exact = _assess(text, self.depth + 1, self.findings, sudo, self.cwd) and self.exact
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
            self.add(code, words, "" if self.cwd is None else f" (in {self.cwd})")
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
            self.recurse(script, sudo)
            return
        operand = next((a for a in args if not a.startswith("-")), None)
        if operand is not None and self.fetched(operand):
            self.add("pipe-to-shell", words)


def _display(word: str, subs: list[tuple[str, str]]) -> str:
    def restore(match: re.Match[str]) -> str:
        kind, body = subs[int(match.group(1))]
        closer = "`" if kind == "`" else ")"
        return f"{kind}{body}{closer}"

    shown = _SUB_RE.sub(restore, word)
    return shlex.quote(shown) if shown != word or not shown or " " in shown else shown


def _resolve(words: list[str]) -> tuple[str, list[str], bool]:
    """Strip assignments, keywords and wrappers (sudo, env, nohup...): name, args, sudo."""
    sudo = False
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
            i = _skip_options(words, i + 1, with_arg="adEeILlnPs")
        elif name == "watch":
            i = _skip_options(words, i + 1, with_arg="nd")
            if not {"-x", "--exec"} & set(words[:i]):
                # watch hands its arguments, joined by spaces, to ``sh -c``.
                return "sh", ["-c", " ".join(words[i:])], sudo
        else:
            return name, words[i + 1 :], sudo
    return "", [], sudo


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
    judged in ``cwd`` when the command line spelled it (``.`` after ``cd /``)."""
    if path and cwd is not None and not path.startswith(("/", "~", "$")):
        path = _joined(cwd, path)
    home = _HOME.match(path)
    if home:
        base, rest = "home", path[home.end() :]
    elif path.startswith("/"):
        base, rest = "root", path
    else:
        return ""
    depth = 0
    for part in rest.split("/"):
        if part in ("", "."):
            continue
        if part == "..":
            depth -= 1
        elif part in ("*", ".*") and depth <= 0:
            continue  # everything in it (``.*``: its dot files, and ``..`` in older shells)
        else:
            depth += 1
    if depth > 0:
        return ""
    return base if base == "root" or depth == 0 else "home"  # above home holds it


#: Longest working directory followed through ``cd``; past it, it is unknown.
_MAX_CWD_CHARS = 256


def _joined(directory: str, path: str) -> str:
    return directory.rstrip("/") + "/" + path


def _changed_directory(name: str, args: list[str], cwd: str | None) -> str | None:
    """The working directory after ``cd``/``pushd``/``popd`` ARGS, when the text spells it:
    ``/``, ``~``, ``$HOME`` or a relative step from a known one; None for anything else
    (``cd "$DIR"``, ``cd -``, ``popd``: the brake judges no relative path there)."""
    i = 0
    while i < len(args) and args[i].startswith("-") and args[i] != "-":
        i += 1
        if args[i - 1] == "--":
            break
    if name == "popd" or (i < len(args) and args[i].startswith(("+", "-"))):
        return None
    if i >= len(args):
        return "~" if name == "cd" else None  # a bare ``cd`` goes home
    path = args[i]
    home = _HOME.match(path)
    rest = path[home.end() :] if home else path
    if not path or any(ch in rest for ch in "$`*?[~" + _SUB_OPEN):
        return None
    moved = path if home or path.startswith("/") else None if cwd is None else _joined(cwd, path)
    # A longer path is no spelling of root or home worth following; capping it keeps one
    # line of thousands of ``cd x`` and ``rm`` linear.
    return moved if moved is not None and len(moved) <= _MAX_CWD_CHARS else None


def _check_rm(args: list[str], cwd: str | None) -> str:
    short, long, operands = _short_flags(args)
    if not ({"r", "R"} & short or "--recursive" in long):
        return ""
    return _deleted(operands, cwd)


def _deleted(paths: list[str], cwd: str | None) -> str:
    targets = {_target(path, cwd) for path in paths}
    if "root" in targets:
        return "rm-root"
    return "rm-home" if "home" in targets else ""


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


def _check_find(args: list[str], cwd: str | None) -> str:
    """``find`` deleting everything under root or home: ``-delete`` or ``-exec rm``, with
    no name test to limit it (``find ~ -name .DS_Store -delete`` is targeted)."""
    i = 0
    while i < len(args) and (args[i] in ("-H", "-L", "-P", "-D") or args[i].startswith("-O")):
        i += 2 if args[i] == "-D" else 1
    starts: list[str] = []
    while i < len(args) and not args[i].startswith("-") and args[i] not in ("(", "!", ","):
        starts.append(args[i])
        i += 1
    expression = args[i:]
    deletes = narrowed = widened = False
    pos = 0
    while pos < len(expression):
        word = expression[pos]
        if word in ("-exec", "-execdir"):
            end = pos + 1
            while end < len(expression) and expression[end] != ";":
                if expression[end] == "+" and expression[end - 1] == "{}":
                    break
                end += 1
            run = expression[pos + 1 : end]
            deletes = deletes or (bool(run) and _resolve(run)[0] == "rm")
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
    if not deletes or (narrowed and not widened):
        return ""
    return _deleted(starts or ["."], cwd)  # GNU find starts at "." when given none


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
