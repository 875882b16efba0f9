#!/usr/bin/env python3
"""Run the real LightRAG (lightrag-hku 1.3.3) against an OpenAI-compatible server and dump what it built.

The reference side of the Go re-implementation (runner/graphrag; docs/graphrag.md): both
systems are driven by the same fake server (llm/llmtest) and their outputs are compared.

What it does, in order:
  1. Makes sure PYTHONHASHSEED is --hash-seed (re-executes itself if not): LightRAG processes pending documents
     in the iteration order of a Python set of doc ids, so a random hash seed makes the document order (and
     with it the tie-breaks of the graph merge and the LLM request order) differ from run to run.
  2. Clears LightRAG's environment overrides (CHUNK_SIZE, TOP_K, MAX_ASYNC, ...; listed in the output) and
     changes into the fresh working dir before importing LightRAG, so that neither the environment nor a
     stray .env (lightrag calls load_dotenv(".env") on import) changes a default.
  3. Points tiktoken at --tiktoken-cache (TIKTOKEN_CACHE_DIR), which must hold o200k_base's rank file
     (write it with `go run ./scripts/lightrag-check/o200k -cache DIR`), or with --char-tokenizer replaces
     the encoder by one token per character (for hand-checkable windows; not LightRAG's behaviour).
  4. Neutralises pipmaster: lightrag/kg/networkx_impl.py runs pm.install("graspologic") when graspologic is
     missing; graspologic is never used by 1.3.3, so it is reported as installed, and any other install
     attempt raises instead of calling pip.
  5. Builds LightRAG with every default except the model functions: llm_model_func calls
     lightrag.llm.openai.openai_complete_if_cache(--llm-model, base_url=--base-url, api_key=--api-key), passing
     on only what LightRAG passes (no temperature or any other sampling parameter; keyword_extraction is
     dropped, as in LightRAG's README example, so no response_format is sent); embedding_func is
     EmbeddingFunc(--embedding-dim, 8192, openai_embed(model=--embedding-model, base_url, api_key)).
  6. Inserts every regular file under --corpus (optionally only those ending in one of --suffix), in sorted
     order of their paths relative to --corpus (POSIX separators), as one document per file, with
     file_paths = those relative paths; one ainsert call with all of them.
  7. For each question of --questions and each mode of --modes: clears the query-mode caches
     (aclear_cache(["naive","local","global","hybrid","mix"])), calls aquery(QueryParam(mode=m,
     only_need_context=True)), clears them again, and calls aquery(QueryParam(mode=m)) for the answer; every
     call therefore reaches the server (the extraction cache, mode "default", is left as LightRAG has it).
  8. Writes --out (JSON, schema in README.md).

--questions is a JSON file: a list of strings, or a list of objects with a "question" field (and an optional
"id").
"""
from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import time

# LightRAG 1.3.3's environment overrides (os.getenv in lightrag.py, base.py, operate.py, utils.py and the
# default storages); cleared so that every setting is the code default.
LIGHTRAG_ENV = [
    "CHUNK_SIZE", "CHUNK_OVERLAP_SIZE", "COSINE_THRESHOLD", "EMBEDDING_BATCH_NUM", "EMBEDDING_FUNC_MAX_ASYNC",
    "FORCE_LLM_SUMMARY_ON_MERGE", "MAX_ASYNC", "MAX_GRAPH_NODES", "MAX_PARALLEL_INSERT", "MAX_TOKENS",
    "MAX_TOKEN_ENTITY_DESC", "MAX_TOKEN_RELATION_DESC", "MAX_TOKEN_SUMMARY", "MAX_TOKEN_TEXT_CHUNK",
    "SUMMARY_LANGUAGE", "TOP_K", "OPENAI_API_BASE", "OPENAI_API_KEY", "OPENAI_BASE_URL", "VERBOSE",
    "DATA_GYM_CACHE_DIR",
]
QUERY_MODES = ["naive", "local", "global", "hybrid", "mix"]


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--base-url", required=True, help="OpenAI-compatible base URL, e.g. http://127.0.0.1:PORT/v1")
    p.add_argument("--api-key", default="sk-lightrag-check", help="API key sent to the server (dummy)")
    p.add_argument("--llm-model", required=True, help="chat model name sent to the server")
    p.add_argument("--embedding-model", required=True, help="embedding model name sent to the server")
    p.add_argument("--embedding-dim", type=int, required=True, help="dimension of the server's embeddings")
    p.add_argument("--corpus", required=True, help="directory of text files, one document each")
    p.add_argument("--suffix", action="append", default=[], help="only files ending so (repeatable)")
    p.add_argument("--questions", required=True, help="JSON list of questions (strings or {question, id})")
    p.add_argument("--modes", default="naive,local,global,hybrid,mix", help="comma-separated query modes")
    p.add_argument("--working-dir", required=True, help="LightRAG working dir; must be absent or empty")
    p.add_argument("--out", required=True, help="JSON file to write")
    p.add_argument("--tiktoken-cache", help="TIKTOKEN_CACHE_DIR holding o200k_base's rank file")
    p.add_argument("--char-tokenizer", action="store_true", help="one token per character instead of o200k_base")
    p.add_argument("--hash-seed", default="0", help="PYTHONHASHSEED to run under ('random' to leave it random)")
    p.add_argument("--no-answers", action="store_true", help="only the only_need_context calls")
    p.add_argument("--verbose", action="store_true", help="LightRAG's INFO log on stderr")
    a = p.parse_args(argv)
    a.modes = [m.strip() for m in a.modes.split(",") if m.strip()]
    for m in a.modes:
        if m not in QUERY_MODES:
            p.error(f"unknown mode {m!r} (want some of {','.join(QUERY_MODES)})")
    if not a.char_tokenizer and not a.tiktoken_cache:
        p.error("give --tiktoken-cache DIR (o200k_base's rank file) or --char-tokenizer")
    return a


