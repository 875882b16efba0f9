// Command minimal is the baseline of scripts/runner-bench: the least a Go
// program does to send N chat completions to an OpenAI-compatible endpoint
// at a concurrency of C: one pooled transport (C idle connections per
// host), each body marshalled once, the response decoded for its content,
// nothing written to disk.
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"sync"
	"sync/atomic"
	"time"
)

func main() {
	base := flag.String("url", "", "the endpoint's base URL (…/v1)")
	n := flag.Int("n", 20000, "requests")
	c := flag.Int("c", 64, "concurrency")
	flag.Parse()
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.MaxIdleConnsPerHost, t.MaxIdleConns = *c, 2**c
	hc := &http.Client{Transport: t}
	var failed, answered atomic.Int64
	jobs := make(chan int)
	var wg sync.WaitGroup
	start := time.Now()
	for range *c {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				body, _ := json.Marshal(map[string]any{"model": "fake-model", "temperature": 0,
					"messages": []map[string]string{{"role": "user", "content": prompt(i)}}})
				resp, err := hc.Post(*base+"/chat/completions", "application/json", bytes.NewReader(body))
				if err != nil {
					failed.Add(1)
					continue
				}
				var out struct {
					Choices []struct {
						Message struct{ Content string } `json:"message"`
					} `json:"choices"`
				}
				err = json.NewDecoder(resp.Body).Decode(&out)
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if err != nil || resp.StatusCode != 200 || len(out.Choices) == 0 {
					failed.Add(1)
					continue
				}
				answered.Add(1)
			}
		}()
	}
	for i := range *n {
		jobs <- i
	}
	close(jobs)
	wg.Wait()
	fmt.Fprintf(os.Stderr, "minimal: %d answered, %d failed in %s\n", answered.Load(), failed.Load(), time.Since(start).Round(time.Millisecond))
	if failed.Load() > 0 {
		os.Exit(1)
	}
}

// prompt is a QA prompt of the size the runner sends for genqa's questions.
func prompt(i int) string {
	return fmt.Sprintf("You are an expert in pymatgen. Answer the multiple-choice question with the letter of the correct choice "+
		"between <answer> and </answer>.\nQuestion: In pymatgen's synthetic module %d, which call returns the value number %d "+
		"of the structure analysed in benchmark item %d?\nA. A. get_value_%d\nB. B. value_%d\nC. C. compute_%d\nD. D. read_%d\n",
		i%97, i, i, i, i, i, i)
}
