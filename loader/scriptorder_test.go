package loader

import (
	"context"
	"slices"
	"testing"

	"github.com/spdylab/spdylab/page"
	"github.com/spdylab/spdylab/probe"
)

// The parser's order: a loaded script runs only once everything the
// document named before it has loaded (stylesheets) or run (scripts).
func TestScriptOrderRunsInDocumentOrder(t *testing.T) {
	cases := []struct {
		name  string
		named []string
		loads []string // completion order
		want  [][]string
	}{
		{"a script waits for the stylesheet before it",
			[]string{"a.css", "1.js"}, []string{"1.js", "a.css"},
			[][]string{nil, {"a.css", "1.js"}}},
		{"a stylesheet after a script holds nothing",
			[]string{"1.js", "a.css"}, []string{"1.js", "a.css"},
			[][]string{{"1.js"}, {"a.css"}}},
		{"scripts run in document order whatever order they load in",
			[]string{"1.js", "2.js", "3.js"}, []string{"3.js", "2.js", "1.js"},
			[][]string{nil, nil, {"1.js", "2.js", "3.js"}}},
		{"named twice is one place",
			[]string{"a.css", "a.css", "1.js"}, []string{"a.css", "1.js"},
			[][]string{{"a.css"}, {"1.js"}}},
		{"what the document does not name runs at once",
			[]string{"a.css", "1.js"}, []string{"x.png", "a.css", "1.js"},
			[][]string{{"x.png"}, {"a.css"}, {"1.js"}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			o := newScriptOrder(true)
			for _, k := range tc.named {
				o.named(k)
			}
			var ran []string
			for i, k := range tc.loads {
				ran = nil
				o.completed(k, func() { ran = append(ran, k) })
				if !slices.Equal(ran, tc.want[i]) {
					t.Errorf("after %s loaded, ran %v, want %v", k, ran, tc.want[i])
				}
			}
		})
	}
}

// A resource that loaded before the document named it blocks nothing.
func TestScriptOrderLoadedBeforeNamed(t *testing.T) {
	o := newScriptOrder(true)
	o.completed("a.css", func() {})
	o.named("a.css")
	o.named("1.js")
	ran := false
	o.completed("1.js", func() { ran = true })
	if !ran {
		t.Fatal("1.js waited for a stylesheet that had already loaded")
	}
}

// Off, everything runs as it loads.
func TestScriptOrderOff(t *testing.T) {
	o := newScriptOrder(false)
	o.named("a.css")
	o.named("1.js")
	ran := false
	o.completed("1.js", func() { ran = true })
	if !ran {
		t.Fatal("with the mechanism off, a loaded script did not run")
	}
}

// With ScriptsAwaitStyles, the images the youtube page's scripts insert
// are requested only after the stylesheets named before the scripts have
// loaded; without it, as soon as the scripts have. The stylesheets are
// answered 400 ms late so that the two orders cannot be confused.
func TestScriptInsertedRequestsWaitForStylesheets(t *testing.T) {
	st := newSite(t, "youtube", 1)
	target := lateServers(t, st, ".css")
	for _, await := range []bool{true, false} {
		res, err := Load(context.Background(), target, Options{Proto: probe.ProtoH2, TLSVersion: "1.3", ScriptsAwaitStyles: await})
		if err != nil {
			t.Fatal(err)
		}
		isStyle := func(r page.Resource) bool { return r.Type == page.TypeCSS && r.Parent == 0 }
		inserted := func(r page.Resource) bool {
			return r.Parent > 0 && st.m.Resources[r.Parent].Type == page.TypeJS && r.Discovery.Kind == page.KindOnload
		}
		if waited, by := startedAfter(t, st, checkAgainstManifest(t, st, res), isStyle, inserted); waited != await {
			t.Errorf("ScriptsAwaitStyles %v: first script-inserted image requested %v after the stylesheets ended", await, by)
		}
	}
}
