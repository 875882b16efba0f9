"""Step B: parse the function's output into Python objects, inside a sandbox.

Runs as `python3 -I /sbx/parse.py` in a fresh sandbox with /sbx/stdout.txt
(mattools-v1: the run's stdout) and /sbx/repr.txt (mattools-v1-strict: repr of
the returned value, from the side channel; absent when there is none). The
texts are untrusted: evaluating array expressions may run code, which is why
this happens here and never on the host.

Writes one JSON object to fd 3: {"v1": R, "strict": R} with
R = {"status": "ok"|"empty"|"unparseable"|"not-dict"|"empty-dict"|"absent",
     "error": text, "type": type name of the parsed value,
     "keys", "none_values": a parsed dict's keys and its values that are None,
     "pickle": base64 of pickle.dumps(parsed dict) when status is "ok"}.
"""
import ast
import base64
import io
import json
import os
import pickle
import re
import secrets
import tokenize

side_fd = os.dup(3)
os.close(3)

import numpy as np  # noqa: E402
from pymatgen.core import Element  # noqa: E402


class ComplexDictParser:
    """MatTools' parser, as docs/mattools.md §2.4 B specifies it.

    Two array passes ("array(", then "np.array("), each scanning left to right
    and finding the closing parenthesis by counting, blind to quotes; then two
    Element passes over the whole text (strings included); then
    ast.literal_eval; then placeholders restored through dict keys, dict values
    and list items only. Quirks are kept on purpose.
    """

    def __init__(self):
        self.placeholders = {}
        self.counter = 0

    def _new(self, prefix, value):
        key = f"__{prefix}_{self.counter}__"
        self.counter += 1
        self.placeholders[key] = value
        return f"'{key}'"

    def _arrays(self, text, pattern):
        i = 0
        while True:
            idx = text.find(pattern, i)
            if idx == -1:
                return text
            open_at = idx + len(pattern) - 1
            depth, end = 0, -1
            for k in range(open_at, len(text)):
                c = text[k]
                if c == "(":
                    depth += 1
                elif c == ")":
                    depth -= 1
                    if depth == 0:
                        end = k
                        break
            if end == -1:
                i = idx + 1
                continue
            expr = text[idx:end + 1]
            if "float128" in expr:
                expr = expr.replace("float128", "np.float64")
                if not expr.startswith("np."):
                    expr = "np." + expr
            elif expr.startswith("array("):
                expr = "np." + expr
            try:
                value = eval(expr, {"np": np, "Element": Element})  # noqa: S307 - inside the sandbox, as MatTools did on its host
            except Exception:  # noqa: BLE001
                i = idx + 1
                continue
            rep = self._new("ARRAY", value)
            text = text[:idx] + rep + text[end + 1:]
            i = idx + len(rep)

    def _elements(self, text):
        def sub(m):
            try:
                el = Element(m.group(1))
            except Exception:  # noqa: BLE001
                return m.group(0)
            return self._new("ELEMENT", el)

        text = re.sub(r"Element\(['\"](\w+)['\"]\)", sub, text)
        return re.sub(r"Element\s+(\w+)", sub, text)

    def _restore(self, obj):
        if isinstance(obj, dict):
            return {self._restore(k): self._restore(v) for k, v in obj.items()}
        if isinstance(obj, list):
            return [self._restore(x) for x in obj]
        if isinstance(obj, str) and obj in self.placeholders:
            return self.placeholders[obj]
        return obj

    def parse(self, text):
        text = self._arrays(text, "array(")
        text = self._arrays(text, "np.array(")
        text = self._elements(text)
        return self._restore(ast.literal_eval(text))


