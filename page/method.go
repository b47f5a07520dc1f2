package page

import (
	"fmt"
	"sort"
	"time"

	"github.com/spdylab/spdylab/probe"
)

// This file applies a condition's page methodology (probe/method.go) to a
// manifest: where a recording's load ends (until), how much of the recorded
// computation it keeps (compute) and whether it keeps its dependencies
// (deps). The harness applies it to the page it serves and loads, so the
// site's bytes (the onload scripts' delays, the flat document's references)
// and the loader's discovery agree.

// MethodChanges reports whether c's methodology may change a page (its
// bytes or its tree); otherwise ApplyMethod returns the page as it is.
func MethodChanges(c probe.Condition) bool {
	return c.Compute != "" || c.Deps != "" || c.Until == probe.UntilOnload || c.Redirects == probe.RedirectsDrop
}

// IsRecording reports a page imported from a recording (page import, har:).
func (m *Manifest) IsRecording() bool { return m.Source != "" }

// MethodChange says what ApplyMethod changed, for the bench's notes.
type MethodChange struct {
	AfterOnload int // resources left out: first requested after the recorded onload
	Dropped     int // upgrades and repeats left out (redirects drop)
	Scaled      int // delays scaled or dropped (compute)
	Flattened   int // resources moved to the top of the main document (deps flat)
	Grown       int // documents grown by a few bytes: their scripts' timers got longer numbers
}

// Changed reports whether the page differs from the one given.
func (mc MethodChange) Changed() bool { return mc.AfterOnload+mc.Dropped+mc.Scaled+mc.Flattened > 0 }

// ApplyMethod returns a copy of m under c's methodology (until, redirects,
// compute, then deps) and what changed. A recording without an onload
// under until onload is refused with the way out; a page that is not a
// recording has no onload and until leaves it as it is.
func (m *Manifest) ApplyMethod(c probe.Condition) (*Manifest, MethodChange, error) {
	var mc MethodChange
	out := m.Clone()
	if c.Until == probe.UntilOnload && m.IsRecording() {
		if m.OnLoadMs <= 0 {
			return nil, mc, fmt.Errorf("page %s: until %s, but its recording has no onload (pageTimings.onLoad; pages imported before spdylab kept it need importing again): set until = %s", m.Name, probe.UntilOnload, probe.UntilAll)
		}
		out, mc.AfterOnload = out.cutAfter(m.OnLoadMs)
	}
	if c.Redirects == probe.RedirectsDrop && m.IsRecording() {
		var err error
		if out, mc.Dropped, err = out.dropReplays(); err != nil {
			return nil, mc, err
		}
	}
	scale, err := probe.ComputeScale(c.Compute)
	if err != nil {
		return nil, mc, err
	}
	if scale != 1 {
		mc.Scaled = out.scaleDelays(scale)
	}
	if c.Deps == probe.DepsFlat {
		if mc.Flattened, err = out.flatten(); err != nil {
			return nil, mc, err
		}
	}
	if mc.Changed() {
		out.reflowRefs()
		mc.Grown = out.growToFit()
		if err := out.Validate(); err != nil {
			return nil, mc, fmt.Errorf("page %s under %s: %w", m.Name, describeMethod(c), err)
		}
	}
	return out, mc, nil
}

// cutAfter leaves out every resource the recording first requested after
// onloadMs (relative to the root's request) and everything below it.
//
// A redirect chain is one fetch that ends at its last target, so it goes
// with that target: a chain whose target is cut is cut from its first
// redirect, whenever the redirects were requested. A redirect without its
// target would answer with a Location nobody serves. The root's chain is
// the page itself and is always kept whole.
func (m *Manifest) cutAfter(onloadMs float64) (*Manifest, int) {
	keep := make([]bool, len(m.Resources))
	for i := 0; i >= 0 && i < len(keep) && !keep[i]; i = m.RedirectChild(i) {
		keep[i] = true
		if !m.Resources[i].IsRedirect() {
			break
		}
	}
	for i, r := range m.Resources {
		// Parents come before their children in a recording (import's
		// rule), so a parent's verdict is known.
		keep[i] = keep[i] || (r.StartMs <= onloadMs && r.Parent >= 0 && r.Parent < i && keep[r.Parent])
	}
	m.dropDeadRedirects(keep)
	// What hung below a redirect that went goes too.
	for i, r := range m.Resources {
		if keep[i] && r.Parent >= 0 && !keep[r.Parent] {
			keep[i] = false
		}
	}
	return m.keepOnly(keep)
}