def ensure_hash_seed(seed):
    if seed == "random" or os.environ.get("PYTHONHASHSEED") == seed:
        return
    env = dict(os.environ, PYTHONHASHSEED=seed)
    os.execve(sys.executable, [sys.executable] + sys.argv, env)


def neutralise_pipmaster():
    """Make lightrag's import-time pm.install calls harmless: graspologic (imported by nobody) counts as
    installed; any other missing package is an error rather than a pip run."""
    import pipmaster

    real_is_installed = pipmaster.is_installed

    def is_installed(package):
        if package == "graspologic":
            return True
        return real_is_installed(package)

    def refuse(*args, **kwargs):
        raise RuntimeError(f"drive.py: lightrag tried to install {args or kwargs} at run time; "
                           "add it to scripts/lightrag-check/requirements.txt")

    pipmaster.is_installed = is_installed
    for name in ("install", "install_version", "install_if_missing", "install_or_update", "install_multiple",
                 "install_or_update_multiple", "install_requirements", "install_edit"):
        if hasattr(pipmaster, name):
            setattr(pipmaster, name, refuse)


class CharEncoder:
    """One token per Unicode code point (token id = ord)."""

    name = "char"

    def encode(self, text, *args, **kwargs):
        return [ord(c) for c in text]

    def decode(self, tokens, *args, **kwargs):
        return "".join(chr(t) for t in tokens)


def corpus_files(root, suffixes):
    out = []
    for dirpath, dirnames, filenames in os.walk(root):
        for f in filenames:
            full = os.path.join(dirpath, f)
            if not os.path.isfile(full):
                continue
            rel = os.path.relpath(full, root).replace(os.sep, "/")
            if suffixes and not any(rel.endswith(s) for s in suffixes):
                continue
            out.append(rel)
    out.sort()
    return out


def load_questions(path):
    with open(path, encoding="utf-8") as f:
        data = json.load(f)
    qs = []
    for i, q in enumerate(data):
        if isinstance(q, str):
            qs.append({"id": str(i), "question": q})
        else:
            qs.append({"id": str(q.get("id", i)), "question": q["question"]})
    return qs


def read_json(path):
    if not os.path.exists(path):
        return None
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def vector_rows(working_dir, namespace):
    """The rows of a NanoVectorDB file without their vectors: id, content and meta fields."""
    data = read_json(os.path.join(working_dir, f"vdb_{namespace}.json")) or {}
    rows = []
    for r in data.get("data", []):
        row = {"id": r["__id__"]}
        for k, v in r.items():
            if k in ("__id__", "__vector__", "__created_at__"):
                continue
            row[k] = v
        rows.append(row)
    rows.sort(key=lambda r: r["id"])
    return {"embedding_dim": data.get("embedding_dim"), "rows": rows}


