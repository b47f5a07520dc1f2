package main

import (
	"bytes"
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/spdylab/spdylab/probe"
	"github.com/spdylab/spdylab/study/studyfile"
)

// One protocol vocabulary across commands: load, get and study files take
// the lab's names and their aliases (http/1.1 for https), store the name,
// and their errors list the names.
func TestEveryCommandTakesTheProtocolNamesAndAliases(t *testing.T) {
	req, status := parseLoadFlags([]string{"--no-link", "--proto", "http/1.1,H2"}, io.Discard)
	if status != -1 || !slices.Equal(req.protos, []string{probe.ProtoHTTPS, probe.ProtoH2}) {
		t.Errorf("load --proto http/1.1,H2: status %d, protocols %q", status, req.protos)
	}
	var errb bytes.Buffer
	if _, status := parseLoadFlags([]string{"--no-link", "--proto", "http/2"}, &errb); status != 2 ||
		!strings.Contains(errb.String(), `--proto "http/2": unknown protocol "http/2" (want https, spdy/3.1`) || strings.Contains(errb.String(), "http1.1") {
		t.Errorf("load --proto http/2: status %d, %s", status, errb.String())
	}
	for in, alpn := range map[string]string{"https": "http/1.1", "http/1.1": "http/1.1", "spdy/3": "spdy/3", "h3": "h3"} {
		o, _, status := getParseFlags([]string{"--proto", in, "https://127.0.0.1/"}, io.Discard)
		if status != 0 || o.proto != alpn {
			t.Errorf("get --proto %s: status %d, options %+v; want ALPN %s", in, status, o, alpn)
		}
	}
	errb.Reset()
	if _, _, status := getParseFlags([]string{"--proto", "spdy/3.1+sctp", "https://127.0.0.1/"}, &errb); status != 2 || !strings.Contains(errb.String(), "get does not speak spdy/3.1+sctp (want https, spdy/3.1") {
		t.Errorf("get --proto spdy/3.1+sctp: status %d, %s", status, errb.String())
	}
	tf, status := parseTuneFlags([]string{"quick", "--budget", "10", "--protocol", "HTTP/1.1"}, io.Discard)
	if status != -1 || tf.cfg.Protocol != probe.ProtoHTTPS {
		t.Errorf("tune --protocol HTTP/1.1: status %d, protocol %q", status, tf.cfg.Protocol)
	}
	s, err := studyfile.Parse([]byte("name = \"aliases\"\nruns = 1\n[baseline]\nprotocol = \"http/1.1\"\n[factors]\npage = [\"pageA\"]\nprotocol = [\"http/1.1\", \"spdy/3.1\"]\n"), "")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range s.Conditions {
		got = append(got, c.Proto)
	}
	if !slices.Equal(got, []string{probe.ProtoHTTPS, probe.ProtoSPDY31}) || s.Baseline["protocol"] != probe.ProtoHTTPS {
		t.Errorf("study with http/1.1: protocols %q, baseline %q", got, s.Baseline["protocol"])
	}
}
