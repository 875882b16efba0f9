"""Extract MatTools' prompt texts from its upstream Python sources, by parsing only.

Used by runner/systems (upstream.go), which embeds this file and runs it as
`python -I -c <this file>`. It never imports or executes the upstream code: it
parses each file with `ast.parse` and evaluates only string literals.

Input (stdin, JSON):
  {"files": {"<upstream path>": "<base64 of the file's bytes>", ...},
   "texts": [{"out": "single_llm/answer_format.txt", "file": "<upstream path>",
              "scope": "" | "Class.method", "name": "VARIABLE", "occurrence": 0}, ...]}
Output (stdout, JSON): {"<out>": "<text>", ...}.
A text that cannot be found or is not a string literal is an error on stderr
naming the upstream file, the scope and the variable; the exit status is 1.

A text is the value assigned to `name`: at module level when scope is "" (the
one assignment; more than one is an error), else inside the method
`Class.method` (the occurrence-th assignment to `name` in source order,
counting from 0). Values are string literals, implicitly
concatenated literals, or f-strings whose replacement fields are plain names;
a field `{x}` is kept as the placeholder `{x}`, as the published prompts write it.
"""

import ast
import base64
import json
import sys


class ExtractError(Exception):
    pass


def literal(node, where):
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        parts = []
        for v in node.values:
            if isinstance(v, ast.Constant) and isinstance(v.value, str):
                parts.append(v.value)
            elif (isinstance(v, ast.FormattedValue) and isinstance(v.value, ast.Name)
                  and v.conversion == -1 and v.format_spec is None):
                parts.append("{" + v.value.id + "}")
            else:
                raise ExtractError(f"{where}: line {v.lineno}: f-string field is not a plain name")
        return "".join(parts)
    raise ExtractError(f"{where}: line {node.lineno}: value is not a string literal ({type(node).__name__})")


def assignments(body_nodes, name, recurse):
    found = []
    nodes = []
    for n in body_nodes:
        nodes.extend(ast.walk(n) if recurse else [n])
    for n in nodes:
        if isinstance(n, ast.Assign):
            if len(n.targets) == 1 and isinstance(n.targets[0], ast.Name) and n.targets[0].id == name:
                found.append(n)
        elif isinstance(n, ast.AnnAssign) and n.value is not None:
            if isinstance(n.target, ast.Name) and n.target.id == name:
                found.append(n)
    found.sort(key=lambda n: (n.lineno, n.col_offset))
    return found


def scope_body(tree, scope, where):
    if scope == "":
        return tree.body, False
    cls, _, meth = scope.partition(".")
    for c in tree.body:
        if isinstance(c, ast.ClassDef) and c.name == cls:
            for f in c.body:
                if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef)) and f.name == meth:
                    return f.body, True
    raise ExtractError(f"{where}: no method {scope}")


def main():
    req = json.load(sys.stdin)
    trees = {}
    for path, b64 in req["files"].items():
        try:
            trees[path] = ast.parse(base64.b64decode(b64), filename=path)
        except SyntaxError as e:
            raise ExtractError(f"{path}: line {e.lineno}: {e.msg}")
    out = {}
    for t in req["texts"]:
        path, scope, name, occ = t["file"], t["scope"], t["name"], t["occurrence"]
        where = f"{path}: {scope + ': ' if scope else ''}{name}"
        if path not in trees:
            raise ExtractError(f"{path}: file not given")
        body, recurse = scope_body(trees[path], scope, where)
        found = assignments(body, name, recurse)
        if scope == "" and len(found) > 1:
            raise ExtractError(f"{where}: assigned {len(found)} times at module level")
        if occ >= len(found):
            raise ExtractError(f"{where}: {len(found)} assignment(s), want assignment #{occ + 1}")
        out[t["out"]] = literal(found[occ].value, where)
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    try:
        main()
    except ExtractError as e:
        print(e, file=sys.stderr)
        sys.exit(1)
