package umps

// clipRunes shortens s to at most n runes, ending in "..." when cut, so
// that an error quoting a large character class (\pL expands to
// thousands of ranges) stays one short line.
func clipRunes(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-3]) + "..."
}
