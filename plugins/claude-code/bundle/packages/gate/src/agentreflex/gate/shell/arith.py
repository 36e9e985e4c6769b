"""Bash's arithmetic, for the values a command computes (red-team rt94).

``n=$((n+1))``, ``let i+=2``, ``(( k = 7 % 4 ))``, an index (``${a[i+1]}``) and an
offset (``${d:0:$((6*2))}``) are what bash computes from values the walk knows, so
``d=.agentreflexXX; rm -rf ${d:0:$((6*2))}`` names the folder it removes.  The
evaluator follows bash's manual
(https://www.gnu.org/software/bash/manual/bash.html#Shell-Arithmetic): 64-bit
integers that wrap, division towards zero, ``0x``/``0`` prefixes, a name's value
read as an expression itself; anything else (``base#n``, a value the walk doesn't
know, a division by zero) is ``None``, not guessed.  ``&&``, ``||`` and ``?:``
short-circuit as bash's do (rt102): the side not taken is parsed but not evaluated, so
``(( 0 && (i=5) ))`` leaves ``i`` as it was, and a name it reads need not be known.
"""

from __future__ import annotations

from agentreflex.core.util.lazyre import LazyPattern
from agentreflex.gate.model import has_marker
from agentreflex.gate.shell import arrays

TYPE_CHECKING = False  # typing itself is not imported on the hot path
if TYPE_CHECKING:
    from collections.abc import Callable

_TOKEN = LazyPattern(
    r"\s*(0[xX][0-9a-fA-F]+|[0-9]+|[A-Za-z_][A-Za-z0-9_]*|\*\*=?|<<=|>>=|\+\+|--|&&|\|\||"
    r"[<>=!]=|<<|>>|[-+*/%&^|]=|[-+*/%&^|!~<>=?:,()])"
)
_ASSIGN_OPS = frozenset({"=", "+=", "-=", "*=", "/=", "%=", "<<=", ">>=", "&=", "^=", "|="})
# binary operators by precedence, loosest first (ternary, assignment, comma apart)
_LEVELS: tuple[tuple[str, ...], ...] = (
    ("||",),
    ("&&",),
    ("|",),
    ("^",),
    ("&",),
    ("==", "!="),
    ("<", "<=", ">", ">="),
    ("<<", ">>"),
    ("+", "-"),
    ("*", "/", "%"),
)
_MAX_NESTING = 16  # a name whose value names another, and so on
# a name assigned, its element too (``i[0]=1`` sets i, rt103): [...] nests no further
# than the walk's arithmetic reads it
_ASSIGNED = LazyPattern(
    r"([A-Za-z_][A-Za-z0-9_]*)\s*(?:\[[^\]]*\]\s*)?(?:[-+*/%&^|]|<<|>>)?=(?!=)|"
    r"([A-Za-z_][A-Za-z0-9_]*)\s*(?:\[[^\]]*\]\s*)?(?:\+\+|--)|"
    r"(?:\+\+|--)\s*([A-Za-z_][A-Za-z0-9_]*)"
)


class _Unknown(Exception):
    """The expression holds something the walk doesn't know or bash refuses."""


def _wrap(value: int) -> int:
    """``value`` as bash's 64-bit signed integer."""
    value &= (1 << 64) - 1
    return value - (1 << 64) if value >= 1 << 63 else value


_PARAM = LazyPattern(r"\$(?:\{([A-Za-z_][A-Za-z0-9_]*)\}|([A-Za-z_][A-Za-z0-9_]*))")


def run(text: str, env: dict[str, str]) -> int | None:
    """``text`` (``$((n+1))``, ``n+1``, ``$i``) expanded as bash expands it first, then
    evaluated; ``None`` (each name it assigns made unknown) when it can't be known."""
    try:
        expr = expand(text, env)
    except RecursionError:  # $(( $(( ... )) )) nested past Python's stack
        expr = None
    if expr is None:
        forget(text, env)
        return None
    return evaluate(expr, env)