// keepOnly keeps the resources keep says, in their order.
func (m *Manifest) keepOnly(keep []bool) (*Manifest, int) {
	var order []int
	for i := range m.Resources {
		if keep[i] {
			order = append(order, i)
		}
	}
	return m.rebuild(order)
}

// rebuild keeps the resources order lists, in that order, renumbering
// them (IDs are indices) and their parents (a parent must be kept), and
// lists the hosts still used, in their order.
func (m *Manifest) rebuild(order []int) (*Manifest, int) {
	newID := make([]int, len(m.Resources))
	for i := range newID {
		newID[i] = -1
	}
	for n, i := range order {
		newID[i] = n
	}
	rs := make([]Resource, 0, len(order))
	for _, i := range order {
		r := m.Resources[i]
		r.ID = newID[i]
		if r.Parent >= 0 {
			r.Parent = newID[r.Parent]
		}
		rs = append(rs, r)
	}
	dropped := len(m.Resources) - len(rs)
	used := map[string]bool{}
	for _, r := range rs {
		used[r.Host] = true
	}
	var hosts []string
	for _, h := range m.Hosts {
		if used[h] {
			hosts = append(hosts, h)
		}
	}
	m.Resources, m.Hosts = rs, hosts
	// A host no resource uses any more (only requested after onload, say)
	// takes its recorded connect time with it: HostConnectMs names only
	// the manifest's hosts.
	for h := range m.HostConnectMs {
		if !used[h] {
			delete(m.HostConnectMs, h)
		}
	}
	return m, dropped
}

// scaleDelays multiplies every resource's discovery delay by f and
// returns how many changed.
func (m *Manifest) scaleDelays(f float64) int {
	n := 0
	for i := range m.Resources {
		d := &m.Resources[i].Discovery
		if d.Delay == 0 {
			continue
		}
		d.Delay = time.Duration(float64(d.Delay) * f).Round(time.Microsecond)
		n++
	}
	return n
}

// mainDocument is the HTML document the root's redirect chain ends at.
func (m *Manifest) mainDocument() int {
	id := 0
	for seen := 0; seen < len(m.Resources); seen++ {
		next := m.RedirectChild(id)
		if next < 0 {
			break
		}
		id = next
	}
	return id
}

// flatten makes every resource a reference at the top of the main
// document, in ID (discovery) order, so a browser's scanner finds them all
// in its first bytes (the first TCP segment holds about a dozen). Redirect
// targets stay under their 3xx: the redirect's round trip is the
// resource's own, not a dependency. The document grows when its size
// leaves no room for the references' markup.
func (m *Manifest) flatten() (int, error) {
	doc := m.mainDocument()
	var moved []int
	for i := range m.Resources {
		r := &m.Resources[i]
		if i == doc || r.Discovery.Kind == KindRoot || r.Discovery.Kind == KindRedirect {
			continue
		}
		r.Parent = doc
		r.Discovery = Discovery{Kind: KindRef}
		moved = append(moved, i)
	}
	pre, closing := m.documentFrame(doc)
	cur := len(pre)
	for _, c := range moved {
		tag, url := m.refMarkup(TypeHTML, c)
		m.Resources[c].Discovery.Offset = cur + len(tag.prefix)
		cur += len(tag.prefix) + len(url) + len(tag.suffix)
	}
	if need := cur + len(closing); m.Resources[doc].Size < need {
		m.Resources[doc].Size = need
	}
	return len(moved), nil
}

