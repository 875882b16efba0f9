// Command fakeserver serves the project's fake OpenAI-compatible endpoint
// (llm/llmtest) in a process of its own, on 127.0.0.1, for
// scripts/runner-bench and scripts/shards-local.sh: every chat request is
// answered "<answer>A</answer>" (or -qa-answer's text) with fixed token counts, or, with -code, a
// tool-usage question (its prompt asks for <code> tags) with a function
// returning no property. It prints its base URL ("http://127.0.0.1:PORT/v1")
// on the first line of stdout and serves until killed.
package main

import (
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/mattools-leaderboard/leaderboard/llm/llmtest"
)

func main() {
	code := flag.Bool("code", false, "answer tool-usage questions with a function")
	qaAnswer := flag.String("qa-answer", "<answer>A</answer>", "the answer to every other request, e.g. \"Answer: C\" (rejected by MatTools' exact QA rule)")
	flag.Parse()
	srv := llmtest.NewServer(llmtest.Options{Responder: func(r llmtest.Request) llmtest.Reply {
		if *code && strings.Contains(r.Prompt(), "<code>") {
			return llmtest.Reply{Content: "<answer>\n<code>\n```python\ndef f():\n    return {}\n```\n</code>\n<name>f</name>\n</answer>",
				PromptTokens: 1500, CompletionTokens: 30}
		}
		return llmtest.Reply{Content: *qaAnswer, PromptTokens: 150, CompletionTokens: 5}
	}})
	defer srv.Close()
	fmt.Println(srv.URL) // llmtest.Server.URL is the base URL, /v1 included
	os.Stdout.Sync()
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	<-sig
}
