// Package graphrag re-implements LightRAG 1.3.3 (github.com/HKUDS/LightRAG,
// PyPI lightrag-hku 1.3.3, MIT), the graph-based RAG system of the MatTools
// "GraphRAG (LightRAG)" baseline, as a library: indexing a corpus into an
// entity–relation graph with three vector collections, persisting it, and
// answering a question over it with LightRAG's prompts, orderings, budgets
// and context layout. The specification is docs/graphrag.md
// (§ numbers below); "file:line" references are to the 1.3.3 wheel. The prompt texts are read at run time from LightRAG's own files
// (LoadPrompts; the runner takes the directory from LIGHTRAG_DATA).
//
// # Pipeline
//
// Build (§2): documents → token windows of 1200 tokens every 1100
// (o200k_base; chunk id "chunk-"+md5) → per chunk one extraction call (one
// user message, no system prompt) and one gleaning call (user, assistant,
// user) → the tolerant record parser → per document, entities then
// relations merged into the graph (sorted-set <SEP> joins, summed weights,
// majority type, UNKNOWN endpoints, an LLM summary with max_tokens 500 once
// a description has 6 fragments) → embeddings of the chunk, entity and
// relation texts (batches of 32) into cosine vector stores. At most
// MaxAsync (4) LLM calls run at once; documents are merged in input order
// and the chunks of a document in order, so the result does not depend on
// which call finishes first. With an index directory, every finished
// chunk and summary is journaled (extract.journal.jsonl, fsynced), a rerun
// calls only for what is missing, and a complete index is reused with no
// call. EstimateIndex predicts the calls and prompt tokens for a dry run.
//
// Query (§3): keywords (one user message, JSON from the first "{" to the
// last "}") → local (entity vectors, low-level keywords), global
// (relation vectors, high-level keywords), hybrid (both, merged as
// LightRAG's process_combine_contexts), naive (chunk vectors, the question)
// or mix (hybrid plus up to 10 chunk vectors) → the context string byte for
// byte (Python csv quote-all with backslash escaping, the 4-space
// indentation of LightRAG's f-string, fenced tables) → the answer call
// (system = rag_response / naive_rag_response / mix_rag_response with the
// context, response type "Multiple Paragraphs", empty history; user = the
// question) and LightRAG's answer post-processing. Default mode "global",
// top_k 60, cosine threshold 0.2, budgets of 4000 tokens counted on the
// single field (entity description, relation description, chunk content).
//
// # Model calls
//
// LLM and Embedder are satisfied by *llm.Client. This package sets no
// sampling parameter: LightRAG 1.3.x sends none (§4), so the provider's
// default temperature applies; callers must leave llm.Params.Temperature
// (and TopP, Seed) nil to match it. The only per-call option sent is
// llm.CallOptions.MaxTokens = 500 on summaries. Every answer gets what
// LightRAG's OpenAI binding (llm/openai.py) does to it: an empty answer is
// asked again (3 attempts in all), and \uXXXX written in an answer is
// decoded (IndexOptions/QueryParam.KeepUnicodeEscapes turns that off).
// LightRAG's LLM response cache is not kept: every Query calls the model,
// as the benchmark, which clears the cache between rounds, needs; within a
// Build, a chunk text seen twice is extracted once and journaled answers
// are reused, which is what the extraction cache gives LightRAG.
//
// # created_at
//
// LightRAG 1.3.3 stores no time on nodes or edges. In the context tables,
// entity rows say "UNKNOWN" on the local path and "Unknown" on the global
// path; relation rows say "UNKNOWN" on the local path and, on the global
// path, the relation vector row's upsert time (time.time()) formatted
// "%Y-%m-%d %H:%M:%S" in the process's local time; mix's vector chunks
// carry "[Created at: …]" the same way. Here the upsert time comes from
// IndexOptions.Clock and is formatted in QueryParam.Location (time.Local
// when nil), so tests and the comparison with LightRAG can fix both (run
// LightRAG with the same clock and TZ).
//
// # Index directory
//
// manifest.json (format version, LightRAG version "1.3.3", chat model,
// embedding model, endpoint and dimensions, tokenizer, corpus id,
// documents fingerprint, settings, SHA-256 of each prompt file, counts,
// build time, complete flag) and DuckDB-readable Parquet files: entities,
// relations (in NetworkX edges() order), chunks, and one file per vector
// collection (id, created_at, LightRAG's meta fields, the normalised
// vector as LIST<FLOAT>); plus the journal. Every file is written through a
// temporary file and a rename, the manifest last. Open refuses an index of
// another chat model, embedding model or corpus, naming both values.
//
// # Where this differs from LightRAG 1.3.3
//
// Simplified, or not reproducible exactly:
//
//   - Set-joined fields (source_id and file_path of entities and relations)
//     are sorted; LightRAG joins a Python set, whose order depends on the
//     string hash seed. This shows in the file_path column of the context
//     tables and orders chunks cited by the same entity (local, equal
//     relation counts) or relation (global).
//   - Documents are processed in input order and merged one after another;
//     LightRAG takes them in doc-status (set) order, two at a time, and
//     merges whichever finishes first. The merge order decides the sorted
//     set joins (a stored description counts as one item), summary
//     triggers and the adjacency order. Given the documents in LightRAG's
//     merge order, the graph, the vector rows and every request are the
//     same (scripts/lightrag-check/compare_test.go).
//   - A document's chunk vectors are upserted when it is merged; LightRAG
//     upserts them when it starts the document, so within its batch of two
//     the chunk rows follow whichever document's chunk embeddings came back
//     first. Only ties of equal chunk scores depend on that row order.
//   - A chunk text repeated in another document is extracted once;
//     LightRAG extracts it once per document unless its cache already holds
//     the answer (two documents of one batch both miss it).
//   - A failed call (after the client's retries) stops Build and is
//     returned; LightRAG marks the document failed, goes on with the
//     others, and retries it at the next insert. Mix returns the error of
//     either part; LightRAG logs it and goes on without that part.
//   - A Build's graph has NetworkX's in-memory adjacency order (the order in
//     which edges were added); an opened graph has the order a GraphML
//     reload gives, as LightRAG queried in a new process has. Only ties of
//     (edge degree, weight) among local-mode relations depend on it.
//   - Vector scores are computed in float64 against vectors normalised in
//     float64 and stored as float32 (as NanoVectorDB does); numpy's BLAS
//     summation order differs in the last bits, NanoVectorDB re-normalises
//     the float32 matrix when it loads it, and equal scores are ordered
//     later row first (numpy's argsort on small arrays; its SIMD sort for
//     larger ones is unstable).
//   - html.unescape is Go's html.UnescapeString (the same HTML5 entity
//     table; rare malformed references may decode differently).
//   - o200k_base comes from github.com/tiktoken-go/tokenizer v0.10.0 (ranks
//     embedded, invalid UTF-8 replaced as tiktoken's errors="replace").
//     tiktoken refuses text containing a special token such as
//     "<|endoftext|>"; Build refuses such a document (LightRAG marks it
//     failed), and such text in an LLM description is counted as plain
//     text where LightRAG would raise.
//   - safe_unicode_decode: a \uD8xx\uDCxx pair becomes its character (Python
//     keeps two lone surrogates, which JSON transport joins the same way);
//     a lone surrogate becomes U+FFFD.
//   - Keyword answers whose lists hold non-strings, or whose values are
//     not lists, count as empty lists (LightRAG raises on non-strings,
//     skips the mode fallback on null, and joins a string character by
//     character).
//   - Every chat request carries "stream": false (go-openai v1.43.0 writes
//     the field always); LightRAG sends it with KG and mix answers only,
//     not with naive answers, extraction, gleaning, summaries or keywords.
//     false is the API's default, so the requests mean the same.
//   - The retries of an empty answer do not wait (LightRAG's tenacity waits
//     4–10 s); the client's own retries handle HTTP failures.
//   - Not implemented: conversation history (history_turns), streaming,
//     bypass mode, only_need_prompt, QueryParam.ids (ignored by 1.3.3's
//     vector store anyway), custom model functions per query,
//     split_by_character chunking, addon_params example_number, the
//     embedding-similarity cache, the LLM query cache (see above), the
//     keyword_extraction flag (no response_format is sent, as in LightRAG:
//     a custom model function drops the flag, and 1.3.3's own gpt_4o*
//     functions take it as a named parameter and then pop it from kwargs,
//     so they never send one either; docs/graphrag.md §3.2),
//     doc-status bookkeeping, incremental insertion into an existing index
//     (Build indexes one document set per directory), deletion, and the CJK
//     punctuation rules beyond normalize_extracted_info (which is
//     reproduced).
//
// This package imports llm (the client types), internal/pystr
// (Python's str.format, strip and repr) and results (atomic file writes).
package graphrag
