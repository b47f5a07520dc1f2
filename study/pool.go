package study

import (
	"sync"

	"github.com/spdylab/spdylab/study/eta"
)

// scheduler hands benches to the workers by pickBench, the rule the ETA
// lays the runs left out by too.
type scheduler struct {
	mu      sync.Mutex
	tasks   []task
	started []bool // a testbed was handed out for tasks[i]
}

func newScheduler(tasks []task) *scheduler {
	return &scheduler{tasks: tasks, started: make([]bool, len(tasks))}
}

// take hands out a bench, counted as worked on until the worker leaves it
// (task.runs.leave); first tells the bench's first testbed; ok is false
// when no bench needs a worker.
func (s *scheduler) take() (t task, first, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	i, ok := pickBench(s.slots())
	if !ok {
		return task{}, false, false
	}
	first = !s.started[i]
	s.started[i] = true
	s.tasks[i].runs.join()
	return s.tasks[i], first, true
}

// hasWork tells whether take would hand out a bench now.
func (s *scheduler) hasWork() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, ok := pickBench(s.slots())
	return ok
}

// slots is the benches as pickBench sees them now.
func (s *scheduler) slots() []eta.Slot {
	out := make([]eta.Slot, len(s.tasks))
	for i, t := range s.tasks {
		left, workers := t.runs.state()
		out[i] = eta.Slot{Started: s.started[i], RunsLeft: left, Workers: workers}
	}
	return out
}

// pickBench chooses the bench a free testbed takes next: first a started
// bench a retired worker left with runs and no testbed, then the next
// bench not started in the runner's order, then, once all have started, a
// share of the bench with the most runs left if it has at least
// MinRunsToShare. It is the runner's whole scheduling rule; the ETA calls
// it to lay out the runs left (eta.Pick).
func pickBench(benches []eta.Slot) (int, bool) {
	for i, b := range benches {
		if b.Started && b.Workers == 0 && b.RunsLeft > 0 {
			return i, true
		}
	}
	for i, b := range benches {
		if !b.Started {
			return i, true
		}
	}
	best, most := -1, MinRunsToShare-1
	for i, b := range benches {
		if b.RunsLeft > most {
			best, most = i, b.RunsLeft
		}
	}
	return best, best >= 0
}

// workerPool counts the workers against the size the runner wants. A
// worker asked to stop stops between two runs of its bench (never inside
// a load, and with each run's protocols loaded back to back); the runs it
// leaves stay in the bench's queue for the next worker (scheduler.pick).
type workerPool struct {
	mu             sync.Mutex
	target, active int
	// changed wakes the runner's supervisor when a worker leaves.
	changed chan struct{}
}

func newWorkerPool(target int) *workerPool {
	return &workerPool{target: target, changed: make(chan struct{}, 1)}
}

func (p *workerPool) setTarget(n int) {
	p.mu.Lock()
	p.target = n
	p.mu.Unlock()
}

// grow counts one more worker if there are fewer than the target.
func (p *workerPool) grow() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.active >= p.target {
		return false
	}
	p.active++
	return true
}

// retire takes a worker out when there are more than the target; the
// worker must then stop at once.
func (p *workerPool) retire() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.active <= p.target {
		return false
	}
	p.active--
	p.wake()
	return true
}

// exit takes out a worker that stops on its own (no bench left for it).
func (p *workerPool) exit() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.active--
	p.wake()
}

func (p *workerPool) wake() {
	select {
	case p.changed <- struct{}{}:
	default:
	}
}

func (p *workerPool) count() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.active
}