// dropReplays leaves out the recording's replayed upgrades and repeats
// (harreplay.go), as imports before they were replayed did: the target of
// an upgrade, or of a repeated redirect when the target is no repeat,
// takes the redirect's place (the root's, when the page began with one);
// other repeats go with what hangs off them, and so does a redirect to a
// repeat (dropDeadRedirects).
func (m *Manifest) dropReplays() (*Manifest, int, error) {
	keep := make([]bool, len(m.Resources))
	root := 0
	for i := range m.Resources {
		r := &m.Resources[i]
		placed := r.Parent < 0 || keep[r.Parent]
		keep[i] = r.Replay != ReplayRepeat && placed
		if r.Replay == "" || !r.IsRedirect() || !placed {
			continue
		}
		// An upgrade, or a repeated redirect to a new URL, leaves its
		// place to its target, which older imports placed there.
		t := m.RedirectChild(i)
		if t < 0 || (r.Replay == ReplayRepeat && m.Resources[t].Replay == ReplayRepeat) {
			continue
		}
		keep[i] = false
		m.Resources[t].Parent, m.Resources[t].Discovery = r.Parent, r.Discovery
		r.Parent, r.Discovery = i, Discovery{} // detached: no longer its parent's redirect child
		if i == root {
			root = t
		}
	}
	m.dropDeadRedirects(keep)
	if !keep[root] {
		return nil, 0, fmt.Errorf("page %s: redirects %s leaves nothing: the root's redirect chain ends in a repeat", m.Name, probe.RedirectsDrop)
	}
	order := []int{root}
	for i := range m.Resources {
		if keep[i] && i != root {
			order = append(order, i)
		}
	}
	out, n := m.rebuild(order)
	return out, n, nil
}

// reflowRefs moves each reference that overlaps the one before it in its
// parent (a redirect's target took its place with a longer URL) to the
// first byte after it, keeping the order and every offset that fits.
func (m *Manifest) reflowRefs() {
	for p := range m.Resources {
		pt := m.Resources[p].Type
		if pt != TypeHTML && pt != TypeCSS {
			continue
		}
		var refs []int
		for _, c := range m.Children(p) {
			if m.Resources[c].Discovery.Kind == KindRef {
				refs = append(refs, c)
			}
		}
		sort.SliceStable(refs, func(a, b int) bool {
			return m.Resources[refs[a]].Discovery.Offset < m.Resources[refs[b]].Discovery.Offset
		})
		pre, _ := m.documentFrame(p)
		cur := len(pre)
		for _, c := range refs {
			tag, url := m.refMarkup(pt, c)
			d := &m.Resources[c].Discovery
			d.Offset = max(d.Offset, cur+len(tag.prefix))
			cur = d.Offset + len(url) + len(tag.suffix)
		}
	}
}

// growToFit grows each document (html, css, js) whose markup no longer fits
// its size (a scaled timer is written with more digits) to the size that
// does, and returns how many grew.
func (m *Manifest) growToFit() int {
	const roomy = 1 << 30
	n := 0
	for i := range m.Resources {
		r := &m.Resources[i]
		if _, err := m.layout(i); err == nil {
			continue
		}
		size := r.Size
		r.Size = roomy
		p, err := m.layout(i)
		r.Size = size
		if err != nil || p == nil {
			continue // not a size problem: Validate names it
		}
		r.Size = max(size, roomy-p.tail)
		n++
	}
	return n
}

// describeMethod names a condition's methodology for an error message.
func describeMethod(c probe.Condition) string {
	return fmt.Sprintf("compute %q, deps %q, until %q, redirects %q", c.Compute, c.Deps, c.Until, c.Redirects)
}

// dropDeadRedirects leaves out each redirect whose target is left out (a
// redirect to a repeat, or to a resource requested after onload), then the
// redirects that led to it.
func (m *Manifest) dropDeadRedirects(keep []bool) {
	for changed := true; changed; {
		changed = false
		for i := range m.Resources {
			if !keep[i] || !m.Resources[i].IsRedirect() {
				continue
			}
			if t := m.RedirectChild(i); t < 0 || !keep[t] {
				keep[i], changed = false, true
			}
		}
	}
}
