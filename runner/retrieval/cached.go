package retrieval

import (
	"os"
	"path/filepath"

	"github.com/mattools-leaderboard/leaderboard/datasets/corpus"
)

// DenseCached reports whether cacheDir holds the embeddings of corpus c
// under model (the file NewDense reuses), so that a dry run can tell what
// embedding the corpus would cost. It checks presence only; NewDense
// verifies the file before reusing it.
func DenseCached(c *corpus.Corpus, model, cacheDir string) bool {
	if cacheDir == "" {
		return false
	}
	_, err := os.Stat(filepath.Join(cacheDir, "embeddings-"+cacheKey(c.ID)+"-"+cacheKey(model)+".parquet"))
	return err == nil
}
