# Reads one module-level string of MatTools' QA prompt file (stdin: JSON
# {"source", "name"}) with the ast module: the file is parsed, never
# imported or run. Prints {"text": str} or {"text": null, "error": str}.
import ast
import json
import sys

req = json.load(sys.stdin)
found = []
for node in ast.parse(req["source"]).body:
    if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name) and node.targets[0].id == req["name"]:
        found.append(node)
if len(found) != 1:
    print(json.dumps({"text": None, "error": "%d module-level assignments to %s, want 1" % (len(found), req["name"])}))
    sys.exit(0)
try:
    text = ast.literal_eval(found[0].value)
except ValueError as e:
    print(json.dumps({"text": None, "error": "%s is not a string literal: %s" % (req["name"], e)}))
    sys.exit(0)
if not isinstance(text, str):
    print(json.dumps({"text": None, "error": "%s is a %s, not a str" % (req["name"], type(text).__name__)}))
    sys.exit(0)
print(json.dumps({"text": text}))
