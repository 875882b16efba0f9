import ast
import builtins
import difflib
import json
import re
import textwrap
import traceback

# The question-text audit of cmd/audit (docs/benchmark-audit.md, "The
# question-text audit"): the code of one question.txt checked statically
# (each fenced block parsed; every name looked up in the order the text
# gives the code) and, where the code is self-contained, executed. It is
# run as an answer, in the sandbox, with the question's data files; it
# prints one line, MARKER and a JSON list of findings
# {"line": question.txt line, "kind": ..., "detail": ...}, and returns {}.
# Templated by cmd/audit/questiontext.go: TEXT, MARKER, RUN, FUNCTION.

TEXT = {{TEXT}}
MARKER = {{MARKER}}
RUN = {{RUN}}  # execute the self-contained code (the question's data files are present)

# Where a name the text reads but never binds can be imported from: such a
# name is a missing import ("missing-import", not a defect: the questions
# ask for "Necessary imports"); any other is a defect.
IMPORTABLE = ["numpy", "copy", "collections", "pathlib", "itertools", "math", "monty.serialization",
              "pymatgen.core", "pymatgen.core.periodic_table", "pymatgen.io.vasp.outputs", "pymatgen.io.vasp",
              "pymatgen.analysis.phase_diagram", "pymatgen.entries.computed_entries",
              "pymatgen.analysis.defects.core", "pymatgen.analysis.defects.thermo", "pymatgen.analysis.defects.generators",
              "pymatgen.analysis.defects.finder", "pymatgen.analysis.defects.ccd", "pymatgen.analysis.defects.corrections.freysoldt",
              "pymatgen.analysis.defects.corrections.kumagai", "pymatgen.analysis.defects.supercells", "pymatgen.analysis.defects.utils",
              "pymatgen.analysis.defects.recombination", "pymatgen.analysis.defects.plotting.thermo", "pymatgen.analysis.defects.plotting.phases"]
CONVENTIONS = {"np": "numpy", "npt": "numpy.typing", "pd": None}


def importable(name):
    """The module a missing name can be imported from, or None."""
    import importlib
    if CONVENTIONS.get(name):
        return CONVENTIONS[name]
    for mod in IMPORTABLE:
        if mod == name:
            return mod
        try:
            m = importlib.import_module(mod)
        except Exception:
            continue
        if hasattr(m, name):
            return mod
    return None


def data_path(text, code):
    """file_path as the text uses it: the data folder when its code joins
    names to it (file_path / "GaN.vasp"), else the one file the text names
    ("path at: `…`")."""
    folder = "tool_source_code/pymatgen-analysis-defects/tests/test_files"
    if "file_path /" in code or "file_path/" in code:
        return folder
    named = re.findall(r"path at: `([^`]+)`", text)
    return named[0] if len(named) == 1 else folder

# "[MASK]" is the benchmark's placeholder for the name a solver must find
# (test_boltzmann's "from ... import [MASK]"): read as the name MASK_NAME,
# defined, never executed.
MASK_NAME = "__MASK__"
FENCE = re.compile(r"```python(.*?)```", re.S)


def blocks(text):
    """The fenced code blocks: (first line in question.txt, 1-based; source
    padded with blank lines so that its line numbers are question.txt's)."""
    out = []
    for m in FENCE.finditer(text):
        body = m.group(1)
        first = text.count("\n", 0, m.start(1)) + 1  # the fence's line
        if "\n" not in body.strip("\n") and "\\n" in body:
            # An inline block with escaped line feeds, on one line.
            lines = [l for l in body.split("\\n")]
            src = textwrap.dedent("\n".join(lines))
            out.append((first, src, first, True))
            continue
        src = textwrap.dedent(body)
        out.append((first, "\n" * (first - 1) + src, first, False))
    return out


def stores(node):
    """Names a node binds."""
    names = set()
    for n in ast.walk(node):
        if isinstance(n, ast.Name) and isinstance(n.ctx, (ast.Store, ast.Del)):
            names.add(n.id)
        elif isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(n.name)
        elif isinstance(n, (ast.Import, ast.ImportFrom)):
            for a in n.names:
                names.add((a.asname or a.name).split(".")[0])
        elif isinstance(n, ast.arg):
            names.add(n.arg)
        elif isinstance(n, ast.ExceptHandler) and n.name:
            names.add(n.name)
    return names


