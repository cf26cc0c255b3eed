package runs

import "path/filepath"

// SpectralSweepDir runs the sweep sw and then the rank sweep rk (rtn
// spectral -sweep) into the directory out, which it checks before any
// run and locks while it writes: sweep.csv and ranks.csv after each run
// (so that, with resume, the runs they hold are not run again), then the
// figures of each sweep (WriteSweep).
func SpectralSweepDir(sw, rk SweepSpec, out string, resume bool) (runs, ranks []SpectralReport, err error) {
	if err := CheckDirOut("{Out}", out); err != nil {
		return nil, nil, err
	}
	lock, err := LockOutputs([]string{out}, nil)
	if err != nil {
		return nil, nil, err
	}
	defer lock.Release()
	for _, p := range []struct {
		spec SweepSpec
		name string
		rank bool
		reps *[]SpectralReport
	}{{sw, "sweep", false, &runs}, {rk, "ranks", true, &ranks}} {
		csv := filepath.Join(out, p.name+".csv")
		if resume {
			if p.spec.Done, err = ReadSweep(csv); err != nil {
				return nil, nil, err
			}
		}
		p.spec.After = func(r []SpectralReport) error { return WriteSweepCSV(csv, r) }
		if *p.reps, err = SpectralSweep(p.spec); err != nil {
			return nil, nil, err
		}
		if err := WriteSweep(out, p.name, *p.reps, p.rank); err != nil {
			return nil, nil, err
		}
	}
	return runs, ranks, nil
}
