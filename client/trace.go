package client

import (
	"fmt"
	"strings"

	"golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"
)

// FrameEvent is one HTTP/2 frame sent or received, for tracing. Only the
// fields of its frame type are set.
type FrameEvent struct {
	Sent     bool
	Type     http2.FrameType
	StreamID uint32
	Length   uint32 // payload length
	Flags    http2.Flags

	Fields       []hpack.HeaderField // HEADERS (decoded header list)
	Priority     http2.PriorityParam // HEADERS with the PRIORITY flag (not printed)
	Settings     []http2.Setting     // SETTINGS
	Increment    uint32              // WINDOW_UPDATE
	ErrCode      http2.ErrCode       // RST_STREAM, GOAWAY
	LastStreamID uint32              // GOAWAY
	PromiseID    uint32              // PUSH_PROMISE
}

// eventOf describes a received frame.
func eventOf(f http2.Frame) FrameEvent {
	h := f.Header()
	ev := FrameEvent{Type: h.Type, StreamID: h.StreamID, Length: h.Length, Flags: h.Flags}
	switch f := f.(type) {
	case *http2.MetaHeadersFrame:
		ev.Fields = f.Fields
		ev.Priority = f.Priority
	case *http2.SettingsFrame:
		_ = f.ForeachSetting(func(s http2.Setting) error { ev.Settings = append(ev.Settings, s); return nil })
	case *http2.WindowUpdateFrame:
		ev.Increment = f.Increment
	case *http2.RSTStreamFrame:
		ev.ErrCode = f.ErrCode
	case *http2.GoAwayFrame:
		ev.ErrCode, ev.LastStreamID = f.ErrCode, f.LastStreamID
	case *http2.PushPromiseFrame:
		ev.PromiseID = f.PromiseID
	}
	return ev
}

// String is the one-line form `spdylab get -v` prints (without direction):
// type, stream, length, flags, then pseudo-header values and header names,
// settings, increments or error codes.
func (ev FrameEvent) String() string {
	s := fmt.Sprintf("%s stream=%d len=%d", ev.Type, ev.StreamID, ev.Length)
	if ev.Flags != 0 {
		s += fmt.Sprintf(" flags=%#x", uint8(ev.Flags))
	}
	switch ev.Type {
	case http2.FrameHeaders:
		var names []string
		for _, hf := range ev.Fields {
			if strings.HasPrefix(hf.Name, ":") {
				names = append(names, hf.Name+"="+hf.Value)
			} else {
				names = append(names, hf.Name)
			}
		}
		if len(names) > 0 {
			s += " " + strings.Join(names, " ")
		}
	case http2.FrameSettings:
		for _, st := range ev.Settings {
			s += " " + st.String()
		}
	case http2.FrameWindowUpdate:
		s += fmt.Sprintf(" increment=%d", ev.Increment)
	case http2.FrameRSTStream:
		s += " " + ev.ErrCode.String()
	case http2.FrameGoAway:
		s += fmt.Sprintf(" last=%d %s", ev.LastStreamID, ev.ErrCode)
	case http2.FramePushPromise:
		s += fmt.Sprintf(" promised=%d", ev.PromiseID)
	}
	return s
}
