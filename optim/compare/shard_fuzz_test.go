package compare

import "testing"

// FuzzParseShard reads -shard values: an error, or a shard i/n with
// 1 <= i <= n that String writes back to the same shard.
func FuzzParseShard(f *testing.F) {
	for _, s := range []string{"1/1", "3/4", "0/2", "5/4", "1/-1", "x/2", "9223372036854775807/9223372036854775807"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		sh, err := ParseShard(s)
		if err != nil {
			return
		}
		if sh.Index < 1 || sh.Index > sh.Count {
			t.Fatalf("%q read as %+v", s, sh)
		}
		if back, err := ParseShard(sh.String()); err != nil || back != sh {
			t.Fatalf("%q read as %+v, written as %q, read back as %+v (%v)", s, sh, sh.String(), back, err)
		}
	})
}
