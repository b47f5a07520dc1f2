package spdy

// One-line renderings of frames for traces (Frame.String).

import (
	"fmt"
	"strings"
)

func flagString(flags uint8, names ...string) string {
	var parts []string
	for i, n := range names {
		if n != "" && flags&(1<<i) != 0 {
			parts = append(parts, n)
			flags &^= 1 << i
		}
	}
	if flags != 0 {
		parts = append(parts, fmt.Sprintf("0x%02x", flags))
	}
	if len(parts) == 0 {
		return ""
	}
	return " flags=" + strings.Join(parts, "|")
}

func (f *DataFrame) String() string {
	if f.skipped > 0 { // refused from its header: the payload is discarded unread
		return fmt.Sprintf("DATA stream=%d len=%d (discarded)%s", f.Stream, f.skipped, flagString(f.Flags, "FIN", "COMPRESS"))
	}
	return fmt.Sprintf("DATA stream=%d len=%d%s", f.Stream, len(f.Data), flagString(f.Flags, "FIN", "COMPRESS"))
}

func headerSummary(h Header, sz BlockSize) string {
	return fmt.Sprintf(" headers=%d/%dB [%s]", sz.Compressed, sz.Raw, strings.Join(h.names(), " "))
}

func (f *SynStreamFrame) String() string {
	s := fmt.Sprintf("SYN_STREAM stream=%d", f.Stream)
	if f.AssociatedTo != 0 {
		s += fmt.Sprintf(" assoc=%d", f.AssociatedTo)
	}
	return s + fmt.Sprintf(" pri=%d%s", f.Priority, flagString(f.Flags, "FIN", "UNIDIRECTIONAL")) + headerSummary(f.Headers, f.Size)
}

func (f *SynReplyFrame) String() string {
	return fmt.Sprintf("SYN_REPLY stream=%d%s", f.Stream, flagString(f.Flags, "FIN")) + headerSummary(f.Headers, f.Size)
}

func (f *HeadersFrame) String() string {
	return fmt.Sprintf("HEADERS stream=%d%s", f.Stream, flagString(f.Flags, "FIN")) + headerSummary(f.Headers, f.Size)
}

func (f *RstStreamFrame) String() string {
	return fmt.Sprintf("RST_STREAM stream=%d status=%s", f.Stream, f.Status)
}

func (f *SettingsFrame) String() string {
	var b strings.Builder
	b.WriteString("SETTINGS")
	b.WriteString(flagString(f.Flags, "CLEAR_SETTINGS"))
	for _, e := range f.Entries {
		fmt.Fprintf(&b, " %s=%d", e.ID, e.Value)
		if e.Flags&FlagSettingPersist != 0 {
			b.WriteString("(persist)")
		}
		if e.Flags&FlagSettingPersisted != 0 {
			b.WriteString("(persisted)")
		}
	}
	return b.String()
}

func (f *PingFrame) String() string { return fmt.Sprintf("PING id=%d", f.ID) }

func (f *GoAwayFrame) String() string {
	return fmt.Sprintf("GOAWAY last_good_stream=%d status=%s", f.LastGoodStream, f.Status)
}

func (f *WindowUpdateFrame) String() string {
	return fmt.Sprintf("WINDOW_UPDATE stream=%d delta=%d", f.Stream, f.Delta)
}

func (f *CredentialFrame) String() string {
	return fmt.Sprintf("CREDENTIAL slot=%d proof=%dB certs=%d", f.Slot, len(f.Proof), len(f.Certificates))
}

func (f *UnknownFrame) String() string {
	if f.Version != 0 {
		return fmt.Sprintf("IGNORED %s version=%d len=%d%s", f.FrameType, f.Version, f.Length, flagString(f.Flags))
	}
	return fmt.Sprintf("UNKNOWN type=%d len=%d%s", uint16(f.FrameType), f.Length, flagString(f.Flags))
}
