package datasets

import (
	"os"
	"path/filepath"
)

// PolyphonicDir returns the polyphonic data directory: $RTN_POLYPHONIC_DIR
// when set, else the first shared/data/polyphonic holding JSB_Chorales.mat
// found walking up from the working directory, else "" (the synthetic set
// is used).
func PolyphonicDir() string {
	return SharedDir("RTN_POLYPHONIC_DIR", "polyphonic", "JSB_Chorales.mat")
}

// SharedDir returns $env when set, else the first shared/data/<name>
// holding the file probe found walking up from the working directory, else
// "": where rtn finds the real data sets, which live outside the
// repository.
func SharedDir(env, name, probe string) string {
	if d := os.Getenv(env); d != "" {
		return d
	}
	dir, err := os.Getwd()
	if err != nil {
		return ""
	}
	for {
		cand := filepath.Join(dir, "shared", "data", name)
		if _, err := os.Stat(filepath.Join(cand, probe)); err == nil {
			return cand
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}

// PAutomaCDir returns the PAutomaC data directory: $RTN_PAUTOMAC_DIR when
// set, else the first shared/data/pautomac holding 1.pautomac.test found
// walking up from the working directory, else "".
func PAutomaCDir() string { return SharedDir("RTN_PAUTOMAC_DIR", "pautomac", "1.pautomac.test") }
