package compare

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"

	"github.com/pkg/errors"
	"github.com/rtnlab/rtn/params"
)

// planFile is Dir/plan.json: the comparison's identity and its runs.
type planFile struct {
	Hash   string          `json:"comparison"`
	Config json.RawMessage `json:"config"`
	Runs   []string        `json:"runs"`
}

// store keeps one file per finished run under dir/runs.
type store struct {
	dir, hash string
}

// openStore creates dir, writes its plan.json or checks that the one
// there describes the same comparison.
func openStore(dir string, ident []byte, hash string, plan []RunSpec) (*store, error) {
	if err := os.MkdirAll(filepath.Join(dir, "runs"), 0o755); err != nil {
		return nil, errors.Wrap(err, "compare: creating the output directory")
	}
	path := filepath.Join(dir, "plan.json")
	old, err := readPlan(dir)
	switch {
	case err == nil && old.Hash != hash:
		return nil, errors.Errorf("compare: %s describes another comparison (%s, not %s): use another directory", path, old.Hash, hash)
	case err == nil:
		return &store{dir: dir, hash: hash}, nil
	case !errors.Is(err, os.ErrNotExist):
		return nil, err
	}
	pf := planFile{Hash: hash, Config: ident}
	for _, r := range plan {
		pf.Runs = append(pf.Runs, r.Key())
	}
	if err := writeJSONFile(path, pf); err != nil {
		return nil, err
	}
	return &store{dir: dir, hash: hash}, nil
}

func readPlan(dir string) (*planFile, error) {
	path := filepath.Join(dir, "plan.json")
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var pf planFile
	if err := json.Unmarshal(b, &pf); err != nil {
		return nil, errors.Errorf("compare: %s: %v", path, err)
	}
	return &pf, nil
}

func (s *store) path(r RunSpec) string { return filepath.Join(s.dir, "runs", r.Key()+".json") }

// load returns the stored outcome of r, or nil if there is none.
func (s *store) load(r RunSpec) (*Outcome, error) {
	path := s.path(r)
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, errors.Wrap(err, "compare")
	}
	var f outcomeFile
	if err := json.Unmarshal(b, &f); err != nil {
		return nil, errors.Errorf("compare: %s: %v", path, err)
	}
	if f.Hash != s.hash || f.Setting != r.Setting || float64(f.LR) != r.LR || f.Seed != r.Seed {
		return nil, errors.Errorf("compare: %s is not run %s of comparison %s", path, r.Key(), s.hash)
	}
	return f.outcome(), nil
}

func (s *store) save(o *Outcome) error { return writeJSONFile(s.path(o.RunSpec), o.file(s.hash)) }

func writeJSONFile(path string, v any) error {
	return params.WriteFileAtomic(path, func(w io.Writer) error {
		enc := json.NewEncoder(w)
		enc.SetIndent("", " ")
		return enc.Encode(v)
	})
}

// Merge joins the directories written by the shards of one comparison
// (or by interrupted runs of it) into the Results an unsharded Run gives.
// Every directory must hold the same comparison, and together all its
// runs.
func Merge(dirs ...string) (*Results, error) {
	if len(dirs) == 0 {
		return nil, errors.New("compare: Merge needs at least one directory")
	}
	var first *planFile
	for _, d := range dirs {
		pf, err := readPlan(d)
		if err != nil {
			return nil, errors.Wrapf(err, "compare: %s is not a comparison directory", d)
		}
		if first == nil {
			first = pf
		} else if pf.Hash != first.Hash {
			return nil, errors.Errorf("compare: %s holds comparison %s, %s holds %s: they cannot be merged", dirs[0], first.Hash, d, pf.Hash)
		}
	}
	var c Config
	dec := json.NewDecoder(bytes.NewReader(first.Config))
	if err := dec.Decode(&c); err != nil {
		return nil, errors.Errorf("compare: the configuration in %s: %v", filepath.Join(dirs[0], "plan.json"), err)
	}
	known := map[string]*Outcome{}
	for {
		plan, complete := c.schedule(known)
		loaded := false
		for _, r := range plan {
			if known[r.Key()] != nil {
				continue
			}
			for _, d := range dirs {
				o, err := (&store{dir: d, hash: first.Hash}).load(r)
				if err != nil {
					return nil, err
				}
				if o != nil {
					o.setting = r.setting
					known[r.Key()], loaded = o, true
					break
				}
			}
		}
		if complete || !loaded {
			break
		}
	}
	plan, _ := c.schedule(known)
	res := &Results{Config: c, Plan: plan}
	var missing []string
	for _, r := range plan {
		if o := known[r.Key()]; o != nil {
			res.Runs = append(res.Runs, o)
		} else {
			missing = append(missing, r.Key())
		}
	}
	if len(missing) > 0 {
		return nil, errors.Errorf("compare: %d of %d runs are missing (first: %s): has every shard finished every stage?", len(missing), len(res.Plan), missing[0])
	}
	return res, nil
}
