package study

import (
	"runtime"
	"time"

	"github.com/spdylab/spdylab/page"
	"github.com/spdylab/spdylab/study/spec"
)

// AutoJobs is the number of testbeds `spdylab run -j auto` starts a fresh
// run of s with on this machine: the jobsController's first size over
// every load of the study (newJobSizer's sum when nothing is stored yet),
// so that `spdylab studies` estimates at the -j a run will use. A page
// that does not open is left out of the sum, as the runner leaves it.
func AutoJobs(s *spec.Study, pages page.Cache) int {
	var w jobsWork
	for _, g := range spec.Groups(s) {
		if groupIsBrowser(g) {
			continue
		}
		for _, c := range g.Conds {
			m, err := pages.Open(c.Page, c.Shards, s.Seed, c.ShardMode)
			if err != nil {
				continue
			}
			wallMs := float64(spec.ModelledWall(m, c.Condition)) / float64(time.Millisecond)
			for range s.Runs {
				w.add(wallMs, m)
			}
		}
	}
	return newJobsController(w, runtime.NumCPU(), (&machineSampler{}).sample(), time.Now()).size
}

// add counts one load of page m whose modelled wall time is wallMs.
func (w *jobsWork) add(wallMs float64, m *page.Manifest) {
	if wallMs > 0 {
		w.WallMs += wallMs
		w.CPUMs += modelledCPUMs(m)
	}
}
