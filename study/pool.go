package study

import "sync"

// scheduler hands benches to the workers: first a bench a retired worker
// left with runs to load, then the benches not yet started in the
// runner's order, then, once all have started, a share of the bench with
// the most runs left.
type scheduler struct {
	mu      sync.Mutex
	tasks   []task
	started int // tasks[:started] have been handed out
}

// take hands out a bench, counted as worked on until the worker leaves it
// (task.runs.leave); ok is false when no bench needs a worker.
func (s *scheduler) take() (t task, first, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t, first, ok = s.pick()
	if ok {
		t.runs.join()
	}
	return t, first, ok
}

func (s *scheduler) pick() (t task, first, ok bool) {
	for _, t := range s.tasks[:s.started] {
		if t.runs.orphaned() {
			return t, false, true
		}
	}
	if s.started < len(s.tasks) {
		s.started++
		return s.tasks[s.started-1], true, true
	}
	t, ok = mostRunsLeft(s.tasks)
	return t, false, ok
}

// hasWork tells whether take would hand out a bench now.
func (s *scheduler) hasWork() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, t := range s.tasks[:s.started] {
		if t.runs.orphaned() {
			return true
		}
	}
	if s.started < len(s.tasks) {
		return true
	}
	_, ok := mostRunsLeft(s.tasks)
	return ok
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