def loads(node):
    """(name, line) of every name a node reads."""
    return [(n.id, n.lineno) for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)]


def free_names(stmt, defined):
    """The names stmt reads that neither defined nor stmt itself (a
    function's parameters and locals, a comprehension's targets) binds:
    (name, line)."""
    local = set()
    for n in ast.walk(stmt):
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef,
                          ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)):
            local |= stores(n)
    if isinstance(stmt, (ast.For, ast.With, ast.AsyncFor, ast.AsyncWith, ast.Try)):
        local |= stores(stmt)
    return [(name, line) for name, line in loads(stmt) if name not in defined and name not in local]


def close_name(name, candidates):
    m = difflib.get_close_matches(name, sorted(candidates), n=1, cutoff=0.8)
    return m[0] if m else None


def audit():
    findings = []
    seen = set()

    def find(line, kind, detail):
        if (line, kind, detail) not in seen:
            seen.add((line, kind, detail))
            findings.append({"line": line, "kind": kind, "detail": detail})

    base = set(dir(builtins)) | {"file_path", MASK_NAME}
    defined = set(base)
    # Every name the text's code binds anywhere, for "defined later" and
    # "perhaps X".
    parsed = []
    for first, src, line, inline in blocks(TEXT):
        code = src.replace("[MASK]", MASK_NAME)
        try:
            tree = ast.parse(code)
        except SyntaxError as e:
            at = line if inline else (e.lineno or line)
            find(at, "syntax", "the code block does not parse: %s" % e.msg)
            parsed.append((line, None, code, inline))
            continue
        parsed.append((line, tree, code, inline))
    everywhere = set()
    for _, tree, _, _ in parsed:
        if tree is not None:
            everywhere |= stores(tree)

    # Static: names read before the text defines them (in the order the
    # text gives the code), and names it never defines.
    executable = []
    for line, tree, code, inline in parsed:
        if tree is None:
            continue
        ok = MASK_NAME not in code
        for stmt in tree.body:
            masked = any(isinstance(n, ast.Name) and n.id == MASK_NAME for n in ast.walk(stmt))
            for name, at in free_names(stmt, defined):
                at = line if inline else at
                ok = False
                if masked:
                    continue  # the solver completes the masked statement
                if name in everywhere:
                    find(at, "undefined-name", "%s is used before the text defines it" % name)
                    continue
                mod = importable(name)
                hint = close_name(name, (everywhere | defined) - base)
                if mod:
                    find(at, "missing-import", "%s is not imported (it is in %s)" % (name, mod))
                elif hint:
                    find(at, "misspelt-name", "%s is not defined; the text defines %s" % (name, hint))
                else:
                    find(at, "undefined-name", "%s is not defined anywhere in the text" % name)
            defined |= stores(stmt)
        executable.append((line, tree, code, inline, ok))

    # Dynamic: the self-contained code run in order, in one namespace,
    # until a block is not self-contained (a mask, an undefined name, a
    # syntax error) or raises.
    ns = {"__name__": "__question__"}
    from pathlib import Path
    ns["file_path"] = Path(data_path(TEXT, "\n".join(c for _, _, c, _ in parsed)))
    ran = 0
    for line, tree, code, inline, ok in executable:
        if not ok or not RUN:
            break
        try:
            exec(compile(tree, "<question.txt>", "exec"), ns)
            ran += 1
        except ImportError as e:
            # A dependency this environment lacks (ModuleNotFoundError, or
            # a library's own ImportError naming it): not the text's defect.
            find(line, "not-run", "needs a dependency this environment lacks: %s" % (str(e).splitlines() or [""])[0][:200])
            break
        except Exception as e:
            at = line
            if not inline:
                for fr in traceback.extract_tb(e.__traceback__):
                    if fr.filename == "<question.txt>":
                        at = fr.lineno
            find(at, "raises", "the code raises %s: %s" % (type(e).__name__, str(e).splitlines()[0][:200] if str(e) else ""))
            break
    return findings, ran, len(parsed)


def {{FUNCTION}}():
    try:
        findings, ran, total = audit()
    except Exception as e:  # the audit's own failure is reported, not hidden
        findings, ran, total = [{"line": 0, "kind": "audit-error", "detail": repr(e)}], 0, 0
    print(MARKER + json.dumps({"findings": findings, "blocks": total, "blocks_run": ran}))
    return {}