def expand(text: str, env: dict[str, str]) -> str | None:
    """``text`` with its ``$((...))``, ``${NAME}`` and ``$NAME`` replaced by their values;
    ``None`` for any other expansion (``$(cmd)``, quotes) or a value not known."""
    out: list[str] = []
    pos = 0
    while pos < len(text):
        if text.startswith("$((", pos):
            end, level = pos + 3, 2
            while end < len(text) and level:
                level += {"(": 1, ")": -1}.get(text[end], 0)
                end += 1
            value = None if level else run(text[pos + 3 : end - 2], env)
            if value is None:
                return None
            out.append(str(value))
            pos = end
            continue
        m = _PARAM.match(text, pos)
        if m is not None:
            value_text = env.get(m.group(1) or m.group(2))
            if value_text is None or has_marker(value_text):
                return None
            out.append(value_text)
            pos = m.end()
            continue
        if text[pos] in "$`'\"\\":
            return None
        out.append(text[pos])
        pos += 1
    return "".join(out)


def forget(text: str, env: dict[str, str]) -> None:
    """Each name ``text`` assigns (``n=``, ``n+=``, ``n++``, ``--n``, ``a[i]=``) made
    unknown, an array's elements too."""
    for m in _ASSIGNED.finditer(text):
        arrays.set_table(env, m.group(1) or m.group(2) or m.group(3), None)


def evaluate(expr: str, env: dict[str, str]) -> int | None:
    """``expr``'s value as bash computes it; the names it assigns are set in ``env``
    (each made unknown when the value can't be computed).  ``None``: not known."""
    try:
        tokens = _tokens(expr)
        changes: dict[str, str] = {}
        value = _Parser(tokens, env, changes, 0).whole()
    except (_Unknown, RecursionError):
        forget(expr, env)
        return None
    env.update(changes)
    return value


def _tokens(expr: str) -> list[str]:
    if has_marker(expr):
        raise _Unknown
    out: list[str] = []
    pos, text = 0, expr.rstrip()
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if m is None:
            raise _Unknown  # $x, base#n, a quote: not followed
        out.append(m.group(1))
        pos = m.end()
    return out


def _number(token: str) -> int:
    """A constant as bash reads it: wrapped to 64 bits, as bash's own overflow does
    (``a[18446744073709551616]=x`` sets ``a[0]``: rt103)."""
    if token[:2] in ("0x", "0X"):
        return _wrap(int(token[2:], 16))
    if token.startswith("0") and len(token) > 1:
        if any(c in "89" for c in token):
            raise _Unknown  # bash: "value too great for base"
        return _wrap(int(token, 8))
    return _wrap(int(token))


