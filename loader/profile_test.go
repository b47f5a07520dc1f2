package loader

import (
	"context"
	"testing"

	"github.com/spdylab/spdylab/har"
	"github.com/spdylab/spdylab/page"
	"github.com/spdylab/spdylab/probe"
)

func headerValue(hs []har.NameValue, name string) string {
	for _, h := range hs {
		if h.Name == name {
			return h.Value
		}
	}
	return ""
}

// TestProfileRequestHeaders loads over HTTP/1.1 (exact header bytes) with
// each profile: Chrome 16's image requests are about 365 bytes, a modern
// Chromium's about 550 with sec-fetch-* and client hints.
func TestProfileRequestHeaders(t *testing.T) {
	st := newSite(t, "generic:n=20,mean=2k,depth=1", 2)
	target, _ := goServers(t, st, []string{"http/1.1"}, nil)
	sizes := map[string][2]int64{probe.ProfileChrome16: {300, 420}, probe.ProfileChromiumModern: {500, 650}}
	for profile, want := range sizes {
		o := Options{Proto: probe.ProtoHTTPS, TLSVersion: "1.3"}
		if err := ApplyProfile(&o, profile, ""); err != nil {
			t.Fatal(err)
		}
		res, err := Load(context.Background(), target, o)
		if err != nil {
			t.Fatalf("%s: %v", profile, err)
		}
		h := checkAgainstManifest(t, st, res)
		root := st.m.Resources[0].Host
		images := 0
		for _, e := range h.Log.Entries {
			r := st.m.Resources[*e.ResourceID]
			if r.Type != page.TypeImage {
				continue
			}
			images++
			if n := e.Request.HeadersSize; n < want[0] || n > want[1] {
				t.Errorf("%s: image request of %d header bytes, want %d..%d", profile, n, want[0], want[1])
			}
			site := headerValue(e.Request.Headers, "Sec-Fetch-Site")
			switch {
			case profile == probe.ProfileChrome16 && site != "":
				t.Errorf("chrome16 sends Sec-Fetch-Site %q", site)
			case profile == probe.ProfileChromiumModern && r.Host == root && site != "same-origin",
				profile == probe.ProfileChromiumModern && r.Host != root && site != "same-site":
				t.Errorf("%s on %s (document on %s): Sec-Fetch-Site %q", r.Path, r.Host, root, site)
			}
		}
		if images == 0 {
			t.Fatal("the page has no images")
		}
	}
	if err := ApplyProfile(&Options{}, "netscape4", ""); err == nil {
		t.Error("unknown profile accepted")
	}
}

// The receive windows: the condition's initial window wins, then the
// profile's, then the protocol's default; the session window is at least
// 10 MiB and at least the stream window.
func TestReceiveWindows(t *testing.T) {
	for _, tc := range []struct {
		profile              string
		initial              int
		wantStream, wantSess int
	}{
		{probe.ProfileChrome16, 0, 65535, 10 << 20},
		{probe.ProfileChrome16, 1 << 20, 1 << 20, 10 << 20},
		{probe.ProfileChrome16, 32 << 20, 32 << 20, 32 << 20},
		{probe.ProfileChromiumModern, 0, 6 << 20, 15 << 20},
		{probe.ProfileChromiumModern, 16384, 16384, 10 << 20},
	} {
		o := Options{InitialWindow: tc.initial}
		if err := ApplyProfile(&o, tc.profile, ""); err != nil {
			t.Fatal(err)
		}
		if s, sess := o.windows(65535); s != tc.wantStream || sess != tc.wantSess {
			t.Errorf("%s, initial window %d: windows %d/%d, want %d/%d", tc.profile, tc.initial, s, sess, tc.wantStream, tc.wantSess)
		}
	}
}

// TestStoredLoadsGetTheLoadersRendererCosts: critpath explains a stored
// load again with probe.LoaderRendererCosts, so it must name what
// ApplyProfile gave the load for every profile, override and compute rule.
func TestStoredLoadsGetTheLoadersRendererCosts(t *testing.T) {
	for _, c := range []probe.Condition{
		{},
		{BrowserProfile: probe.ProfileChromiumModern},
		{BrowserProfile: probe.ProfileChromiumModern, RendererCosts: "35ms/2ms"},
		{BrowserProfile: probe.ProfileChromiumModern, Compute: probe.ComputeNone},
		{RendererCosts: "5ms/1ms"},
	} {
		var o Options
		if err := ApplyProfile(&o, c.BrowserProfile, c.RendererCostsSetting()); err != nil {
			t.Fatal(err)
		}
		commit, dispatch, err := probe.LoaderRendererCosts(c)
		if err != nil {
			t.Fatal(err)
		}
		if commit != o.Renderer.CommitDelay || dispatch != o.Renderer.DispatchCost {
			t.Errorf("%+v: stored loads are explained with %v/%v, the loader ran with %v/%v", c, commit, dispatch, o.Renderer.CommitDelay, o.Renderer.DispatchCost)
		}
	}
	if c, d, _ := probe.LoaderRendererCosts(probe.Condition{Client: probe.ClientChromium}); c != 0 || d != 0 {
		t.Errorf("Chromium's loads are explained with modelled renderer costs %v/%v; its main thread is its own", c, d)
	}
}
