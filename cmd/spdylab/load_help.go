package main

import "github.com/spdylab/spdylab/page"

// `spdylab load -h`: what it does, the forms of --page, and its many
// flags in groups (help.go).

var loadSynopsis = "spdylab load [--page PAGE] [--proto P1,P2,...] [--runs N] [link flags] [protocol options]"

var loadExamples = []string{
	"spdylab load --page pageB --proto https,spdy/3.1 --rtt 100ms --down 10mbit --up 1mbit --runs 20",
	"spdylab load --page har:site.har --proto h2,h3 --rtt 40ms --down 20mbit --up 5mbit --har out/har",
	"spdylab load --page site/ --no-link --runs 3    # the folder 'spdylab page import' wrote, over loopback",
	"spdylab load --page pageB --proto https,spdy/3.1 --loss 1% --sessions 3 --session-policy priority --runs 5",
	"spdylab load --page har:site.har --compute none --deps flat --rtt 100ms    # NSDI'14: no computation, no dependencies",
	"spdylab load --page pageB --proto https,spdy/3.1 --frame-size 4096 --runs 5    # https ignores the SPDY-only knob",
	"spdylab load --page pageC --proto https,spdy/3.1 --profile profiles/spdy-never-worse.toml --loss 1% --rtt 100ms    # the profile on spdy/3.1, https as it is",
}

// loadShort is what load -h says it does; loadAbout the same in full
// (--help-all).
func loadShort() string {
	return `Builds a testbed (servers behind an emulated link), loads the page --runs times
per protocol, protocols interleaved load by load, and prints PLT, ToW and the
phases per protocol. Every condition flag is the study factor of the same name.

pages (--page):
` + page.SpecHelp()
}

// loadCommonFlags are the flags load -h shows, one line each.
var loadCommonFlags = []string{"page", "proto", "runs", "client", "rtt", "down", "up", "loss", "queue", "shards",
	"tls", "profile", "no-link", "timeout", "json", "har"}

func loadAbout() string {
	return `Builds a testbed (servers behind an emulated link), loads the page --runs times
per protocol, protocols interleaved load by load, and prints PLT, ToW and the
phases per protocol. The page, link, TCP and protocol flags are the study
factors of the same name ('-' for '_'): a load without flags is what a
one-cell study of the same page and protocol loads. A setting that applies to
some protocols only (its help names them: frame-size, hints, scheduler,
session-window, sessions, pacing...) is ignored by the other --proto protocols
beside one that takes it, as a study's baseline is, and refused when none does.

pages (--page):
` + page.SpecHelp()
}

// loadFlagGroups order load's help; flags they do not name (added later)
// are listed last.
var loadFlagGroups = []flagGroup{
	{"page & protocol", []string{"page", "proto", "runs", "shards", "shard-mode", "client", "browser-profile",
		"renderer-costs", "stack", "no-link", "timeout"}},
	{"page methodology", []string{"compute", "deps", "until", "redirects"}},
	linkFlagGroup,
	tcpFlagGroup,
	{"protocol options", []string{"profile", "tls", "tls-kx", "tls-resume", "false-start", "early-data", "nagle", "max-streams", "initial-window", "push",
		"priority", "scheduler", "sessions", "session-policy", "sctp-control-stream", "sctp-bundle-cookie", "sctp-streams", "sctp-rto-min",
		"sctp-rto-initial", "sctp-buffer", "sctp-cc"}},
	{"server knobs", []string{"pacing", "notsent-lowat", "frame-size", "session-window", "hints"}},
	{"output", []string{"metric", "json", "har", "pcap", "server-log", "log", "work-dir"}},
}

// linkFlagGroup and tcpFlagGroup are netem's flags (load, shell, link check).
var (
	linkFlagGroup = flagGroup{"link", []string{"rtt", "delay-down", "delay-up", "down", "up", "loss", "loss-dir",
		"loss-down", "loss-up", "ge-down", "ge-up", "queue", "queue-down", "queue-up", "trace-down", "trace-up",
		"per-shard-links", "dns", "seed"}}
	tcpFlagGroup = flagGroup{"TCP", []string{"iw", "initrwnd", "cc", "slow-start-after-idle", "tcp-recovery"}}
)
