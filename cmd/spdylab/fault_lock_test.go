package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/spdylab/spdylab/page"
	"github.com/spdylab/spdylab/probe"
	"github.com/spdylab/spdylab/study"
	"github.com/spdylab/spdylab/study/studyfile"
)

// Two runs into one OUT started at the same moment: exactly one runs, the
// other is refused because the directory is locked, and the store holds
// each load once. The winner is held before its first bench until the
// loser has answered, so the two always overlap, however the machine
// schedules them; the OUT is new each time, so the race covers creating
// the store as well as taking the lock.
func TestTwoRunsAtOnceOneIsRefused(t *testing.T) {
	s, err := studyfile.Parse([]byte(tinyLoopback), "")
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 12; i++ {
		out := filepath.Join(t.TempDir(), "out")
		entered, release := make(chan int, 2), make(chan struct{})
		held := func(who int) study.Opener {
			open := harnessOpener("")
			return func(ctx context.Context, c probe.Condition, pg *page.Manifest, seed int64, dir string) (study.Bench, error) {
				entered <- who
				<-release
				return open(ctx, c, pg, seed, dir)
			}
		}
		start := make(chan struct{})
		results := make(chan error, 2)
		for who := 0; who < 2; who++ {
			go func() {
				<-start
				_, err := study.RunInto(context.Background(), study.RunConfig{Study: s, Out: out, Resume: true, Jobs: 1,
					Open: held(who), Quiet: true, Log: io.Discard})
				results <- err
			}()
		}
		close(start)
		var refused error
		winners := 0
		for refused == nil && winners < 2 {
			select {
			case <-entered:
				winners++
			case err := <-results:
				if err == nil {
					t.Fatalf("round %d: a run ended before the other got past its lock", i)
				}
				refused = err
			case <-time.After(2 * time.Minute):
				t.Fatalf("round %d: neither run started loading nor was refused", i)
			}
		}
		close(release)
		if winners == 2 {
			<-results
			<-results
			t.Fatalf("round %d: both runs got past the lock and loaded", i)
		}
		if err := <-results; err != nil {
			t.Fatalf("round %d: the run that holds the lock failed: %v", i, err)
		}
		if want := fmt.Sprintf("%s is in use by another spdylab run (pid %d)", out, os.Getpid()); !strings.Contains(refused.Error(), want) {
			t.Fatalf("round %d: the second run was refused with %q, want it to say %q", i, refused, want)
		}
		if n, all := storedProbes(t, out), storedAttempts(t, out); n != 4 || all != 4 {
			t.Fatalf("round %d: %d probes in %d attempts stored, want 4 once each", i, n, all)
		}
	}
}
