package page

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/spdylab/spdylab/probe"
)

const (
	onloadHAR   = "testdata/onload.har"    // onLoad 505 ms after a page start 5 ms before the root
	noOnloadHAR = "testdata/no-onload.har" // the same page without pageTimings.onLoad
)

func importFile(t *testing.T, file string) *Manifest {
	t.Helper()
	m, _, err := ImportHARFile(file, ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestImportKeepsOnloadOnTheRootsClock(t *testing.T) {
	if m := importFile(t, onloadHAR); m.OnLoadMs != 500 {
		t.Errorf("onload_ms %v, want 500 (onLoad 505 after a page start 5 ms before the root)", m.OnLoadMs)
	}
	if m := importFile(t, noOnloadHAR); m.OnLoadMs != 0 {
		t.Errorf("onload_ms %v for a recording without onLoad, want 0 (none)", m.OnLoadMs)
	}
	if m, _ := importSynthetic(t); m.OnLoadMs != 400 {
		t.Errorf("synthetic: onload_ms %v, want 400", m.OnLoadMs)
	}
}

func TestUntilOnloadLeavesLateResourcesOut(t *testing.T) {
	m := importFile(t, onloadHAR)
	// Every host with a recorded connect time, the late-only one too (as
	// bbc.co.uk's recording has): it must leave with its host.
	m.HostConnectMs = map[string]float64{}
	for _, h := range m.Hosts {
		m.HostConnectMs[h] = 20
	}
	out, mc, err := m.ApplyMethod(probe.Condition{Until: probe.UntilOnload})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := out.HostConnectMs["ads.onload.test"]; ok || len(out.HostConnectMs) != len(out.Hosts) {
		t.Errorf("host_connect_ms %v after until onload, want exactly the hosts kept %v", out.HostConnectMs, out.Hosts)
	}
	if _, ok := m.HostConnectMs["ads.onload.test"]; !ok {
		t.Error("ApplyMethod changed the given page's host_connect_ms")
	}
	if mc.AfterOnload != 2 || len(out.Resources) != len(m.Resources)-2 {
		t.Fatalf("left out %d of %d (kept %d), want the 2 requested after onload", mc.AfterOnload, len(m.Resources), len(out.Resources))
	}
	for _, r := range out.Resources {
		if r.StartMs > m.OnLoadMs || strings.Contains(r.Path, "late") {
			t.Errorf("kept %s%s requested at %v ms, after onload %v", r.Host, r.Path, r.StartMs, m.OnLoadMs)
		}
	}
	for _, h := range out.Hosts {
		if h == "ads.onload.test" {
			t.Errorf("hosts %v still list the host only late resources used", out.Hosts)
		}
	}
	if err := out.Validate(); err != nil {
		t.Fatal(err)
	}
	if len(m.Resources) != 7 {
		t.Errorf("the page given changed: %d resources", len(m.Resources))
	}
	all, mc, err := m.ApplyMethod(probe.Condition{Until: probe.UntilAll})
	if err != nil || mc.Changed() || len(all.Resources) != 7 {
		t.Errorf("until all: %d resources, %+v, %v; want the page as recorded", len(all.Resources), mc, err)
	}
}

func TestUntilOnloadRefusesARecordingWithoutOnload(t *testing.T) {
	m := importFile(t, noOnloadHAR)
	_, _, err := m.ApplyMethod(probe.Condition{Until: probe.UntilOnload})
	if err == nil || !strings.Contains(err.Error(), "no onload") || !strings.Contains(err.Error(), "until = all") {
		t.Fatalf("err %v, want a refusal naming the missing onload and the way out", err)
	}
	if _, _, err := m.ApplyMethod(probe.Condition{Until: probe.UntilAll}); err != nil {
		t.Errorf("until all: %v", err)
	}
}

func TestUntilDoesNotApplyToGeneratedPages(t *testing.T) {
	m, err := Generate("pageC", 0, 1, ShardEqual)
	if err != nil {
		t.Fatal(err)
	}
	out, mc, err := m.ApplyMethod(probe.Condition{Until: probe.UntilOnload})
	if err != nil || mc.Changed() || len(out.Resources) != len(m.Resources) {
		t.Errorf("generated page under until onload: %+v, %v", mc, err)
	}
	for _, tc := range []struct{ spec, until, want string }{
		{"pageA", "", ""}, {"pageA", probe.UntilAll, ""}, {"generic:n=5", probe.UntilOnload, ""},
		{"har:" + onloadHAR, "", probe.UntilOnload}, {"har:" + onloadHAR, probe.UntilAll, probe.UntilAll},
		{"har:" + noOnloadHAR, "", probe.UntilAll}, // the fallback, written into the condition
		{"har:" + syntheticHAR + "#page_1", "", probe.UntilOnload},
	} {
		if got, err := UntilFor(tc.spec, tc.until); err != nil || got != tc.want {
			t.Errorf("UntilFor(%q, %q) = %q, %v; want %q", tc.spec, tc.until, got, err, tc.want)
		}
	}
	_, err = UntilFor("har:"+noOnloadHAR, probe.UntilOnload)
	if err == nil || !strings.Contains(err.Error(), "set until = all") {
		t.Errorf("until onload on a recording without one: %v, want a refusal with the way out", err)
	}
}

func TestComputeScalesOrDropsDelays(t *testing.T) {
	m, err := Generate("youtube", 0, 1, ShardEqual)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		compute string
		scale   float64
	}{{"x2", 2}, {"x0.5", 0.5}, {probe.ComputeNone, 0}} {
		out, mc, err := m.ApplyMethod(probe.Condition{Compute: tc.compute})
		if err != nil {
			t.Fatal(err)
		}
		if mc.Scaled == 0 {
			t.Errorf("compute %s changed no delay", tc.compute)
		}
		for i, r := range m.Resources {
			want := time.Duration(float64(r.Discovery.Delay) * tc.scale).Round(time.Microsecond)
			if got := out.Resources[i].Discovery.Delay; got != want {
				t.Errorf("compute %s: resource %d delay %v, want %v", tc.compute, i, got, want)
			}
		}
		if err := out.Validate(); err != nil {
			t.Errorf("compute %s: %v", tc.compute, err)
		}
	}
	out, mc, _ := m.ApplyMethod(probe.Condition{})
	if mc.Changed() || out.Resources[len(out.Resources)-1].Discovery != m.Resources[len(m.Resources)-1].Discovery {
		t.Errorf("compute recorded changed the page: %+v", mc)
	}
}

func TestComputeReachesTheRecordedScripts(t *testing.T) {
	m := importFile(t, onloadHAR)
	out, _, err := m.ApplyMethod(probe.Condition{Compute: probe.ComputeNone})
	if err != nil {
		t.Fatal(err)
	}
	js := 2 // app.js requests photo.jpg 60 ms after it ran
	before, _ := m.Content(js)
	after, _ := out.Content(js)
	if !bytes.Contains(before, []byte(`photo.jpg",60,`)) || !bytes.Contains(after, []byte(`photo.jpg",0,`)) {
		t.Errorf("the script's timers do not follow compute none:\nbefore %q\nafter %q", before[:200], after[:200])
	}
}

func TestDepsFlatReferencesEverythingAtTheTop(t *testing.T) {
	for _, m := range []*Manifest{mustGenerate(t, "youm7"), importFile(t, syntheticHAR), importFile(t, onloadHAR)} {
		out, mc, err := m.ApplyMethod(probe.Condition{Deps: probe.DepsFlat})
		if err != nil {
			t.Fatalf("%s: %v", m.Name, err)
		}
		doc := out.mainDocument()
		html, err := out.Content(doc)
		if err != nil {
			t.Fatal(err)
		}
		last := 0
		for i, r := range out.Resources {
			if i == doc || r.Discovery.Kind == KindRoot || r.Discovery.Kind == KindRedirect {
				continue
			}
			if r.Parent != doc || r.Discovery.Kind != KindRef || r.Discovery.Delay != 0 {
				t.Fatalf("%s: resource %d has parent %d, discovery %+v; want a reference in document %d", m.Name, i, r.Parent, r.Discovery, doc)
			}
			url := strings.ReplaceAll(out.RefURL(i), "&", "&amp;") // as HTML writes it
			if off := r.Discovery.Offset; !bytes.HasPrefix(html[off:], []byte(url)) || off < last {
				t.Fatalf("%s: resource %d's URL %s is not at offset %d after the previous one", m.Name, i, url, off)
			}
			last = r.Discovery.Offset
		}
		if mc.Flattened == 0 || len(out.Resources) != len(m.Resources) {
			t.Errorf("%s: flattened %d of %d", m.Name, mc.Flattened, len(m.Resources))
		}
		if err := out.Validate(); err != nil {
			t.Errorf("%s: %v", m.Name, err)
		}
	}
}

func mustGenerate(t *testing.T, name string) *Manifest {
	t.Helper()
	m, err := Generate(name, 0, 1, ShardEqual)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestUntilForReadsAnImportedManifest(t *testing.T) {
	for file, want := range map[string]string{onloadHAR: probe.UntilOnload, noOnloadHAR: probe.UntilAll} {
		dir := t.TempDir() + "/site"
		if _, err := ImportSite(file, dir, ImportOptions{}); err != nil {
			t.Fatal(err)
		}
		if got, err := UntilFor(dir+"/manifest.json", ""); err != nil || got != want {
			t.Errorf("%s imported: UntilFor = %q, %v; want %q", file, got, err, want)
		}
	}
}

// redirectsHAR begins with an http->https upgrade of the document, has an
// upgraded image and requests a.js twice.
const redirectsHAR = "testdata/redirects.har"

func TestImportReplaysUpgradesAndRepeats(t *testing.T) {
	m, rep, err := ImportHARFile(redirectsHAR, ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Upgrades != 2 || rep.Repeats != 2 || len(m.Resources) != 8 {
		t.Fatalf("upgrades %d, repeats %d, resources %d; want 2, 2 and all 8 entries", rep.Upgrades, rep.Repeats, len(m.Resources))
	}
	ad := byURL(t, m, "https://ads.redir.test/r")
	if c := m.RedirectChild(ad.ID); c < 0 || m.URL(c) != "https://cdn.redir.test/i.png?spdylab-repeat=1" {
		t.Errorf("the ad redirect leads to resource %d, want the image's repeat", c)
	}
	root := m.Root()
	if root.Replay != ReplayUpgrade || root.Query != MarkerUpgrade || root.Status != 301 {
		t.Errorf("root %+v: want the recorded 301 at its https URL with the upgrade marker", root)
	}
	if doc := m.RedirectChild(0); doc < 0 || m.URL(doc) != "https://www.redir.test/" {
		t.Errorf("the upgrade redirects to resource %d, want the document", doc)
	}
	if r := byURL(t, m, "https://www.redir.test/a.js?spdylab-repeat=1"); r.Replay != ReplayRepeat {
		t.Errorf("the second a.js is marked %q", r.Replay)
	}
}

func TestRedirectsDropLeavesUpgradesAndRepeatsOut(t *testing.T) {
	m := importFile(t, redirectsHAR)
	out, mc, err := m.ApplyMethod(probe.Condition{Redirects: probe.RedirectsDrop})
	if err != nil {
		t.Fatal(err)
	}
	if mc.Dropped != 5 || len(out.Resources) != 3 {
		t.Fatalf("dropped %d, kept %d; want the 2 upgrades, the 2 repeats and the redirect to one out, 3 kept", mc.Dropped, len(out.Resources))
	}
	if out.URL(0) != "https://www.redir.test/" || out.Root().Discovery.Kind != KindRoot || out.Root().Parent != -1 {
		t.Errorf("root %s %+v: want the upgraded document as the root", out.URL(0), out.Root().Discovery)
	}
	for i, r := range out.Resources {
		if r.Replay != "" || strings.Contains(r.Query, "spdylab-") {
			t.Errorf("resource %d (%s) still replays %q", i, out.URL(i), r.Replay)
		}
	}
	if img := byURL(t, out, "https://cdn.redir.test/i.png"); img.Parent != 0 || img.Discovery.Kind != KindRef {
		t.Errorf("the image took its upgrade's place? parent %d, %+v", img.Parent, img.Discovery)
	}
	if err := out.Validate(); err != nil {
		t.Fatal(err)
	}
	if all, mc, _ := m.ApplyMethod(probe.Condition{Redirects: probe.RedirectsReplay}); mc.Changed() || len(all.Resources) != 8 {
		t.Errorf("redirects replay changed the page: %+v", mc)
	}
	for spec, want := range map[string]string{"pageA": "", "har:" + redirectsHAR: probe.RedirectsReplay} {
		if got := RedirectsFor(spec, ""); got != want {
			t.Errorf("RedirectsFor(%q) = %q, want %q", spec, got, want)
		}
	}
}

// A redirect requested before onload whose target was requested after it
// (as a 2017 news front page's 302 was) goes with its target, the whole
// chain, so the page keeps no redirect without a target.
func TestUntilOnloadCutsARedirectChainWithItsTarget(t *testing.T) {
	m := importFile(t, onloadHAR)
	script := 2 // app.js, before onload
	add := func(parent int, status int, startMs float64, d Discovery) int {
		r := m.Resources[5] // a late image as a template
		r.ID, r.Parent, r.Status, r.StartMs, r.Discovery = len(m.Resources), parent, status, startMs, d
		r.Path = fmt.Sprintf("/hop%d.gif", r.ID)
		r.File = fmt.Sprintf("/_r/%d", r.ID)
		m.Resources = append(m.Resources, r)
		return r.ID
	}
	first := add(script, 302, 450, Discovery{Kind: KindOnload, Delay: 400 * time.Millisecond})
	second := add(first, 301, 480, Discovery{Kind: KindRedirect})
	add(second, 0, 520, Discovery{Kind: KindRedirect})
	if err := m.Validate(); err != nil {
		t.Fatalf("the built page is not valid: %v", err)
	}
	out, mc, err := m.ApplyMethod(probe.Condition{Until: probe.UntilOnload, Redirects: probe.RedirectsReplay})
	if err != nil {
		t.Fatalf("until onload, redirects replay: %v", err)
	}
	for _, r := range out.Resources {
		if strings.HasPrefix(r.Path, "/hop") {
			t.Errorf("kept %s (status %d, requested at %v ms) of a chain whose target came after onload", r.Path, r.Status, r.StartMs)
		}
	}
	if mc.AfterOnload != 5 || len(out.Resources) != 5 {
		t.Errorf("left out %d, kept %d; want the 2 late images and the 3 of the chain out, 5 kept", mc.AfterOnload, len(out.Resources))
	}
}
