package page

import (
	"net/url"
	"strconv"
	"strings"

	"github.com/spdylab/spdylab/har"
)

// recordedLCP is the resource of the recording's largest contentful paint
// element, matched by host, port and request target (replays are https
// whatever the recorded scheme), and a note when the recording has an LCP
// without a replayed resource for it. Nothing recorded: nil, no note.
func recordedLCP(log *har.RecordedLog, pageID string, m *Manifest) (*int, string) {
	for _, p := range log.Pages {
		if p.ID != pageID {
			continue
		}
		raw := strings.TrimSpace(string(p.PageTimings.LCPURL))
		if raw == "" {
			if p.PageTimings.LCP.OK {
				return nil, "lcp: the recorded largest contentful paint is a text block: no resource"
			}
			return nil, ""
		}
		if id, ok := resourceAt(m, raw); ok {
			return &id, ""
		}
		return nil, "lcp: the recorded largest contentful paint's image " + raw + " is not among the replayed resources"
	}
	return nil, ""
}

// resourceAt finds the resource recorded at rawURL.
func resourceAt(m *Manifest, rawURL string) (int, bool) {
	u, err := url.Parse(rawURL)
	if err != nil || u.Host == "" {
		return 0, false
	}
	host, port := strings.ToLower(u.Hostname()), u.Port()
	if (u.Scheme == "https" && port == "443") || (u.Scheme == "http" && port == "80") {
		port = ""
	}
	target := u.EscapedPath()
	if target == "" {
		target = "/"
	}
	if u.RawQuery != "" {
		target += "?" + u.RawQuery
	}
	for _, r := range m.Resources {
		rPort := ""
		if r.Port != 0 {
			rPort = strconv.Itoa(r.Port)
		}
		if r.Host == host && rPort == port && r.Target() == target {
			return r.ID, true
		}
	}
	return 0, false
}