class _Parser:
    """Precedence climbing over the tokens; assignments go to ``changes`` first.
    ``skipping`` counts the short-circuited sides being parsed (bash's ``noeval``):
    there a name reads as 0, nothing is assigned and no arithmetic error is raised."""

    def __init__(
        self, tokens: list[str], env: dict[str, str], changes: dict[str, str], nesting: int
    ) -> None:
        self.tokens, self.pos, self.env, self.changes = tokens, 0, env, changes
        self.nesting, self.skipping = nesting, 0

    def whole(self) -> int:
        if not self.tokens:
            return 0
        value = self.comma()
        if self.pos != len(self.tokens):
            raise _Unknown
        return value

    def peek(self) -> str:
        return self.tokens[self.pos] if self.pos < len(self.tokens) else ""

    def take(self, token: str = "") -> str:
        got = self.peek()
        if not got or (token and got != token):
            raise _Unknown
        self.pos += 1
        return got

    def comma(self) -> int:
        value = self.assign()
        while self.peek() == ",":
            self.take()
            value = self.assign()
        return value

    def assign(self) -> int:
        name = self.peek()
        after = self.tokens[self.pos + 1] if self.pos + 1 < len(self.tokens) else ""
        if name.isidentifier() and after in _ASSIGN_OPS:
            self.pos += 2
            right = self.assign()
            value = right if after == "=" else self.op(after[:-1], self.read(name), right)
            self.set(name, value)
            return value
        return self.ternary()

    def set(self, name: str, value: int) -> None:
        """An assignment, which a side not taken doesn't make."""
        if not self.skipping:
            self.changes[name] = str(value)

    def op(self, op: str, left: int, right: int) -> int:
        """``left op right``; on a side not taken bash raises no arithmetic error."""
        try:
            return _binary(op, left, right)
        except _Unknown:
            return _unknown_unless(self.skipping)

    def side(self, taken: bool, parse: Callable[[], int]) -> int:
        """One side of ``&&``, ``||`` or ``?:``, parsed whether taken or not."""
        self.skipping += not taken
        try:
            return parse()
        finally:
            self.skipping -= not taken

    def ternary(self) -> int:
        cond = self.binary(0)
        if self.peek() != "?":
            return cond
        self.take("?")
        yes = self.side(bool(cond), self.comma)  # bash: a comma expression here,
        self.take(":")
        no = self.side(not cond, self.ternary)  # and a conditional one here
        return yes if cond else no

    def binary(self, level: int) -> int:
        if level == len(_LEVELS):
            return self.power()
        left = self.binary(level + 1)
        while self.peek() in _LEVELS[level]:
            op = self.take()
            if op in ("&&", "||"):
                taken = bool(left) == (op == "&&")
                right = self.side(taken, lambda: self.binary(level + 1))
            else:
                right = self.binary(level + 1)
            left = self.op(op, left, right)
        return left

    def power(self) -> int:
        base = self.unary()
        if self.peek() == "**":
            self.take()
            exponent = self.power()
            if exponent < 0:
                raise _Unknown  # bash: "exponent less than 0", on a side not taken too
            if exponent > 256:  # not followed, but bash's answer on a side not taken
                return _unknown_unless(self.skipping)
            return _wrap(base**exponent)
        return base

    def unary(self) -> int:
        token = self.peek()
        if token in ("+", "-", "!", "~"):
            self.take()
            value = self.unary()
            return {"+": value, "-": _wrap(-value), "!": int(not value), "~": ~value}[token]
        if token in ("++", "--"):
            self.take()
            name = self.take()
            if not name.isidentifier():
                raise _Unknown
            value = _wrap(self.read(name) + (1 if token == "++" else -1))
            self.set(name, value)
            return value
        return self.postfix()

    def postfix(self) -> int:
        token = self.take()
        if token == "(":
            value = self.comma()
            self.take(")")
            return value
        if token[:1].isdigit():
            return _number(token)
        if not token.isidentifier():
            raise _Unknown
        value = self.read(token)
        if self.peek() in ("++", "--"):
            step = 1 if self.take() == "++" else -1
            self.set(token, _wrap(value + step))
        return value

    def read(self, name: str) -> int:
        """A name's value, itself read as an expression (bash's rule); unset is unknown:
        the agent's shell may hold it.  On a side not taken, bash reads nothing: 0."""
        if self.skipping:
            return 0
        text = self.changes.get(name, self.env.get(name))
        if text is None or self.nesting >= _MAX_NESTING:
            raise _Unknown
        sub = _Parser(_tokens(text), self.env, self.changes, self.nesting + 1)
        return sub.whole()


def _unknown_unless(skipping: int) -> int:
    """0 on a side not taken (its value is not used), else not known."""
    if skipping:
        return 0
    raise _Unknown


def _binary(op: str, left: int, right: int) -> int:
    if op in ("/", "%"):
        if right == 0:
            raise _Unknown  # bash: "division by 0"
        quotient = abs(left) // abs(right) * (1 if (left < 0) == (right < 0) else -1)
        return _wrap(quotient if op == "/" else left - right * quotient)
    if op in ("<<", ">>"):
        if right < 0 or right > 63:
            raise _Unknown
        return _wrap(left << right) if op == "<<" else left >> right
    table = {
        "+": lambda: left + right,
        "-": lambda: left - right,
        "*": lambda: left * right,
        "&": lambda: left & right,
        "|": lambda: left | right,
        "^": lambda: left ^ right,
        "==": lambda: int(left == right),
        "!=": lambda: int(left != right),
        "<": lambda: int(left < right),
        "<=": lambda: int(left <= right),
        ">": lambda: int(left > right),
        ">=": lambda: int(left >= right),
        "&&": lambda: int(bool(left) and bool(right)),
        "||": lambda: int(bool(left) or bool(right)),
    }
    if op not in table:
        raise _Unknown
    return _wrap(table[op]())
