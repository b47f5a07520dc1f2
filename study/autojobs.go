package study

import (
	"runtime"
	"time"

	"github.com/spdylab/spdylab/page"
	"github.com/spdylab/spdylab/study/autosize"
	"github.com/spdylab/spdylab/study/spec"
)

// AutoJobs is the number of testbeds `spdylab run -j auto` starts a fresh
// run of s with on this machine: -j auto's first size over
// every load of the study (newRunEnv's sum when nothing is stored yet),
// so that `spdylab studies` estimates at the -j a run will use. A page
// that does not open is left out of the sum, as the runner leaves it.
func AutoJobs(s *spec.Study, pages page.Cache) int {
	var w autosize.Work
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
				w.Add(wallMs, m)
			}
		}
	}
	return autosize.New(w, runtime.NumCPU(), (&autosize.Sampler{}).Sample(), time.Now(), autosize.DefaultRules).Size()
}
