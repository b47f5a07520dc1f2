package page

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"sync"

	"github.com/spdylab/spdylab/har"
	"github.com/spdylab/spdylab/probe"
)

// ResolveMethod writes into c the methodology rules that depend on its
// page (UntilFor, RedirectsFor), so the stored condition says which
// applied. Study conditions, `spdylab load` and the harness call it before
// probe.Normalize.
func ResolveMethod(c probe.Condition) (probe.Condition, error) {
	until, err := UntilFor(c.Page, c.Until)
	if err != nil {
		return c, err
	}
	c.Until, c.Redirects = until, RedirectsFor(c.Page, c.Redirects)
	return c, nil
}

// RedirectsFor is the redirects rule a condition on page spec stores: ""
// for a generated page (it has no recorded redirects), else the one asked
// for, replay when none was. An empty redirects on a recording is a
// condition stored before the rule existed, when upgrades and repeats were
// dropped.
func RedirectsFor(spec, redirects string) string {
	switch {
	case !HasOwnHosts(spec):
		return ""
	case redirects == "":
		return probe.RedirectsReplay
	}
	return redirects
}

// UntilFor is the until rule a condition on page spec stores, so the
// stored condition says which rule applied:
//   - a generated page has no onload: "" whatever was asked;
//   - a page that may be a recording (HasOwnHosts: har: and manifest
//     files) stores its rule explicitly: the one asked for, or, when none
//     was (""), onload if the page has a recorded onload and all if it has
//     none (the fallback: a page without an onload loads all of it);
//   - onload asked for on a page without one is refused with the way out.
//
// An empty until on a recording is thus a condition stored before the rule
// existed, when all was the only one. The page's onload is read once per
// spec and process.
func UntilFor(spec, until string) (string, error) {
	if !HasOwnHosts(spec) {
		return "", nil
	}
	if until == probe.UntilAll {
		return until, nil
	}
	has, err := hasOnload(spec)
	switch {
	case err != nil:
		return "", err
	case has:
		return probe.UntilOnload, nil
	case until == probe.UntilOnload:
		return "", fmt.Errorf("page %s: until %s, but it has no recorded onload (pageTimings.onLoad; pages imported before spdylab kept it need importing again): set until = %s", spec, probe.UntilOnload, probe.UntilAll)
	}
	return probe.UntilAll, nil
}

var onloadSeen sync.Map // spec -> bool

// hasOnload reports whether the page at spec (har: or a manifest file)
// has a recorded onload.
func hasOnload(spec string) (bool, error) {
	if v, ok := onloadSeen.Load(spec); ok {
		return v.(bool), nil
	}
	var has bool
	if strings.HasPrefix(spec, HARPrefix) {
		file, pageID, err := splitHARSpec(spec)
		if err == nil {
			has, err = harHasOnload(file, pageID)
		}
		if err != nil {
			return false, err
		}
	} else {
		var err error
		if has, err = manifestHasOnload(spec); err != nil {
			return false, err
		}
	}
	onloadSeen.Store(spec, has)
	return has, nil
}

// harHasOnload reads only the pages of a HAR file (harPageHasOnload).
func harHasOnload(file, pageID string) (bool, error) {
	b, err := ReadHARFile(file)
	if err != nil {
		return false, err
	}
	has, err := harPageHasOnload(b, pageID)
	if err != nil {
		return false, fmt.Errorf("%s: %w", file, err)
	}
	return has, nil
}

// harPageHasOnload reports whether the HAR's page pageID (or its only
// page) has a positive onLoad.
func harPageHasOnload(b []byte, pageID string) (bool, error) {
	var h struct {
		Log struct {
			Pages []har.RecordedPage `json:"pages"`
		} `json:"log"`
	}
	if err := json.Unmarshal(b, &h); err != nil {
		return false, fmt.Errorf("malformed HAR: %v", err)
	}
	for _, p := range h.Log.Pages {
		if (pageID == "" && len(h.Log.Pages) == 1) || p.ID == pageID {
			return p.PageTimings.OnLoad.OK && p.PageTimings.OnLoad.V > 0, nil
		}
	}
	return false, nil
}

// manifestHasOnload reads only a manifest's source and onload: the page is
// validated where it is opened, and its bench reports what is wrong with it.
func manifestHasOnload(spec string) (bool, error) {
	file, err := folderManifest(spec)
	if err != nil {
		return false, err
	}
	b, err := os.ReadFile(file)
	if err != nil {
		return false, err
	}
	var m struct {
		Source   string  `json:"source"`
		OnLoadMs float64 `json:"onload_ms"`
	}
	if json.Unmarshal(b, &m) != nil {
		return false, nil // not a manifest: its bench says why
	}
	return m.Source != "" && m.OnLoadMs > 0, nil
}
