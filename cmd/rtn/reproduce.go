package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/rtnlab/rtn/params"
	"github.com/rtnlab/rtn/reproduce"
	"github.com/rtnlab/rtn/runs"
)

func runReproduce(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("reproduce")
	quick := fs.Bool("quick", true, "short settings (use -quick=false for the papers' full settings)")
	only := fs.String("only", "", "comma-separated sections to run (known: "+strings.Join(reproduce.Sections(), ", ")+")")
	out := fs.String("out", runs.CommandOut("reproduce"), "output directory for CSV, JSON and PNG files (empty: none)")
	d := reproduce.ReproduceConfig{}.WithDefaults()
	seed := fs.Uint64("seed", d.Seed, "random seed")
	jobs := fs.Int("jobs", d.Jobs, "independent runs trained at once by the sections that allow it (umps-pautomac, strings); results do not depend on it")
	resume := fs.Bool("resume", false, "reuse the per-problem results an earlier run with the same -quick and -seed left in -out (strings: out/strings/problems/P.json), run the other problems")
	quiet := fs.Bool("quiet", false, "no progress output on stderr")
	asJSON := fs.Bool("json", false, "print the summary as one JSON object")
	markdown := fs.String("markdown", "", "also write the summary as a Markdown page to this file (docs/results.md is made this way)")
	readme := fs.String("readme", "", "also rewrite the headline table between the markers of this Markdown file (README.md)")
	if err := parse(fs, args, stderr); err != nil {
		return err
	}
	cfg := reproduce.ReproduceConfig{Quick: *quick, Out: *out, Seed: *seed, Jobs: *jobs, Resume: *resume}
	if *only != "" {
		for _, s := range strings.Split(*only, ",") {
			cfg.Only = append(cfg.Only, strings.TrimSpace(s))
		}
	}
	if err := cfg.Validate(); err != nil {
		return specError(err)
	}
	if err := checkOutDir("-out", *out); err != nil {
		return err
	}
	if err := checkOutPath("-markdown", *markdown); err != nil {
		return err
	}
	var readmeText string
	if *readme != "" {
		b, err := os.ReadFile(*readme)
		if err != nil {
			return fmt.Errorf("-readme: %v", err)
		}
		readmeText = string(b)
		if _, err := (&reproduce.Summary{}).ReplaceHeadline(readmeText, ""); err != nil {
			return fmt.Errorf("-readme: %s has no headline markers", *readme)
		}
	}
	if !*quiet {
		cfg.Log = stderr
		if isTerminal(stderr) {
			cfg.Progress = stderr
		}
	}
	sum, err := reproduce.Reproduce(cfg)
	if err != nil {
		return err
	}
	if *markdown != "" {
		command := "go run ./cmd/rtn reproduce -markdown " + *markdown
		if !*quick {
			command += " -quick=false"
		}
		if *seed != d.Seed {
			command += fmt.Sprintf(" -seed %d", *seed)
		}
		if *only != "" {
			command += " -only " + *only
		}
		if err := os.MkdirAll(filepath.Dir(*markdown), 0o755); err != nil {
			return err
		}
		err := params.WriteFileAtomic(*markdown, func(w io.Writer) error { return sum.WriteMarkdown(w, command) })
		if err != nil {
			return err
		}
	}
	if *readme != "" {
		command := "go run ./cmd/rtn reproduce"
		if !*quick {
			command += " -quick=false"
		}
		text, err := sum.ReplaceHeadline(readmeText, command)
		if err != nil {
			return err
		}
		if err := params.WriteFileAtomic(*readme, func(w io.Writer) error { _, err := io.WriteString(w, text); return err }); err != nil {
			return err
		}
	}
	if *asJSON {
		return json.NewEncoder(stdout).Encode(sum)
	}
	if err := sum.WriteTable(stdout); err != nil {
		return err
	}
	if *out != "" {
		fmt.Fprintf(stdout, "\nfiles written under %s (summary.csv, summary.json, one folder per section)\n", *out)
	}
	return nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
