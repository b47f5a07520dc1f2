package probe

import (
	"fmt"
	"slices"
	"strings"
)

// This file owns a page's host methodology (Condition.Hosts, FirstParty,
// Deploy): how a recording's hosts are copied into the lab and which of
// them speak the protocol under test. The defaults are stored empty so
// conditions hashed before the fields existed keep their identity. What
// the modes do to a page is page.ApplyHosts's; which pages they can apply
// to is page.ResolveHosts's (study pages have shards, not parties).

// Host modes (Condition.Hosts).
const (
	// HostsRecorded keeps every host of the recording (the default).
	HostsRecorded = "recorded"
	// HostsOne puts every resource on the document's host: a static copy
	// of the page, as the early lab tests made.
	HostsOne = "one"
	// HostsFirstParty merges the page's own hosts (FirstPartyDomains)
	// into the document's host and keeps third parties apart.
	HostsFirstParty = "first-party"
)

// HostModes are the valid Condition.Hosts values ("" = HostsRecorded).
var HostModes = []string{HostsRecorded, HostsOne, HostsFirstParty}

// Deployments (Condition.Deploy): which hosts speak the protocol under test.
const (
	// DeployAll: every host speaks it (the default).
	DeployAll = "all"
	// DeployFirstParty: only the page's own hosts do; third parties keep
	// HTTPS (HTTP/1.1 over TLS, or plain HTTP/1.1 without TLS), as a site
	// that turns SPDY on cannot turn it on for its ad and analytics hosts.
	DeployFirstParty = "first-party"
)

// Deployments are the valid Condition.Deploy values ("" = DeployAll).
var Deployments = []string{DeployAll, DeployFirstParty}

// Host round trips (Condition.HostRTT).
const (
	// HostRTTUniform: every host at the link's rtt (the default).
	HostRTTUniform = "uniform"
	// HostRTTRecorded: each host of a recording further away by the
	// round trip its recorded connect time implies.
	HostRTTRecorded = "recorded"
)

// HostRTTs are the valid Condition.HostRTT values ("" = HostRTTUniform).
var HostRTTs = []string{HostRTTUniform, HostRTTRecorded}

// HostRTTHelp is the host_rtt factor's help: it states the rule.
const HostRTTHelp = "uniform (every host at rtt) or recorded: each host of a recording gets an extra round trip of its recorded TCP connect time " +
	"(the fastest of its HAR timings.connect minus ssl) minus the fastest host's, added on the server side of the link (rtt stays the access link's); " +
	"a host whose requests only reused connections gets the median of the recorded ones; needs an emulated link and a page imported with connect times"

// HostsHelp and DeployHelp are the factors' help, and say the rules.
const (
	HostsHelp = "the page's hosts: recorded (as in the recording), one (every resource on the document's host, a static copy: " +
		"other hosts' paths move under /_h/HOST/...) or first-party (the page's own hosts, see first_party, merged into the document's host; " +
		"third parties kept apart); first-party needs a page with host names of its own (a recording), not a study page's shards s1..sN"
	FirstPartyHelp = "the first-party domains of hosts and deploy first-party, comma-separated (e.g. \"example.com,examplecdn.net\"): " +
		"a host is first-party when it is the document's host, one of them or below one; empty = the registrable domain of the page's document (public suffix list)"
	DeployHelp = "which hosts speak the protocol under test: all, or first-party (the page's own hosts, see first_party; " +
		"third parties keep HTTPS, and their servers offer Chromium http/1.1 alone; on a study page every shard s1..sN is first-party " +
		"unless first_party names some, and the condition stores first_party = \"spdylab.test\")"
)

// HostsMode is the condition's host mode, the default spelled out.
func (c Condition) HostsMode() string {
	if c.Hosts == "" {
		return HostsRecorded
	}
	return c.Hosts
}

