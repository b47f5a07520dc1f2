package conform

import (
	"fmt"
	"strings"

	"github.com/spdylab/spdylab/spdy"
)

// draft2Cases check MUSTs of "SPDY Protocol - Draft 2" that the SPDY/3 draft
// does not have (or words so that SPDY/3's cases cannot check them). They
// are skipped under spdy/3.1 and spdy/3.
var draft2Cases = []Case{
	{ID: "other-version-ignored", Skip: "SPDY/3 has no rule for control frames of another version other than SYN_STREAM (draft 2's \"must be ignored\" was dropped)",
		Title: "a control frame of another version that is not SYN_STREAM is ignored", Expected: "no echo of a version-3 PING id=1 and no GOAWAY, then draft 2 PINGs id=3 and id=5 echoed",
		Draft2: Draft2{Section: "Protocol versioning"},
		run: func(p *peer, o *Options) (bool, error) {
			if err := p.sendRaw(controlFrame(p.otherVersion(), 6, 0, []byte{0, 0, 0, 1})); err != nil {
				return false, err
			}
			return p.quiet(3, func(f spdy.Frame) bool { pf, ok := f.(*spdy.PingFrame); return ok && pf.ID == 1 })
		}},
	{ID: "unknown-control-type", Skip: "the SPDY/3 draft states no rule for control frames of an unknown type",
		Title: "a control frame of a type the server does not know is ignored", Expected: "PINGs echoed after a control frame of type 255, no RST_STREAM or GOAWAY",
		Draft2: Draft2{Section: "Control frames"},
		run: func(p *peer, o *Options) (bool, error) {
			if err := p.sendRaw(p.control(255, 0, []byte{0, 0, 0, 1, 0, 0, 0, 0})); err != nil {
				return false, err
			}
			return p.quiet(1, notRst)
		}},
	{ID: "priorities", Skip: "SPDY/3's priority has 3 bits (2.6.1); every SPDY/3 case sends one",
		Title: "each 2-bit priority, 0 to 3, is accepted", Expected: "SYN_REPLY on streams 1, 3, 5 and 7, sent with priorities 0, 1, 2 and 3",
		Draft2: Draft2{Section: "SYN_STREAM"},
		run: func(p *peer, o *Options) (bool, error) {
			for pri := uint8(0); pri < 4; pri++ {
				id := 1 + 2*uint32(pri)
				if err := p.sendRaw(p.synStreamPri(id, spdy.FlagFin, pri, p.block(p.request("GET", o.Path)))); err != nil {
					return false, err
				}
			}
			return p.await(repliesOn(1, 3, 5, 7))
		}},
	{ID: "noop-ignored", Skip: "NOOP is not a SPDY/3 frame",
		Title: "NOOP is ignored", Expected: "PINGs echoed after a NOOP, no RST_STREAM or GOAWAY",
		Draft2: Draft2{Section: "NOOP"},
		run: func(p *peer, o *Options) (bool, error) {
			if err := p.send(&spdy.NoopFrame{}); err != nil {
				return false, err
			}
			return p.quiet(1, notRst)
		}},
	{ID: "window-update-ignored", Skip: "SPDY/3 has flow control; window-overflow checks its WINDOW_UPDATE",
		Title:    "WINDOW_UPDATE, removed from draft 2, is ignored: no flow-control error",
		Expected: "PINGs echoed, no RST_STREAM or GOAWAY, after two WINDOW_UPDATEs of 2^31-1 for an open stream",
		Draft2:   Draft2{Section: "WINDOW_UPDATE; Control frames"},
		run: func(p *peer, o *Options) (bool, error) {
			if err := p.get(1, o.Path, 0); err != nil {
				return false, err
			}
			wu := &spdy.WindowUpdateFrame{Stream: 1, Delta: 0x7fffffff}
			if err := p.send(wu, wu); err != nil {
				return false, err
			}
			return p.quiet(1, notRst)
		}},
	{ID: "settings-no-window", Skip: "in SPDY/3 SETTINGS_INITIAL_WINDOW_SIZE sets the stream windows (2.6.8)",
		Title:    "SETTINGS_INITIAL_WINDOW_SIZE 0 does not stop the server's DATA: draft 2 has no flow control",
		Expected: "the reply to a GET through FIN, after SETTINGS INITIAL_WINDOW_SIZE=0",
		Draft2:   Draft2{Section: "SETTINGS; WINDOW_UPDATE"},
		run: func(p *peer, o *Options) (bool, error) {
			if err := p.send(&spdy.SettingsFrame{Entries: []spdy.Setting{{ID: spdy.SettingInitialWindowSize, Value: 0}}}); err != nil {
				return false, err
			}
			if err := p.get(1, o.Path, spdy.FlagFin); err != nil {
				return false, err
			}
			return p.await(finOn(1))
		}},
	{ID: "zero-length-value", Skip: "SPDY/3 allows an empty header value (2.6.10)",
		Title: "a zero-length header value gets PROTOCOL_ERROR", Expected: "RST_STREAM stream=1 PROTOCOL_ERROR",
		Draft2: Draft2{Section: "Name/Value header block format"},
		run: func(p *peer, o *Options) (bool, error) {
			if err := p.sendRaw(p.synStream(1, spdy.FlagFin, p.block(p.request("GET", o.Path, "x-empty", "")))); err != nil {
				return false, err
			}
			return p.await(rstOn(1, spdy.RstProtocolError))
		}},
	{ID: "header-lengths-16bit", Skip: "SPDY/3's counts and lengths are 32 bits (2.6.10); every SPDY/3 case uses them",
		Title:    "header blocks with 16-bit counts and lengths are read whole: 300 pairs and a 65535-byte value",
		Expected: "SYN_REPLY stream=1 with status and version",
		Draft2:   Draft2{Section: "Name/Value header block format"},
		run: func(p *peer, o *Options) (bool, error) {
			extra := []string{"x-conform-long", strings.Repeat("v", 0xffff)}
			for i := 0; i < 300; i++ {
				extra = append(extra, fmt.Sprintf("x-conform-%03d", i), "1")
			}
			if err := p.sendRaw(p.synStream(1, spdy.FlagFin, p.block(p.request("GET", o.Path, extra...)))); err != nil {
				return false, err
			}
			return p.await(replyOn(1, hasStatus))
		}},
}

// repliesOn waits for a SYN_REPLY on every one of ids; a RST_STREAM for one
// of them or a GOAWAY fails.
func repliesOn(ids ...uint32) func(spdy.Frame) (bool, bool) {
	want := map[uint32]bool{}
	for _, id := range ids {
		want[id] = true
	}
	return func(f spdy.Frame) (bool, bool) {
		switch f := f.(type) {
		case *spdy.SynReplyFrame:
			delete(want, f.Stream)
			return len(want) == 0, true
		case *spdy.RstStreamFrame:
			return want[f.Stream], false
		case *spdy.GoAwayFrame:
			return true, false
		}
		return false, false
	}
}
