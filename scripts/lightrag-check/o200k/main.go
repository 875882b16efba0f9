// Command o200k writes tiktoken's o200k_base rank file from the vocabulary embedded in
// github.com/tiktoken-go/tokenizer, so that Python's tiktoken (and through it LightRAG) loads o200k_base
// without downloading it from openaipublic.blob.core.windows.net.
//
// The file has tiktoken's format (per rank, in rank order: the standard base64 of the token's bytes, a
// space, the rank, "\n"). tiktoken looks for it in $TIKTOKEN_CACHE_DIR under the sha1 hex of the download
// URL and accepts it only with the sha256 it expects; the program checks that hash and fails otherwise, so
// what it writes is byte-identical to OpenAI's file.
//
// Usage:
//
//	go run ./scripts/lightrag-check/o200k -cache DIR   # writes DIR/fb374d419588a4632f3f557e76b4b70aebbca790
//	go run ./scripts/lightrag-check/o200k -o FILE      # writes FILE
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"

	lightragcheck "github.com/mattools-leaderboard/leaderboard/scripts/lightrag-check"
)

func main() {
	cache := flag.String("cache", "", "tiktoken cache dir to write the file into (named by the sha1 of the URL)")
	out := flag.String("o", "", "file to write (instead of -cache)")
	flag.Parse()
	if (*cache == "") == (*out == "") {
		fmt.Fprintln(os.Stderr, "o200k: give exactly one of -cache DIR or -o FILE")
		os.Exit(2)
	}
	path, err := write(*cache, *out)
	if err != nil {
		fmt.Fprintln(os.Stderr, "o200k:", err)
		os.Exit(1)
	}
	fmt.Println(path)
}

func write(cache, out string) (string, error) {
	if cache != "" {
		return lightragcheck.WriteTiktokenCache(cache)
	}
	data, err := lightragcheck.O200kRankFile()
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		return "", err
	}
	return out, os.WriteFile(out, data, 0o644)
}
