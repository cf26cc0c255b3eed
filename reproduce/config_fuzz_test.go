package reproduce

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

// FuzzReproduceConfig: WithDefaults and Validate of any configuration
// (decoded from JSON; fields it cannot decode keep their zero value)
// return without a panic, and a configuration Validate accepts names
// only known sections and a usable seed and jobs count.
func FuzzReproduceConfig(f *testing.F) {
	f.Add([]byte(`{"Quick": true, "Only": ["strings", "nope"], "Seed": 0, "Jobs": -1}`))
	f.Add([]byte(`{"Only": ["umps-pautomac"], "Jobs": 9223372036854775807}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		var c ReproduceConfig
		_ = json.Unmarshal(b, &c)
		if strings.ContainsAny(c.Out, `/\`) || strings.HasPrefix(c.Out, ".") {
			c.Out = ""
		}
		c = c.WithDefaults()
		if c.Validate() != nil {
			return
		}
		if c.Seed == 0 || c.Jobs < 1 {
			t.Fatalf("accepted seed %d, jobs %d", c.Seed, c.Jobs)
		}
		for _, s := range c.Only {
			if !slices.Contains(Sections(), s) {
				t.Fatalf("accepted the unknown section %q", s)
			}
		}
	})
}
