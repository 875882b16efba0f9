"""Step A of mattools-v1 and mattools-v1-strict: run the generated function.

Runs inside a fresh sandbox as `python3 -I /sbx/run.py`, with /sbx/function.py
(the generated code) and /sbx/name.txt (the function name, verbatim) beside it.

mattools-v1 runs `function + "\\n" + f"print({name}())"` as /app/main.py; this
harness does the same in two steps so that one execution serves both
protocols: it executes the function code as __main__, evaluates `{name}()`
and prints the value with the module's own `print`, so that stdout is what the
one-file program prints. For mattools-v1-strict it also writes repr(value) to
the side channel (fd 3), so that debug prints on stdout do not matter.

Side channel (fd 3, one JSON object): {"status": ..., "type": exception type,
"message": ..., "where": "compile"|"module"|"call-site"|"function",
"repr": repr of the value (status "ok")}. Status is one of ok, syntax-error,
missing-function, exception, exit.
"""
import builtins
import json
import os
import sys
import traceback

side_fd = os.dup(3)  # non-inheritable: the code's subprocesses do not get it
os.close(3)


def report(obj):
    data = json.dumps(obj).encode()
    while data:
        n = os.write(side_fd, data)
        data = data[n:]
    os.close(side_fd)


code = open("/sbx/function.py", encoding="utf-8").read()
name = open("/sbx/name.txt", encoding="utf-8").read()
program = code + "\n" + f"print({name}())"
try:
    with open("/app/main.py", "w", encoding="utf-8") as f:  # where MatTools' container had it
        f.write(program)
except OSError:
    pass

status = {"status": "ok"}
exit_code = 0
try:
    compile(program, "/app/main.py", "exec")
    module_code = compile(code, "/app/main.py", "exec")
    call_code = compile(f"{name}()", "<main-call>", "eval")
except SyntaxError as e:
    traceback.print_exc()
    status = {"status": "syntax-error", "type": type(e).__name__, "message": str(e), "where": "compile"}
    exit_code = 1
except (ValueError, TypeError) as e:  # e.g. a null byte in the source
    traceback.print_exc()
    status = {"status": "syntax-error", "type": type(e).__name__, "message": str(e), "where": "compile"}
    exit_code = 1

if exit_code == 0:
    ns = {"__name__": "__main__", "__file__": "/app/main.py", "__builtins__": builtins}
    where = "module"
    try:
        exec(module_code, ns)
        where = "call-site"
        value = eval(call_code, ns)
        where = "print"
        ns["__sbx_value__"] = value
        exec(compile("print(__sbx_value__)", "<main-print>", "exec"), ns)
        try:
            status["repr"] = repr(value)
        except BaseException as e:  # noqa: BLE001 - a broken __repr__ is the code's own outcome
            status = {"status": "exception", "type": type(e).__name__, "message": str(e)[:2000], "where": "repr"}
    except SystemExit as e:
        status = {"status": "exit", "type": "SystemExit", "message": str(e.code), "where": where}
        exit_code = e.code if isinstance(e.code, int) else 1
    except BaseException as e:  # noqa: BLE001
        traceback.print_exc()
        tb = e.__traceback__
        while tb is not None and tb.tb_next is not None:
            tb = tb.tb_next
        innermost = tb.tb_frame.f_code.co_filename if tb is not None else ""
        if where == "call-site" and innermost != "<main-call>":
            where = "function"
        st = "exception"
        if where == "call-site" and isinstance(e, NameError):
            st = "missing-function"
        status = {"status": st, "type": type(e).__name__, "message": str(e)[:2000], "where": where}
        exit_code = 1

try:
    sys.stdout.flush()
except BaseException:  # noqa: BLE001
    pass
report(status)
sys.exit(exit_code)