def graph_dump(working_dir):
    import networkx as nx

    path = os.path.join(working_dir, "graph_chunk_entity_relation.graphml")
    g = nx.read_graphml(path) if os.path.exists(path) else nx.Graph()
    entities = []
    for name, d in g.nodes(data=True):
        entities.append({
            "name": name,
            "entity_type": d.get("entity_type"),
            "description": d.get("description"),
            "source_id": d.get("source_id"),
            "file_path": d.get("file_path"),
            "entity_id": d.get("entity_id"),
            "degree": g.degree(name),
        })
    entities.sort(key=lambda e: e["name"])
    relations = []
    for u, v, d in g.edges(data=True):
        src, tgt = (u, v) if u <= v else (v, u)
        relations.append({
            "src": src,
            "tgt": tgt,
            "description": d.get("description"),
            "keywords": d.get("keywords"),
            "weight": d.get("weight"),
            "source_id": d.get("source_id"),
            "file_path": d.get("file_path"),
        })
    relations.sort(key=lambda r: (r["src"], r["tgt"]))
    return entities, relations


async def run(a, corpus, questions, out_path, working_dir):
    from lightrag import LightRAG, QueryParam
    from lightrag.kg.shared_storage import initialize_pipeline_status
    from lightrag.llm.openai import openai_complete_if_cache, openai_embed
    from lightrag.utils import EmbeddingFunc
    import lightrag as lightrag_pkg

    recorder = {"calls": None, "embeds": None, "index_calls": 0, "index_embeds": 0}

    async def llm_model_func(prompt, system_prompt=None, history_messages=None, keyword_extraction=False,
                             **kwargs):
        # kwargs holds what LightRAG passes on (hashing_kv, max_tokens for summaries, stream for answers);
        # openai_complete_if_cache drops hashing_kv and forwards the rest to chat.completions.create.
        if recorder["calls"] is not None:
            recorder["calls"].append({
                "system_prompt": system_prompt,
                "history_messages": history_messages or [],
                "prompt": prompt,
                "keyword_extraction": keyword_extraction,
                "kwargs": {k: v for k, v in kwargs.items() if k != "hashing_kv"},
            })
        else:
            recorder["index_calls"] += 1
        return await openai_complete_if_cache(
            a.llm_model, prompt, system_prompt=system_prompt, history_messages=history_messages or [],
            base_url=a.base_url, api_key=a.api_key, **kwargs)

    async def embed(texts):
        # One call is one embeddings request (the vector stores batch by embedding_batch_num).
        if recorder["embeds"] is not None:
            recorder["embeds"].append(list(texts))
        else:
            recorder["index_embeds"] += 1
        return await openai_embed(texts, model=a.embedding_model, base_url=a.base_url, api_key=a.api_key)

    rag = LightRAG(
        working_dir=working_dir,
        llm_model_func=llm_model_func,
        embedding_func=EmbeddingFunc(embedding_dim=a.embedding_dim, max_token_size=8192, func=embed),
    )
    await rag.initialize_storages()
    await initialize_pipeline_status()

    files = corpus_files(corpus, a.suffix)
    texts = []
    for rel in files:
        with open(os.path.join(corpus, rel), encoding="utf-8") as f:
            texts.append(f.read())
    t0 = time.monotonic()
    await rag.ainsert(texts, file_paths=files)
    index_seconds = time.monotonic() - t0

    results = []
    cache_modes = ["naive", "local", "global", "hybrid", "mix"]
    t1 = time.monotonic()
    for q in questions:
        for mode in a.modes:
            row = {"question_id": q["id"], "question": q["question"], "mode": mode}
            await rag.aclear_cache(modes=cache_modes)
            recorder["calls"], recorder["embeds"] = [], []
            s = time.monotonic()
            row["context"] = await rag.aquery(q["question"], param=QueryParam(mode=mode, only_need_context=True))
            row["context_seconds"] = round(time.monotonic() - s, 3)
            row["context_llm_calls"] = recorder["calls"]
            row["context_embedding_calls"] = recorder["embeds"]
            if not a.no_answers:
                await rag.aclear_cache(modes=cache_modes)
                recorder["calls"], recorder["embeds"] = [], []
                s = time.monotonic()
                row["answer"] = await rag.aquery(q["question"], param=QueryParam(mode=mode))
                row["answer_seconds"] = round(time.monotonic() - s, 3)
                row["answer_llm_calls"] = recorder["calls"]
                row["answer_embedding_calls"] = recorder["embeds"]
            recorder["calls"], recorder["embeds"] = None, None
            results.append(row)
    query_seconds = time.monotonic() - t1
    await rag.finalize_storages()

    text_chunks = read_json(os.path.join(working_dir, "kv_store_text_chunks.json")) or {}
    chunks = [{
        "id": cid,
        "content": c.get("content"),
        "tokens": c.get("tokens"),
        "chunk_order_index": c.get("chunk_order_index"),
        "full_doc_id": c.get("full_doc_id"),
        "file_path": c.get("file_path"),
    } for cid, c in text_chunks.items()]
    chunks.sort(key=lambda c: (c["file_path"] or "", c["chunk_order_index"], c["id"]))
    doc_status = read_json(os.path.join(working_dir, "kv_store_doc_status.json")) or {}
    documents = [{
        "id": did,
        "file_path": d.get("file_path"),
        "status": d.get("status"),
        "content_length": d.get("content_length"),
        "chunks_count": d.get("chunks_count"),
        "error": d.get("error"),
    } for did, d in doc_status.items()]
    documents.sort(key=lambda d: (d["file_path"] or "", d["id"]))
    entities, relations = graph_dump(working_dir)

    out = {
        "lightrag_version": getattr(lightrag_pkg, "__version__", None),
        "settings": {
            "base_url": a.base_url,
            "llm_model": a.llm_model,
            "embedding_model": a.embedding_model,
            "embedding_dim": a.embedding_dim,
            "tokenizer": "char" if a.char_tokenizer else "o200k_base",
            "python_hash_seed": os.environ.get("PYTHONHASHSEED"),
            "corpus": corpus,
            "corpus_files": files,
            "insertion": "one document per file, sorted relative POSIX paths, file_paths = those paths, one ainsert",
            "modes": a.modes,
            "query_cache": "aclear_cache(naive, local, global, hybrid, mix) before every aquery",
            "env_cleared": LIGHTRAG_ENV,
        },
        "documents": documents,
        "chunks": chunks,
        "entities": entities,
        "relations": relations,
        "vectors": {
            "entities": vector_rows(working_dir, "entities"),
            "relationships": vector_rows(working_dir, "relationships"),
            "chunks": vector_rows(working_dir, "chunks"),
        },
        "queries": results,
        "stats": {
            "documents": len(files),
            "index_llm_calls": recorder["index_calls"],
            "index_embedding_calls": recorder["index_embeds"],
            "index_seconds": round(index_seconds, 3),
            "query_seconds": round(query_seconds, 3),
        },
    }
    tmp = out_path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(out, f, ensure_ascii=False, indent=1)
        f.write("\n")
    os.replace(tmp, out_path)
    return out


