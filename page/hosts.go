package page

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/net/publicsuffix"

	"github.com/spdylab/spdylab/probe"
)

// This file copies a page's hosts into the lab the way a condition's host
// methodology says (probe.Condition.Hosts, FirstParty, Deploy): every
// resource on one host (a static copy), or the page's own hosts merged and
// third parties kept apart; and it tells first parties from third parties.
// The bodies follow the manifest (Content writes each reference as
// RefURL), so rewriting the manifest rewrites the HTML and CSS the
// clients parse, consistently.

// MovedPrefix is where a moved host's paths go on the host they move to:
// /_h/HOST/PATH (HOST-PORT for a recorded port), so paths of several
// hosts ("/", "/favicon.ico") stay apart, as a static copy's folders do.
const MovedPrefix = "/_h/"

// ResolveHosts checks c's host methods against a page spec before
// anything is opened, and returns c with its stated fallback. A generated
// page (a built-in name or generic:) is on the lab's shard hosts s1..sN,
// the shards of one site: hosts first-party and host_rtt recorded are
// refused there with the reason; deploy first-party without a first_party
// list falls back to every shard being first-party (they are the site's
// own servers), written into the condition as first_party = the lab's
// domain, so the stored condition and the report say so. Manifest files
// and recordings are checked when opened (ApplyHosts, FirstParty).
func ResolveHosts(spec string, c probe.Condition) (probe.Condition, error) {
	if !isGeneratedSpec(spec) {
		return c, nil
	}
	if c.HostRTT == probe.HostRTTRecorded {
		return c, fmt.Errorf("host_rtt %s cannot apply to page %s: a generated page has no recorded connect times (use host_rtt %s, or a recorded page)",
			probe.HostRTTRecorded, spec, probe.HostRTTUniform)
	}
	if c.Deploy == probe.DeployFirstParty && c.FirstParty == "" {
		c.FirstParty = LabDomain()
	}
	return c, errLabHosts(spec, c)
}

// LabDomain is the domain of the lab's shard hosts (s1.spdylab.test ...).
func LabDomain() string {
	_, d, _ := strings.Cut(HostName(1), ".")
	return d
}

// isGeneratedSpec reports a built-in page name or a generic: spec.
func isGeneratedSpec(spec string) bool {
	return strings.HasPrefix(spec, GenericPrefix) || slices.Contains(Names(), spec)
}

// errLabHosts is the refusal of first-party methods on a page of shards
// (nil when c asks for none).
func errLabHosts(name string, c probe.Condition) error {
	switch {
	case c.Hosts == probe.HostsFirstParty:
		return fmt.Errorf("hosts %s cannot apply to page %s: its hosts s1..sN are shards of one site, not first and third parties (use hosts %s or %s, or a recorded page)",
			probe.HostsFirstParty, name, probe.HostsRecorded, probe.HostsOne)
	case c.Deploy == probe.DeployFirstParty && c.FirstParty == "":
		return fmt.Errorf("deploy %s cannot apply to page %s without a first_party list: its hosts s1..sN are shards of one site (name the shards that are first-party, e.g. first_party = %q, or use deploy %s)",
			probe.DeployFirstParty, name, LabDomain(), probe.DeployAll)
	}
	return nil
}

// onLabHosts reports whether every host of m is one of the lab's s1..sN.
func (m *Manifest) onLabHosts() bool {
	var lab []string
	for i := range probe.MaxShards {
		lab = append(lab, HostName(i+1))
	}
	for _, h := range m.Hosts {
		if !slices.Contains(lab, h) {
			return false
		}
	}
	return true
}

// FirstParty returns whether a host of m is first-party: the document's
// host always is; so is a host equal to or below one of domains, or, when
// domains is empty, one with the document's registrable domain (public
// suffix list). A page on the lab's shard hosts has no parties: error.
func (m *Manifest) FirstParty(domains []string, c probe.Condition) (func(host string) bool, error) {
	if m.onLabHosts() {
		if err := errLabHosts(m.Name, c); err != nil {
			return nil, err
		}
	}
	doc := m.Root().Host
	if len(domains) == 0 {
		domains = []string{registrableDomain(doc)}
	}
	return func(h string) bool {
		h = strings.ToLower(h)
		if h == strings.ToLower(doc) {
			return true
		}
		for _, d := range domains {
			if h == d || strings.HasSuffix(h, "."+d) {
				return true
			}
		}
		return false
	}, nil
}

