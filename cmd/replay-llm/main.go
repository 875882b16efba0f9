// Command replay-llm serves MatTools' recorded single-LLM GPT answers as an
// OpenAI-compatible chat-completions endpoint, so that the runner (or any
// client) can be run end to end on real model outputs without a model:
//
//	replay-llm -addr 127.0.0.1:8765            # rounds 1–3 of every recorded model
//	run-benchmark -plan plans/replay.toml      # base_url http://127.0.0.1:8765/round{round}/v1
//
// It reads request_bodies.jsonl + raw_responses.jsonl from
// $MATTOOLS_DATA/src/pure_agent_test/roundN/<model>/ and answers a request
// whose model and messages match a recorded one with the recorded response
// (usage included); anything else gets a 404 (or, for other parameters, a
// 400) OpenAI-style error body explaining the mismatch. The round is chosen
// per request by a /roundN path prefix, else the X-Replay-Round header, else
// -round.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/mattools-leaderboard/leaderboard/cmd/internal/cliflags"
	"github.com/mattools-leaderboard/leaderboard/datasets"
	"github.com/mattools-leaderboard/leaderboard/llm/replay"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Stdout, os.Stderr, nil))
}

// run serves until ctx ends. ready, if not nil, receives the listening base URL.
func run(ctx context.Context, args []string, stdout, stderr io.Writer, ready chan<- string) int {
	fs := flag.NewFlagSet("replay-llm", flag.ContinueOnError)
	fs.SetOutput(stderr)
	data := cliflags.Data(fs, nil, "")
	addr := fs.String("addr", "127.0.0.1:8765", "listen address (loopback unless -allow-remote)")
	round := fs.Int("round", 0, "round served to requests that select none (0: such requests get an error)")
	roundsFlag := fs.String("rounds", "1,2,3", "rounds to load, comma-separated")
	modelsFlag := fs.String("models", "", "models to load, comma-separated (default: every model with recorded batches)")
	allowRemote := fs.Bool("allow-remote", false, "allow listening on a non-loopback address")
	quiet := fs.Bool("quiet", false, "do not log each request")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *data == "" {
		fmt.Fprintf(stderr, "replay-llm: no data root: set %s or -data to a MatTools checkout\n", datasets.EnvVar)
		return 2
	}
	var rounds []int
	for _, s := range strings.Split(*roundsFlag, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n < 1 {
			fmt.Fprintf(stderr, "replay-llm: -rounds: %q is not a round number\n", s)
			return 2
		}
		rounds = append(rounds, n)
	}
	var models []string
	if *modelsFlag != "" {
		models = strings.Split(*modelsFlag, ",")
	}
	host, _, err := net.SplitHostPort(*addr)
	if err != nil {
		fmt.Fprintln(stderr, "replay-llm: -addr:", err)
		return 2
	}
	if ip := net.ParseIP(host); !*allowRemote && host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		fmt.Fprintf(stderr, "replay-llm: -addr %s is not a loopback address; pass -allow-remote to serve it\n", *addr)
		return 2
	}
	batches, err := replay.LoadRecorded(*data, rounds, models)
	if err != nil {
		fmt.Fprintln(stderr, "replay-llm:", err)
		return 1
	}
	srv, err := replay.NewServer(*round, batches...)
	if err != nil {
		fmt.Fprintln(stderr, "replay-llm:", err)
		return 1
	}
	if !*quiet {
		srv.Log = slog.New(slog.NewTextHandler(stderr, nil))
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		fmt.Fprintln(stderr, "replay-llm:", err)
		return 1
	}
	base := "http://" + ln.Addr().String()
	fmt.Fprintf(stdout, "replay-llm: %d recorded batches:\n%s\nserving on %s/round<N>/v1\n", len(batches), srv.Describe(), base)
	if *round > 0 {
		fmt.Fprintf(stdout, "and on %s/v1 for round %d\n", base, *round)
	}
	hs := &http.Server{Handler: srv, ReadHeaderTimeout: 10 * time.Second}
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	if ready != nil {
		ready <- base
	}
	select {
	case <-ctx.Done():
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		hs.Shutdown(sctx)
		return 0
	case err := <-errc:
		if errors.Is(err, http.ErrServerClosed) {
			return 0
		}
		fmt.Fprintln(stderr, "replay-llm:", err)
		return 1
	}
}
