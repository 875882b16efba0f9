package plan_test

// The plan's tests parse plans naming the paper's systems and their
// sections ([self_reflection], [graph_rag], [agentic]), whose specs the
// systems register (runner/systems.Register): linking them registers them
// into this test binary's plan package.
import _ "github.com/mattools-leaderboard/leaderboard/runner/systems"
