package content

import "github.com/mattools-leaderboard/leaderboard/internal/words"

// count writes n and the noun that agrees with it: "1 run", "2 runs",
// "1 property" (internal/words).
func count[N words.Integer](n N, one, many string) string { return words.Count(n, one, many) }

// noun is the noun (or verb) that agrees with n: one when n is 1, else many.
func noun[N words.Integer](n N, one, many string) string { return words.Noun(n, one, many) }

// plural is count for a noun whose plural adds an s: "1 stage", "2 stages".
func plural(n int, noun string) string { return count(n, noun, noun+"s") }
