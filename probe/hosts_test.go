package probe

import (
	"strings"
	"testing"
)

func TestNormalizeHosts(t *testing.T) {
	ok := []struct {
		in   Condition
		want Condition // the stored fields
	}{
		{Condition{Page: "p", Hosts: HostsRecorded, Deploy: DeployAll, HostRTT: HostRTTUniform}, Condition{}},
		{Condition{Page: "p", Hosts: HostsOne, Shards: 1}, Condition{Hosts: HostsOne}},
		{Condition{Page: "p", Hosts: HostsFirstParty, FirstParty: " B.net., a.com,b.net"}, Condition{Hosts: HostsFirstParty, FirstParty: "a.com,b.net"}},
		{Condition{Page: "p", Deploy: DeployFirstParty, FirstParty: "a.com"}, Condition{Deploy: DeployFirstParty, FirstParty: "a.com"}},
	}
	for _, tc := range ok {
		got, err := Normalize(tc.in)
		if err != nil {
			t.Errorf("Normalize(%+v): %v", tc.in, err)
			continue
		}
		if got.Hosts != tc.want.Hosts || got.FirstParty != tc.want.FirstParty || got.Deploy != tc.want.Deploy || got.HostRTT != "" {
			t.Errorf("Normalize(%+v) stores hosts %q first_party %q deploy %q, want %+v", tc.in, got.Hosts, got.FirstParty, got.Deploy, tc.want)
		}
	}
	bad := []struct {
		in   Condition
		want string
	}{
		{Condition{Page: "p", Hosts: "all"}, `unknown hosts mode "all"`},
		{Condition{Page: "p", Deploy: "some"}, `unknown deploy "some"`},
		{Condition{Page: "p", FirstParty: "a.com"}, "set one or drop first_party"},
		{Condition{Page: "p", Hosts: HostsFirstParty, FirstParty: "https://a.com/"}, `contains ':'`},
		{Condition{Page: "p", Hosts: HostsOne, Shards: 3}, "set shards 1"},
		{Condition{Page: "p", HostRTT: "far"}, `unknown host_rtt "far"`},
		{Condition{Page: "p", HostRTT: HostRTTRecorded, NoLink: true}, "drop no_link"},
	}
	for _, tc := range bad {
		if _, err := Normalize(tc.in); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Normalize(%+v) = %v, want an error containing %q", tc.in, err, tc.want)
		}
	}
}
