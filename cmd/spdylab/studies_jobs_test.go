package main

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/spdylab/spdylab/page"
	"github.com/spdylab/spdylab/study"
	"github.com/spdylab/spdylab/study/studyfile"
)

// studies estimates at the -j run will use: by default run's -j auto,
// whose first size (study.AutoJobs) each row names; -j N as given.
func TestStudiesEstimatesAtTheJobsRunUses(t *testing.T) {
	s, err := studyfile.Load("quick")
	if err != nil {
		t.Fatal(err)
	}
	before := study.AutoJobs(s, page.Cache{})
	var out bytes.Buffer
	if code := studiesCmd([]string{"quick"}, &out, io.Discard); code != 0 {
		t.Fatalf("exit %d", code)
	}
	after := study.AutoJobs(s, page.Cache{}) // the machine's memory may move between the two
	header, row, _ := strings.Cut(out.String(), "\n")
	if !strings.Contains(header, "ESTIMATE (-j auto)") {
		t.Errorf("header %q does not say -j auto", header)
	}
	row, _, _ = strings.Cut(row, "\n")
	if !strings.Contains(row, fmt.Sprintf(" at %d ", before)) && !strings.Contains(row, fmt.Sprintf(" at %d ", after)) {
		t.Errorf("row %q does not estimate at run's first size %d", row, before)
	}
	out.Reset()
	code := studiesCmd([]string{"-j", "4", "quick"}, &out, io.Discard)
	if table := firstLines(out.String(), 2); code != 0 || !strings.Contains(table, "ESTIMATE (-j 4)") || strings.Contains(table, " at ") {
		t.Errorf("-j 4: exit %d:\n%s", code, table)
	}
	var errb bytes.Buffer
	if code := studiesCmd([]string{"-j", "0", "quick"}, io.Discard, &errb); code != 2 || !strings.Contains(errb.String(), `-j "0": want auto or 1..`) {
		t.Errorf("-j 0: exit %d, %q", code, errb.String())
	}
}
