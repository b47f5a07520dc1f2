package autosize

import (
	"os"
	"strconv"
	"strings"
)

// cpuTimes is /proc/stat's aggregate "cpu" line: idle (idle + iowait)
// and total jiffies since boot.
type cpuTimes struct{ idle, total uint64 }

func readCPUTimes() (cpuTimes, bool) {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return cpuTimes{}, false
	}
	line, _, _ := strings.Cut(string(b), "\n")
	f := strings.Fields(line)
	if len(f) < 6 || f[0] != "cpu" {
		return cpuTimes{}, false
	}
	var t cpuTimes
	for i, s := range f[1:] {
		v, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			return cpuTimes{}, false
		}
		// Guest times (fields 9 and 10) are already counted in user.
		if i < 8 {
			t.total += v
		}
		if i == 3 || i == 4 {
			t.idle += v
		}
	}
	return t, true
}

// idleShare is the share of CPU time idle between two readings (-1 when
// no time passed or a reading is missing).
func idleShare(prev, cur cpuTimes) float64 {
	if cur.total <= prev.total || cur.idle < prev.idle {
		return -1
	}
	return float64(cur.idle-prev.idle) / float64(cur.total-prev.total)
}

// memAvailableMiB is /proc/meminfo's MemAvailable (0 when unknown).
func memAvailableMiB() int { return MeminfoMiB("MemAvailable:") }

// MeminfoMiB is a /proc/meminfo field ("MemTotal:") in MiB, 0 when unknown.
func MeminfoMiB(field string) int {
	b, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == field {
			kb, _ := strconv.Atoi(f[1])
			return kb / 1024
		}
	}
	return 0
}

// Sampler turns successive /proc readings into machineSamples.
type Sampler struct {
	prev cpuTimes
	ok   bool
}

// Sample reads the machine now: the idle CPU share since the previous
// Sample (-1 on the first) and the memory available.
func (s *Sampler) Sample() Machine {
	m := Machine{IdleCPU: -1, MemAvailMiB: memAvailableMiB()}
	cur, ok := readCPUTimes()
	if ok && s.ok {
		m.IdleCPU = idleShare(s.prev, cur)
	}
	s.prev, s.ok = cur, ok
	return m
}
