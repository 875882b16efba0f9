#!/usr/bin/env python3
"""Reference output of LangChain's SemanticChunker for the Go fidelity test.

Reads JSON lines {"id": str, "text": str} and writes, one JSON line per
text in the same order, {"id", "chunks", "sentences", "distances",
"threshold", "breakpoints"}:

- chunks: SemanticChunker(OpenAIEmbeddings(...), buffer_size=1,
  breakpoint_threshold_type="percentile",
  breakpoint_threshold_amount=95).split_text(text), the paper's source-3
  chunker (langchain_experimental.text_splitter);
- sentences, distances, threshold, breakpoints: the same chunker's own
  intermediate steps (_get_single_sentences_list,
  _calculate_sentence_distances, _calculate_breakpoint_threshold and the
  indices whose distance exceeds the threshold), for diagnosing a
  difference; distances and threshold are null for a single sentence.

The embeddings are OpenAIEmbeddings(model=MODEL, base_url=BASE_URL,
api_key="fake", check_embedding_ctx_length=False): texts are sent as
strings (not tiktoken ids, which the project's fake server does not read)
in batches of chunk_size=1000, with the openai client's default
encoding_format "base64" (exact float32 components).

Usage: semantic_reference.py --base-url http://127.0.0.1:PORT/v1 \
           --model MODEL --input docs.jsonl --output ref.jsonl
"""
import argparse
import json
import sys
from importlib import metadata

from langchain_experimental.text_splitter import SemanticChunker
from langchain_openai import OpenAIEmbeddings


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--base-url", required=True)
    ap.add_argument("--model", default="text-embedding-3-large")
    ap.add_argument("--input", required=True)
    ap.add_argument("--output", required=True)
    args = ap.parse_args()

    emb = OpenAIEmbeddings(
        model=args.model,
        base_url=args.base_url,
        api_key="fake",
        check_embedding_ctx_length=False,
        max_retries=0,
    )
    chunker = SemanticChunker(
        emb,
        buffer_size=1,
        breakpoint_threshold_type="percentile",
        breakpoint_threshold_amount=95,
    )
    versions = {p: metadata.version(p) for p in ("langchain-experimental", "langchain-openai", "langchain-community", "numpy", "openai")}
    print("semantic_reference:", json.dumps(versions), file=sys.stderr)

    n = 0
    with open(args.input, encoding="utf-8") as fin, open(args.output, "w", encoding="utf-8") as fout:
        for line in fin:
            doc = json.loads(line)
            text = doc["text"]
            chunks = chunker.split_text(text)
            sentences = chunker._get_single_sentences_list(text)
            rec = {"id": doc["id"], "chunks": chunks, "sentences": sentences,
                   "distances": None, "threshold": None, "breakpoints": []}
            if len(sentences) > 1:
                distances, _ = chunker._calculate_sentence_distances(sentences)
                threshold, arr = chunker._calculate_breakpoint_threshold(distances)
                rec["distances"] = [float(d) for d in distances]
                rec["threshold"] = float(threshold)
                rec["breakpoints"] = [i for i, x in enumerate(arr) if x > threshold]
            fout.write(json.dumps(rec) + "\n")
            n += 1
    print(f"semantic_reference: {n} texts", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
