// Package words writes counts in English for what readers see (pages,
// command output): "1 property", "2 properties", "0 runs".
package words

import "strconv"

// Integer is any integer type a count comes in.
type Integer interface {
	~int | ~int8 | ~int16 | ~int32 | ~int64 | ~uint | ~uint8 | ~uint16 | ~uint32 | ~uint64
}

// Count returns n and the noun that agrees with it: one when n is 1, else
// many ("1 run", "0 runs", "2 properties").
func Count[N Integer](n N, one, many string) string {
	return strconv.FormatInt(int64(n), 10) + " " + Noun(n, one, many)
}

// Noun returns one when n is 1, else many: the noun (or verb) that agrees
// with a count written apart from it ("1 of 4 properties", "3 were").
func Noun[N Integer](n N, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