// DeployMode is the condition's deployment, the default spelled out.
func (c Condition) DeployMode() string {
	if c.Deploy == "" {
		return DeployAll
	}
	return c.Deploy
}

// FirstPartyDomains is the user's list of first-party domains (nil = the
// document's registrable domain, which the page decides).
func (c Condition) FirstPartyDomains() []string {
	if c.FirstParty == "" {
		return nil
	}
	return strings.Split(c.FirstParty, ",")
}

// normalizeHosts checks Hosts, FirstParty and Deploy and stores their
// defaults empty.
func normalizeHosts(c Condition) (Condition, error) {
	if c.Hosts == HostsRecorded {
		c.Hosts = ""
	}
	if c.Hosts != "" && !member(c.Hosts, HostModes) {
		return c, fmt.Errorf("unknown hosts mode %q (want %s)", c.Hosts, OneOf(HostModes))
	}
	if c.Deploy == DeployAll {
		c.Deploy = ""
	}
	if c.Deploy != "" && !member(c.Deploy, Deployments) {
		return c, fmt.Errorf("unknown deploy %q (want %s)", c.Deploy, OneOf(Deployments))
	}
	fp, err := CanonDomainList(c.FirstParty)
	if err != nil {
		return c, fmt.Errorf("first_party: %w", err)
	}
	c.FirstParty = fp
	if c.FirstParty != "" && c.Hosts != HostsFirstParty && c.Deploy != DeployFirstParty {
		return c, fmt.Errorf("first_party %q names the page's own domains for hosts %s or deploy %s, and neither is set: set one or drop first_party",
			c.FirstParty, HostsFirstParty, DeployFirstParty)
	}
	if c.HostRTT == HostRTTUniform {
		c.HostRTT = ""
	}
	if c.HostRTT != "" && !member(c.HostRTT, HostRTTs) {
		return c, fmt.Errorf("unknown host_rtt %q (want %s)", c.HostRTT, OneOf(HostRTTs))
	}
	if c.HostRTT == HostRTTRecorded && c.NoLink {
		return c, fmt.Errorf("host_rtt %s adds delays on the emulated link, and no_link has none: set host_rtt %s or drop no_link", HostRTTRecorded, HostRTTUniform)
	}
	if c.Hosts == HostsOne && c.Shards > 1 {
		return c, fmt.Errorf("hosts %s serves every resource from one host, so shards %d cannot spread it: set shards 1 (or hosts %s to keep the page's hosts)",
			HostsOne, c.Shards, HostsRecorded)
	}
	return c, nil
}

// CanonDomainList is a first_party value's one spelling: lower case,
// sorted, without repeats; each a DNS name (no scheme, port or path).
func CanonDomainList(v string) (string, error) {
	var out []string
	for _, d := range strings.Split(v, ",") {
		d = strings.TrimSuffix(strings.ToLower(strings.TrimSpace(d)), ".")
		if d == "" {
			continue
		}
		if err := checkDomainName(d); err != nil {
			return "", err
		}
		if !slices.Contains(out, d) {
			out = append(out, d)
		}
	}
	slices.Sort(out)
	return strings.Join(out, ","), nil
}

// checkDomainName accepts a DNS name of letters, digits, '-' and '.'.
func checkDomainName(d string) error {
	if len(d) > 253 {
		return fmt.Errorf("domain %q is longer than 253 bytes", d)
	}
	for _, label := range strings.Split(d, ".") {
		if label == "" || len(label) > 63 || label[0] == '-' || label[len(label)-1] == '-' {
			return fmt.Errorf("domain %q has an empty, too long or hyphen-edged label (want names like example.com)", d)
		}
		for i := 0; i < len(label); i++ {
			ch := label[i]
			if !(ch >= 'a' && ch <= 'z' || ch >= '0' && ch <= '9' || ch == '-') {
				return fmt.Errorf("domain %q contains %q (want names like example.com, without scheme, port or path)", d, ch)
			}
		}
	}
	return nil
}
