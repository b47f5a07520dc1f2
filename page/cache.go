package page

import "fmt"

// Cache holds pages opened once, by CacheKey: a study's duration
// estimate, the runner's schedule and its benches share them. It is not
// safe for concurrent use.
type Cache map[string]*cachedPage

type cachedPage struct {
	m   *Manifest
	err error
}

// CacheKey names the page Open(spec, shards, seed, mode) returns within
// one study (one seed).
func CacheKey(spec string, shards int, mode string) string {
	if mode == "" {
		mode = ShardEqual
	}
	return fmt.Sprintf("%s|%d|%s", spec, shards, mode)
}

// Open returns the page as Open does, opening it on first use (an error
// is kept too).
func (pc Cache) Open(spec string, shards int, seed int64, mode string) (*Manifest, error) {
	key := CacheKey(spec, shards, mode)
	p, ok := pc[key]
	if !ok {
		m, err := Open(spec, shards, seed, mode)
		p = &cachedPage{m, err}
		pc[key] = p
	}
	return p.m, p.err
}

// Opened is the page if it was opened successfully, else nil.
func (pc Cache) Opened(spec string, shards int, mode string) *Manifest {
	if p := pc[CacheKey(spec, shards, mode)]; p != nil {
		return p.m
	}
	return nil
}
