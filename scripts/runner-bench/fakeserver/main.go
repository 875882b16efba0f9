// Command fakeserver serves the project's fake OpenAI-compatible endpoint
// (llm/llmtest) in a process of its own, on 127.0.0.1, for
// scripts/runner-bench, scripts/shards-local.sh and cmd/slurm's real-Slurm
// test (as a task's server command): every chat request is answered
// "<answer>A</answer>" (or -qa-answer's text) with fixed token counts, or,
// with -code, a tool-usage question (its prompt asks for <code> tags) with a
// function returning no property. It prints its base URL
// ("http://127.0.0.1:PORT/v1") on the first line of stdout and serves until
// killed (SIGINT or SIGTERM).
//
// -addr chooses the address (default a free port of 127.0.0.1); -model lists
// a model id at GET /v1/models (a readiness check); -log appends one line per
// answered chat request (the SHA-256 of its prompt); -block-after K holds every
// request after the first K answers until its client gives up, and with
// -hold-mark FILE writes FILE when it first holds one, and holds nothing when
// FILE exists at start (so a requeued task's server answers everything).
package main

import (
	"crypto/sha256"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/mattools-leaderboard/leaderboard/llm/llmtest"
)

func main() {
	code := flag.Bool("code", false, "answer tool-usage questions with a function")
	qaAnswer := flag.String("qa-answer", "<answer>A</answer>", "the answer to every other request, e.g. \"Answer: C\" (rejected by MatTools' exact QA rule)")
	addr := flag.String("addr", "", "listen address (default 127.0.0.1 and a free port)")
	model := flag.String("model", "", "a model id GET /v1/models lists (comma-separated for several)")
	logPath := flag.String("log", "", "append one line per answered chat request (the SHA-256 of its prompt) to this file")
	blockAfter := flag.Int("block-after", 0, "hold every request after the first K answers until its client gives up")
	holdMark := flag.String("hold-mark", "", "with -block-after: write this file when a request is first held; hold nothing when it exists at start")
	flag.Parse()
	if *holdMark != "" {
		if _, err := os.Stat(*holdMark); err == nil {
			*blockAfter = 0
		}
	}
	var logMu sync.Mutex
	var logFile *os.File
	if *logPath != "" {
		f, err := os.OpenFile(*logPath, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
		if err != nil {
			fmt.Fprintln(os.Stderr, "fakeserver:", err)
			os.Exit(1)
		}
		logFile = f
		defer f.Close()
	}
	var models []string
	if *model != "" {
		models = strings.Split(*model, ",")
	}
	srv := llmtest.NewServer(llmtest.Options{Addr: *addr, Models: models, BlockAfter: *blockAfter, Responder: func(r llmtest.Request) llmtest.Reply {
		if logFile != nil {
			logMu.Lock()
			fmt.Fprintf(logFile, "%x\n", sha256.Sum256([]byte(r.Prompt())))
			logFile.Sync()
			logMu.Unlock()
		}
		if *code && strings.Contains(r.Prompt(), "<code>") {
			return llmtest.Reply{Content: "<answer>\n<code>\n```python\ndef f():\n    return {}\n```\n</code>\n<name>f</name>\n</answer>",
				PromptTokens: 1500, CompletionTokens: 30}
		}
		return llmtest.Reply{Content: *qaAnswer, PromptTokens: 150, CompletionTokens: 5}
	}})
	defer srv.Close()
	fmt.Println(srv.URL) // llmtest.Server.URL is the base URL, /v1 included
	os.Stdout.Sync()
	if *blockAfter > 0 && *holdMark != "" {
		go func() {
			for srv.Blocked() == 0 {
				time.Sleep(5 * time.Millisecond)
			}
			os.WriteFile(*holdMark, []byte(fmt.Sprintf("held after %d answers\n", *blockAfter)), 0o644)
		}()
	}
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	<-sig
}
