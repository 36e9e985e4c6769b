"""Where each key of a TOML document is written: its line number.

Why: ``tomllib`` returns plain dicts with no positions, and an error that
says ``loop.hard_repeat_count`` without a line leaves the user hunting
through a file that may spell the key as ``[loop]`` + ``hard_repeat_count``,
as the dotted ``loop.hard_repeat_count``, or inside ``loop = {...}``.

:func:`key_lines` scans a document that ``tomllib`` already accepted and maps
every key path (a tuple of keys, with an integer index for each element of an
array or array of tables, as in the parsed data) to the 1-based line where it
is written; a table known only from a header gets the header's line. It
understands table headers, arrays of tables, dotted and quoted keys, inline
tables, arrays (over several lines, with comments) and every string form, and
checks nothing: the document is valid TOML by the time it is asked.
Cold path only.
"""

from __future__ import annotations

Path = tuple[str | int, ...]

_BARE = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-")
_ESCAPES = {"b": "\b", "t": "\t", "n": "\n", "f": "\f", "r": "\r", '"': '"', "\\": "\\"}


def key_lines(text: str) -> dict[Path, int]:
    """Every key path of ``text`` mapped to the line it is written on (1-based)."""
    return _Scanner(text).run()


def line_of(lines: dict[Path, int], path: Path) -> int:
    """The line of ``path``, or of its longest written prefix; 0 when none is written."""
    for end in range(len(path), 0, -1):
        line = lines.get(path[:end])
        if line is not None:
            return line
    return 0


class _Scanner:
    def __init__(self, text: str) -> None:
        self.text = text
        self.pos = 0
        self.lines: dict[Path, int] = {}
        self.arrays: dict[Path, int] = {}  # array-of-tables path -> elements seen

    @property
    def line(self) -> int:
        return self.text.count("\n", 0, self.pos) + 1

    def run(self) -> dict[Path, int]:
        table: Path = ()
        while True:
            self._skip_blank(newlines=True)
            if self.pos >= len(self.text):
                return self.lines
            if self.text.startswith("[[", self.pos):
                table = self._header(array=True)
            elif self.text[self.pos] == "[":
                table = self._header(array=False)
            else:
                self._key_value(table)

    def _note(self, path: Path, line: int) -> None:
        self.lines.setdefault(path, line)

    def _header(self, array: bool) -> Path:
        line = self.line
        self.pos += 2 if array else 1
        keys = self._keys()
        self.pos += 2 if array else 1  # the closing bracket(s)
        path: Path = ()
        for i, key in enumerate(keys):
            path = (*path, key)
            self._note(path, line)
            last = i == len(keys) - 1
            if last and array:
                index = self.arrays.get(path, 0)
                self.arrays[path] = index + 1
                path = (*path, index)
                self._note(path, line)
            elif path in self.arrays:  # [[a]] then [a.b]: b belongs to a's last element
                path = (*path, self.arrays[path] - 1)
        return path

    def _key_value(self, table: Path) -> None:
        line = self.line
        keys = self._keys()
        path = table
        for key in keys:
            path = (*path, key)
            self._note(path, line)
        self._skip_blank(newlines=False)
        self.pos += 1  # "="
        self._value(path)

    def _keys(self) -> list[str]:
        keys = []
        while True:
            self._skip_blank(newlines=False)
            keys.append(self._key())
            self._skip_blank(newlines=False)
            if self.pos < len(self.text) and self.text[self.pos] == ".":
                self.pos += 1
                continue
            return keys

    def _key(self) -> str:
        char = self.text[self.pos]
        if char in "\"'":
            return self._string()
        start = self.pos
        while self.pos < len(self.text) and self.text[self.pos] in _BARE:
            self.pos += 1
        return self.text[start : self.pos]

    def _value(self, path: Path) -> None:
        self._skip_blank(newlines=False)
        char = self.text[self.pos]
        if char in "\"'":
            self._string()
        elif char == "[":
            self._array(path)
        elif char == "{":
            self._inline_table(path)
        else:  # number, boolean, date: up to a separator
            while self.pos < len(self.text) and self.text[self.pos] not in ",]}#\n":
                self.pos += 1

    def _array(self, path: Path) -> None:
        self.pos += 1
        index = 0
        while True:
            self._skip_blank(newlines=True)
            if self.text[self.pos] == "]":
                self.pos += 1
                return
            if self.text[self.pos] == ",":
                self.pos += 1
                continue
            item = (*path, index)
            self._note(item, self.line)
            self._value(item)
            index += 1

    def _inline_table(self, path: Path) -> None:
        self.pos += 1
        while True:
            self._skip_blank(newlines=True)
            if self.text[self.pos] == "}":
                self.pos += 1
                return
            if self.text[self.pos] == ",":
                self.pos += 1
                continue
            self._key_value(path)

    def _string(self) -> str:
        """Consume a string of any of the four kinds; its value (escapes decoded simply)."""
        text, pos = self.text, self.pos
        quote = text[pos]
        if text.startswith(quote * 3, pos):
            end = text.index(quote * 3, pos + 3)
            while text.startswith(quote, end + 3):  # up to two quotes may end the content
                end += 1
            self.pos = end + 3
            return text[pos + 3 : end]
        pos += 1
        out = []
        while text[pos] != quote:
            if quote == '"' and text[pos] == "\\":
                size = {"u": 4, "U": 8}.get(text[pos + 1], 0)
                if size:
                    out.append(chr(int(text[pos + 2 : pos + 2 + size], 16)))
                else:
                    out.append(_ESCAPES.get(text[pos + 1], text[pos : pos + 2]))
                pos += 2 + size
                continue
            out.append(text[pos])
            pos += 1
        self.pos = pos + 1
        return "".join(out)

    def _skip_blank(self, newlines: bool) -> None:
        text = self.text
        while self.pos < len(text):
            char = text[self.pos]
            if char in " \t\r" or (newlines and char == "\n"):
                self.pos += 1
            elif char == "#":
                end = text.find("\n", self.pos)
                self.pos = len(text) if end < 0 else end
            else:
                return