def main(argv):
    a = parse_args(argv)
    ensure_hash_seed(a.hash_seed)
    corpus = os.path.abspath(a.corpus)
    questions = load_questions(a.questions)
    out_path = os.path.abspath(a.out)
    working_dir = os.path.abspath(a.working_dir)
    if os.path.isdir(working_dir) and os.listdir(working_dir):
        sys.exit(f"drive.py: working dir {working_dir} is not empty (LightRAG would reuse its state)")
    os.makedirs(working_dir, exist_ok=True)

    for k in LIGHTRAG_ENV:
        os.environ.pop(k, None)
    if a.tiktoken_cache:
        os.environ["TIKTOKEN_CACHE_DIR"] = os.path.abspath(a.tiktoken_cache)
    os.chdir(working_dir)  # lightrag's load_dotenv(".env") reads the (empty) working dir

    import logging
    neutralise_pipmaster()
    import lightrag.utils as lru

    lru.logger.setLevel(logging.INFO if a.verbose else logging.WARNING)
    if a.char_tokenizer:
        lru.ENCODER = CharEncoder()
    else:
        # Load o200k_base now, so that a missing rank file fails here (tiktoken would try to download it).
        import tiktoken.load

        def no_download(blobpath):
            raise RuntimeError(f"drive.py: tiktoken tried to download {blobpath}; the rank file is not in "
                               f"TIKTOKEN_CACHE_DIR={os.environ['TIKTOKEN_CACHE_DIR']} (go run "
                               "./scripts/lightrag-check/o200k -cache DIR)")

        tiktoken.load.read_file = no_download
        lru.encode_string_by_tiktoken("", model_name="gpt-4o-mini")
        if lru.ENCODER.name != "o200k_base":
            sys.exit(f"drive.py: tokenizer is {lru.ENCODER.name}, not o200k_base")

    out = asyncio.run(run(a, corpus, questions, out_path, working_dir))
    s = out["stats"]
    print(f"drive.py: {s['documents']} documents, {len(out['chunks'])} chunks, {len(out['entities'])} entities, "
          f"{len(out['relations'])} relations, {s['index_llm_calls']} indexing LLM calls in "
          f"{s['index_seconds']:.1f} s, {len(out['queries'])} queries in {s['query_seconds']:.1f} s -> {out_path}",
          file=sys.stderr)


if __name__ == "__main__":
    main(sys.argv[1:])
