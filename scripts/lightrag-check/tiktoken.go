package lightragcheck

import (
	"bytes"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	"github.com/tiktoken-go/tokenizer"
)

// O200kURL is the address tiktoken (0.9.0) downloads o200k_base's rank file from; tiktoken's cache file
// is named by the sha1 hex of it.
const O200kURL = "https://openaipublic.blob.core.windows.net/encodings/o200k_base.tiktoken"

// O200kSHA256 is the sha256 tiktoken requires of that file (tiktoken_ext/openai_public.py); a cached
// file with another hash is deleted and downloaded again.
const O200kSHA256 = "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d"

// O200kRanks is the number of mergeable ranks of o200k_base (ids 0..199997; the special tokens 199999
// and 200018 are not in the file).
const O200kRanks = 199998

// TiktokenCacheName returns the name tiktoken gives O200kURL's file in TIKTOKEN_CACHE_DIR.
func TiktokenCacheName() string {
	h := sha1.Sum([]byte(O200kURL))
	return hex.EncodeToString(h[:])
}

// O200kRankFile returns o200k_base's rank file in tiktoken's format (per rank, in rank order: the standard
// base64 of the token's bytes, a space, the rank, "\n"), built from github.com/tiktoken-go/tokenizer's
// embedded vocabulary; it fails unless the bytes have O200kSHA256, i.e. are OpenAI's file exactly.
func O200kRankFile() ([]byte, error) {
	c, err := tokenizer.Get(tokenizer.O200kBase)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	b.Grow(4 << 20)
	for id := uint(0); id < O200kRanks; id++ {
		tok, err := c.Decode([]uint{id})
		if err != nil {
			return nil, fmt.Errorf("o200k_base rank %d: %w", id, err)
		}
		b.WriteString(base64.StdEncoding.EncodeToString([]byte(tok)))
		b.WriteByte(' ')
		b.WriteString(strconv.FormatUint(uint64(id), 10))
		b.WriteByte('\n')
	}
	if _, err := c.Decode([]uint{O200kRanks}); err == nil {
		return nil, fmt.Errorf("o200k_base: the vocabulary has more than %d ranks", O200kRanks)
	}
	sum := sha256.Sum256(b.Bytes())
	if got := hex.EncodeToString(sum[:]); got != O200kSHA256 {
		return nil, fmt.Errorf("o200k_base rank file: sha256 %s, tiktoken expects %s", got, O200kSHA256)
	}
	return b.Bytes(), nil
}

// WriteTiktokenCache writes o200k_base's rank file into dir under TiktokenCacheName (atomically) unless a
// file with the right hash is already there, and returns its path. Set TIKTOKEN_CACHE_DIR=dir (drive.py
// --tiktoken-cache dir) and tiktoken loads o200k_base without the network.
func WriteTiktokenCache(dir string) (string, error) {
	path := filepath.Join(dir, TiktokenCacheName())
	if old, err := os.ReadFile(path); err == nil {
		if sum := sha256.Sum256(old); hex.EncodeToString(sum[:]) == O200kSHA256 {
			return path, nil
		}
	}
	data, err := O200kRankFile()
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	tmp, err := os.CreateTemp(dir, ".o200k-*")
	if err != nil {
		return "", err
	}
	_, err = tmp.Write(data)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		os.Remove(tmp.Name())
		return "", err
	}
	return path, nil
}
