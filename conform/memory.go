package conform

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"
)

// DefaultMemoryLimit bounds how much a DoS case may grow the server's
// resident memory when it is measured.
const DefaultMemoryLimit = 64 << 20

// Memory is what a DoS case did to the server's memory. Only a process
// whose id the caller gave can be read (/proc/PID/status); otherwise
// Measured is false and NotMeasured says why: nothing is estimated.
type Memory struct {
	Measured    bool   `json:"measured"`
	NotMeasured string `json:"not_measured,omitempty"`
	PID         int    `json:"pid,omitempty"`
	// RSSBeforeKiB is VmRSS when the case began; PeakRSSKiB the highest
	// VmRSS sampled during the case (every 5 ms), raised to VmHWM when
	// VmHWM grew during the case (a peak between two samples).
	RSSBeforeKiB int64 `json:"rss_before_kib,omitempty"`
	PeakRSSKiB   int64 `json:"peak_rss_kib,omitempty"`
	// GrowthKiB = PeakRSSKiB - RSSBeforeKiB: what the verdict judges.
	GrowthKiB int64 `json:"growth_kib,omitempty"`
	// HWMGrowthKiB is how much VmHWM (the process's all-time peak) rose;
	// 0 when an earlier peak was higher than this case's.
	HWMGrowthKiB int64  `json:"hwm_growth_kib,omitempty"`
	LimitKiB     int64  `json:"limit_kib,omitempty"`
	Error        string `json:"error,omitempty"`
}

// Within reports whether the growth is within the limit; an unmeasured
// memory does not decide the verdict.
func (m *Memory) Within() bool {
	return m == nil || !m.Measured || (m.Error == "" && m.GrowthKiB <= m.LimitKiB)
}

// procMemory reads VmRSS and VmHWM (KiB) from /proc/pid/status.
func procMemory(pid int) (rss, hwm int64, err error) {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, 0, fmt.Errorf("server memory: %w", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if !ok || (k != "VmRSS" && k != "VmHWM") {
			continue
		}
		n, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
		if err != nil {
			return 0, 0, fmt.Errorf("server memory: /proc/%d/status %s %q: %v", pid, k, v, err)
		}
		if k == "VmRSS" {
			rss = n
		} else {
			hwm = n
		}
	}
	if rss == 0 || hwm == 0 {
		return 0, 0, fmt.Errorf("server memory: /proc/%d/status has no VmRSS/VmHWM (a kernel thread or a zombie?)", pid)
	}
	return rss, hwm, sc.Err()
}

// memWatch samples a process's VmRSS while a DoS case runs.
type memWatch struct {
	m       *Memory
	hwm0    int64
	stop    chan struct{}
	done    sync.WaitGroup
	mu      sync.Mutex
	peak    int64
	lastErr error
}

// watchMemory starts sampling the server's memory, or records why it is
// not measured.
func watchMemory(o *Options) *memWatch {
	limit := o.MemoryLimit
	if limit <= 0 {
		limit = DefaultMemoryLimit
	}
	w := &memWatch{m: &Memory{PID: o.ServerPID, LimitKiB: limit >> 10}}
	if o.ServerPID <= 0 {
		w.m = &Memory{NotMeasured: "the server's process id was not given (--server-pid): its memory is not measured"}
		return w
	}
	rss, hwm, err := procMemory(o.ServerPID)
	if err != nil {
		w.m.Measured, w.m.Error = true, err.Error()
		return w
	}
	w.m.Measured, w.m.RSSBeforeKiB, w.hwm0, w.peak = true, rss, hwm, rss
	w.stop = make(chan struct{})
	w.done.Add(1)
	go w.sample()
	return w
}

func (w *memWatch) sample() {
	defer w.done.Done()
	t := time.NewTicker(5 * time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-w.stop:
			return
		case <-t.C:
		}
		rss, _, err := procMemory(w.m.PID)
		w.mu.Lock()
		if err != nil {
			w.lastErr = err
		} else if rss > w.peak {
			w.peak = rss
		}
		w.mu.Unlock()
	}
}

// finish stops sampling and returns the case's memory.
func (w *memWatch) finish() *Memory {
	if w.stop == nil {
		return w.m
	}
	close(w.stop)
	w.done.Wait()
	rss, hwm, err := procMemory(w.m.PID)
	if err != nil {
		// The server may have died of the attack: say so, do not guess.
		w.m.Error = err.Error()
		return w.m
	}
	peak := max(w.peak, rss)
	if hwm > w.hwm0 {
		peak = max(peak, hwm)
		w.m.HWMGrowthKiB = hwm - w.hwm0
	}
	w.m.PeakRSSKiB = peak
	w.m.GrowthKiB = peak - w.m.RSSBeforeKiB
	return w.m
}
