package main

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"
)

// Every command's help starts with its synopsis and shows at least two
// examples of it, and -h exits 0.
func TestHelpOfEveryCommand(t *testing.T) {
	for name, c := range commands {
		var out, errb bytes.Buffer
		code := c.run([]string{"-h"}, &out, &errb)
		help := out.String() + errb.String()
		if code != 0 {
			t.Errorf("%s -h: exit %d", name, code)
		}
		if !strings.HasPrefix(help, "usage: spdylab "+name) {
			t.Errorf("%s -h does not start with its synopsis:\n%s", name, firstLines(help, 3))
		}
		if n := len(helpExamples(help, name)); n < 2 {
			t.Errorf("%s -h shows %d examples, want at least 2:\n%s", name, n, firstLines(help, 12))
		}
	}
}

// helpExamples are the command lines under "examples:" that run name.
func helpExamples(help, name string) []string {
	_, after, ok := strings.Cut(help, "\nexamples:\n")
	if !ok {
		return nil
	}
	section, _, _ := strings.Cut(after, "\n\n")
	var ex []string
	for _, line := range strings.Split(section, "\n") {
		if strings.Contains(line, "spdylab "+name) {
			ex = append(ex, line)
		}
	}
	return ex
}

func firstLines(s string, n int) string {
	lines := strings.SplitN(s, "\n", n+1)
	if len(lines) > n {
		lines = lines[:n]
	}
	return strings.Join(lines, "\n")
}

// load's full help (--help-all) lists every way to name a page, groups
// its flags, and shows one DNS flag.
func TestLoadHelpListsPageFormsAndGroups(t *testing.T) {
	var errb bytes.Buffer
	if code := runLoad(context.Background(), []string{"--help-all"}, &errb, &errb); code != 0 {
		t.Fatalf("exit %d", code)
	}
	help := errb.String()
	for _, want := range []string{"pageA", "generic:KEY=VALUE", "har:FILE.har", "DIR/manifest.json", "dir:PATH",
		"\npage & protocol:\n", "\nlink:\n", "\nTCP:\n", "\nprotocol options:\n", "\noutput:\n", "  --dns\n"} {
		if !strings.Contains(help, want) {
			t.Errorf("load -h does not mention %q", want)
		}
	}
	if strings.Contains(help, "no-dns") {
		t.Error("load -h lists the deprecated --no-dns")
	}
}

// A bad flag or value answers with what is wrong and where the help is,
// not the whole help; a duration without a unit suggests one.
func TestLoadFlagErrorsAreShort(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--rtt", "100"}, `spdylab load: --rtt "100": a duration needs a unit: did you mean 100ms?`},
		{[]string{"--timeout", "5"}, `spdylab load: --timeout "5": a duration needs a unit: did you mean 5s?`},
		{[]string{"--runs", "many"}, `spdylab load: --runs "many": not a whole number`},
		{[]string{"--bogus"}, `spdylab load: unknown flag --bogus`},
	} {
		var out, errb bytes.Buffer
		code := runLoad(context.Background(), append([]string{"--no-link"}, c.args...), &out, &errb)
		want := c.want + "\nrun 'spdylab load -h' for help\n"
		if code != 2 || errb.String() != want {
			t.Errorf("%v: exit %d, stderr\n%s\nwant\n%s", c.args, code, errb.String(), want)
		}
	}
}

// --page takes the folder `page gen` or `page import` wrote; a folder
// without a manifest and an unknown name say what a page may be.
func TestLoadPageFolder(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "site")
	var out, errb bytes.Buffer
	if code := runPage([]string{"gen", "generic:n=3", "-o", dir}, &out, &errb); code != 0 {
		t.Fatalf("page gen: exit %d: %s", code, errb.String())
	}
	out.Reset()
	errb.Reset()
	if code := runLoad(context.Background(), []string{"--no-link", "--runs", "1", "--json", "--page", dir}, &out, &errb); code != 0 {
		t.Fatalf("--page DIR: exit %d: %s", code, errb.String())
	}
	if !strings.Contains(out.String(), `"runs":1`) {
		t.Errorf("--page DIR: summary %s", out.String())
	}
	empty := t.TempDir()
	for spec, wants := range map[string][]string{
		empty:   {`--page "` + empty + `"`, "holds no manifest.json", "page import"},
		"pageZ": {`--page "pageZ"`, "unknown page", "pageA", "generic:", "har:", "DIR/manifest.json", "dir:"},
	} {
		errb.Reset()
		code := runLoad(context.Background(), []string{"--no-link", "--page", spec}, &out, &errb)
		for _, w := range wants {
			if code != 2 || !strings.Contains(errb.String(), w) {
				t.Errorf("--page %s: exit %d, stderr %q does not mention %q", spec, code, errb.String(), w)
			}
		}
	}
}

// --no-dns still parses (old scripts), changes nothing (DNS is off unless
// --dns) and says it is deprecated; with --dns it contradicts.
func TestNoDNSIsDeprecated(t *testing.T) {
	var errb bytes.Buffer
	req, status := parseLoadFlags([]string{"--no-dns"}, &errb)
	if status != -1 || req.cond.DNS || req.link.DNS {
		t.Fatalf("--no-dns: status %d, dns %v/%v: %s", status, req.cond.DNS, req.link.DNS, errb.String())
	}
	if !strings.Contains(errb.String(), "--no-dns is deprecated") {
		t.Errorf("--no-dns: stderr %q says nothing of the deprecation", errb.String())
	}
	errb.Reset()
	if _, status := parseLoadFlags([]string{"--dns", "--no-dns"}, &errb); status != 2 || !strings.Contains(errb.String(), "contradict") {
		t.Errorf("--dns --no-dns: status %d, %s", status, errb.String())
	}
}