class StrictParser:
    """mattools-v1-strict's parser: the same literals, numpy arrays and
    pymatgen Elements, found by tokens so that text inside string literals is
    never touched ("Element Mg" in a string stays a string), "np.array(...)"
    and "array(...)" are both understood (dtype=float128 read as float64, as
    in mattools-v1), nan and inf are floats, and
    placeholders (with a random nonce) are restored inside tuples, sets and
    frozensets too.
    """

    NAMES = {"np": np, "numpy": np, "array": np.array, "Element": Element, "dtype": np.dtype,
             "nan": float("nan"), "inf": float("inf")}
    for _t in ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float16",
               "float32", "float64", "complex64", "complex128", "bool_", "object_", "str_"):
        NAMES[_t] = getattr(np, _t)
    # numpy prints long-double arrays with dtype=float128; mattools-v1 reads them as float64, and so do we.
    NAMES["float128"] = np.float64
    NAMES["longdouble"] = np.float64

    def __init__(self):
        self.nonce = secrets.token_hex(8)
        self.placeholders = {}

    def _new(self, value):
        key = f"__SBX_{self.nonce}_{len(self.placeholders)}__"
        self.placeholders[key] = value
        return repr(key)

    def parse(self, text):
        lines = text.splitlines(keepends=True)
        starts = [0]
        for ln in lines:
            starts.append(starts[-1] + len(ln))

        def off(pos):
            return starts[pos[0] - 1] + pos[1]

        toks = [t for t in tokenize.generate_tokens(io.StringIO(text).readline)
                if t.type not in (tokenize.NL, tokenize.NEWLINE, tokenize.COMMENT, tokenize.INDENT,
                                  tokenize.DEDENT, tokenize.ENDMARKER)]
        out, last, i = [], 0, 0
        while i < len(toks):
            t = toks[i]
            span = None  # (start token index, end token index inclusive)
            if t.type == tokenize.NAME and t.string in ("np", "numpy") and i + 3 < len(toks) \
                    and toks[i + 1].string == "." and toks[i + 2].string == "array" and toks[i + 3].string == "(":
                span = (i, self._close(toks, i + 3))
            elif t.type == tokenize.NAME and t.string == "array" and i + 1 < len(toks) and toks[i + 1].string == "(" \
                    and (i == 0 or toks[i - 1].string != "."):
                span = (i, self._close(toks, i + 1))
            elif t.type == tokenize.NAME and t.string == "Element" and i + 1 < len(toks):
                nxt = toks[i + 1]
                if nxt.type == tokenize.NAME:
                    span = (i, i + 1)
                    value = Element(nxt.string)
                elif nxt.string == "(" and i + 3 < len(toks) and toks[i + 2].type == tokenize.STRING \
                        and toks[i + 3].string == ")":
                    span = (i, i + 3)
                    value = Element(ast.literal_eval(toks[i + 2].string))
            elif t.type == tokenize.NAME and t.string in ("nan", "inf"):
                span = (i, i)
                value = float(t.string)
            if span is None or span[1] is None:
                i += 1
                continue
            a, b = off(toks[span[0]].start), off(toks[span[1]].end)
            if t.string in ("np", "numpy", "array"):
                value = eval(text[a:b], {"__builtins__": {}}, dict(self.NAMES))  # noqa: S307 - inside the sandbox
            out.append(text[last:a])
            out.append(self._new(value))
            last = b
            i = span[1] + 1
        out.append(text[last:])
        return self._restore(ast.literal_eval("".join(out)))

    @staticmethod
    def _close(toks, open_idx):
        depth = 0
        for k in range(open_idx, len(toks)):
            s = toks[k].string
            if toks[k].type == tokenize.OP and s in "([{":
                depth += 1
            elif toks[k].type == tokenize.OP and s in ")]}":
                depth -= 1
                if depth == 0:
                    return k
        return None

    def _restore(self, obj):
        if isinstance(obj, dict):
            return {self._restore(k): self._restore(v) for k, v in obj.items()}
        if isinstance(obj, list):
            return [self._restore(x) for x in obj]
        if isinstance(obj, tuple):
            return tuple(self._restore(x) for x in obj)
        if isinstance(obj, (set, frozenset)):
            return type(obj)(self._restore(x) for x in obj)
        if isinstance(obj, str) and obj in self.placeholders:
            return self.placeholders[obj]
        return obj


def parse_one(path, parser_class, strip):
    try:
        text = open(path, encoding="utf-8", errors="surrogateescape").read()
    except FileNotFoundError:
        return {"status": "absent"}
    if strip:  # MatTools strips the captured stdout (code_validation)
        text = text.strip()
    if text == "":
        return {"status": "empty"}
    try:
        value = parser_class().parse(text)
    except BaseException as e:  # noqa: BLE001 - MatTools: any parse failure is a function error
        return {"status": "unparseable", "error": f"{type(e).__name__}: {e}"[:2000]}
    r = {"type": type(value).__name__}
    if isinstance(value, dict):
        # For the self-reflection loop's stopping rule (all values non-None).
        r["keys"] = len(value)
        r["none_values"] = sum(1 for v in value.values() if v is None)
    if not isinstance(value, dict):
        r["status"] = "not-dict"
    elif value == {}:
        r["status"] = "empty-dict"
    else:
        try:
            r["pickle"] = base64.b64encode(pickle.dumps(value, protocol=4)).decode()
            r["status"] = "ok"
        except BaseException as e:  # noqa: BLE001
            r["status"] = "unparseable"
            r["error"] = f"pickling failed: {type(e).__name__}: {e}"[:2000]
    return r


result = {"v1": parse_one("/sbx/stdout.txt", ComplexDictParser, True),
          "strict": parse_one("/sbx/repr.txt", StrictParser, False)}
data = json.dumps(result).encode()
while data:
    n = os.write(side_fd, data)
    data = data[n:]
os.close(side_fd)