// registrableDomain is host's eTLD+1, or host itself when it has none (a
// public suffix or a single label).
func registrableDomain(host string) string {
	d, err := publicsuffix.EffectiveTLDPlusOne(strings.ToLower(host))
	if err != nil {
		return strings.ToLower(host)
	}
	return d
}

// ThirdPartyHosts lists m's hosts that are not first-party (FirstParty),
// in m.Hosts order: under deploy first-party they keep HTTPS.
func (m *Manifest) ThirdPartyHosts(c probe.Condition) ([]string, error) {
	first, err := m.FirstParty(c.FirstPartyDomains(), c)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, h := range m.Hosts {
		if !first(h) {
			out = append(out, h)
		}
	}
	return out, nil
}

// ApplyHosts returns m with its hosts copied as c.Hosts says; m itself is
// not changed (recorded: m as it is). one: every resource moves onto the
// document's host; first-party: the first-party hosts (FirstParty) do.
// A recorded resource that moves keeps its request target under
// MovedPrefix; a generated one keeps its path (paths are unique across a
// generated page). References that grow (a third party's stylesheet
// naming a moved host) are laid out again; a document too small for them
// grows, and the manifest's notes say how much.
func ApplyHosts(m *Manifest, c probe.Condition) (*Manifest, error) {
	var moves func(string) bool
	switch c.HostsMode() {
	case probe.HostsRecorded:
		return m, nil
	case probe.HostsOne:
		moves = func(string) bool { return true }
	case probe.HostsFirstParty:
		first, err := m.FirstParty(c.FirstPartyDomains(), c)
		if err != nil {
			return nil, err
		}
		moves = first
	default:
		return nil, fmt.Errorf("unknown hosts mode %q (want %s)", c.Hosts, probe.OneOf(probe.HostModes))
	}
	out := m.Clone()
	root := out.Root()
	moved := map[string]bool{}
	for i := range out.Resources {
		r := &out.Resources[i]
		if (r.Host == root.Host && r.Port == root.Port) || !moves(r.Host) {
			continue
		}
		moved[r.Host] = true
		if r.File != "" { // recorded: hosts share paths
			tag := r.Host
			if r.Port != 0 {
				tag += "-" + strconv.Itoa(r.Port)
			}
			r.Path = MovedPrefix + tag + r.Path
		}
		r.Host, r.Port = root.Host, root.Port
	}
	out.Hosts = usedHosts(out)
	for h := range out.HostConnectMs {
		if !slices.Contains(out.Hosts, h) {
			delete(out.HostConnectMs, h) // merged: it is the document's host now
		}
	}
	grown, bytes := out.refitDocuments()
	out.Notes = append(out.Notes, fmt.Sprintf("hosts %s: %d host(s) moved onto %s (recorded paths under %sHOST/); %d document(s) grown by %d bytes to fit longer references",
		c.HostsMode(), len(moved), root.Host, MovedPrefix, grown, bytes))
	if err := out.Validate(); err != nil {
		return nil, fmt.Errorf("page %s with hosts %s: %w", m.Name, c.HostsMode(), err)
	}
	return out, nil
}

// usedHosts is m.Hosts without the hosts no resource is on any more.
func usedHosts(m *Manifest) []string {
	used := map[string]bool{}
	for _, r := range m.Resources {
		used[r.Host] = true
	}
	var out []string
	for _, h := range m.Hosts {
		if used[h] {
			out = append(out, h)
		}
	}
	return out
}

// refitDocuments lays every document's references out again in their
// order (fitRefs) after their URLs changed length, growing documents that
// no longer hold them; it returns how many grew and by how many bytes.
func (m *Manifest) refitDocuments() (grown int, bytes int64) {
	children := make([][]int, len(m.Resources))
	for i := range m.Resources {
		if p := m.Resources[i].Parent; p >= 0 {
			children[p] = append(children[p], i)
		}
	}
	for i := range m.Resources {
		r := &m.Resources[i]
		if r.Type != TypeHTML && r.Type != TypeCSS && r.Type != TypeJS {
			continue
		}
		var refs, onload []int
		for _, c := range children[i] {
			switch m.Resources[c].Discovery.Kind {
			case KindRef:
				refs = append(refs, c)
			case KindOnload:
				onload = append(onload, c)
			}
		}
		slices.SortStableFunc(refs, func(a, b int) int {
			return m.Resources[a].Discovery.Offset - m.Resources[b].Discovery.Offset
		})
		if need := m.fitRefs(i, refs, onload); need > r.Size {
			grown++
			bytes += int64(need - r.Size)
			r.Size = need
		}
	}
	return grown, bytes
}
