"""Reference chunking of MatTools retrieval sources 1 and 2 with LangChain.

Runs the calls of the paper's src/construct_doc.ipynb (cells "method1" and
"method2") on a MatTools data root and writes one JSON object per chunk:

    {"source": <prefix value>, "metadata": {...LangChain metadata...}, "text": <page_content>}

The only change to the notebook is the order of the input files: the
notebook takes them in file-system order (Path.glob / os.walk), which is not
reproducible, so this script sorts the loaded documents by their file path
(stable, so the documents of one file keep their order). It never embeds
anything and needs no network.

Usage (in the venv of requirements.txt):
    python chunk_reference.py --root "$MATTOOLS_DATA" --source code --out code.jsonl
    python chunk_reference.py --root "$MATTOOLS_DATA" --source docs --out docs.jsonl
"""

import argparse
import json
import os
from pathlib import Path


def build_code():
    from langchain_community.document_loaders.generic import GenericLoader
    from langchain_community.document_loaders.parsers import LanguageParser
    from langchain_text_splitters import Language, RecursiveCharacterTextSplitter
    import re

    base_path = "tool_source_code/pymatgen/src/pymatgen/"
    loader = GenericLoader.from_filesystem(
        base_path, glob="**/[!.]*", suffixes=[".py"], parser=LanguageParser(language="python")
    )
    docs = loader.load()
    docs.sort(key=lambda d: d.metadata["source"])  # file order; stable within a file
    pattern = r"^\s*(def|class)\s+([a-zA-Z_][a-zA-Z0-9_]*)"
    for doc in docs:
        if doc.metadata.get("content_type") == "functions_classes":
            m = re.search(pattern, doc.page_content, re.MULTILINE)
            if m:
                doc.metadata["first_function_or_class"] = f"{m.group(1)} {m.group(2)}"
        doc.metadata["source"] = "pymatgen" + doc.metadata["source"].split("pymatgen", 2)[-1]
    splitter = RecursiveCharacterTextSplitter.from_language(
        language=Language.PYTHON, chunk_size=1000, chunk_overlap=50
    )
    chunks = splitter.split_documents(docs)
    files = len({d.metadata["source"] for d in docs})
    return files, len(docs), chunks, lambda c: c.metadata["source"]


def build_docs():
    from langchain_community.document_loaders import BSHTMLLoader, TextLoader
    from langchain_core.documents import Document
    from langchain_text_splitters import RecursiveCharacterTextSplitter

    html_files = []
    for root, _, files in os.walk("tool_source_code/pymatgen/docs"):
        if "_modules" in root.split(os.sep):
            continue
        for file in files:
            if (file.startswith("pymatgen") and file.endswith(".html")) or file == "modules.html":
                html_files.append(os.path.join(root, file))
    html_files.sort()
    documents = [d for f in html_files for d in BSHTMLLoader(f).load()]
    txt = []
    for file in sorted(Path("./defects_doc/").glob("*.txt")):
        file_name = file.stem
        if file_name == "api_overview":
            title = "api overview — 2024.7.19 documentation"
        else:
            title = file_name.replace("_", ".") + " package — 2024.7.19 documentation"
        for doc in TextLoader(str(file)).load():
            txt.append(Document(page_content=doc.page_content,
                                metadata={"source": str(file).split("defects_doc/")[1], "title": title}))
    documents.extend(txt)
    splitter = RecursiveCharacterTextSplitter(chunk_size=1000, chunk_overlap=50)
    chunks = splitter.split_documents(documents)
    return len(html_files) + len(txt), len(documents), chunks, lambda c: c.metadata["title"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--root", required=True, help="MatTools data root")
    ap.add_argument("--source", choices=["code", "docs"], required=True)
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    out = os.path.abspath(a.out)
    os.chdir(os.path.join(a.root, "src"))  # the notebook runs in src/
    files, ndocs, chunks, prefix = build_code() if a.source == "code" else build_docs()
    with open(out, "w", encoding="utf-8") as f:
        for c in chunks:
            f.write(json.dumps({"source": prefix(c), "metadata": c.metadata, "text": c.page_content},
                               ensure_ascii=False) + "\n")
    print(f"{a.source}: {files} files, {ndocs} documents, {len(chunks)} chunks -> {out}")


if __name__ == "__main__":
    main()
