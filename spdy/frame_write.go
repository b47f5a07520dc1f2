package spdy

// Writing frames.

import (
	"encoding/binary"
	"errors"
	"fmt"
	"sort"
)

// ErrInvalidStreamID is returned when asked to write a frame with a stream id
// that does not fit in 31 bits or is 0 where a stream is required.
var ErrInvalidStreamID = errors.New("spdy: invalid stream id")

// WriteFrame encodes f into the write buffer. Header blocks are compressed
// with the session's send context, so frames must be written in wire order.
// Header frames have their Size filled in.
func (f *Framer) WriteFrame(fr Frame) error {
	switch fr := fr.(type) {
	case *DataFrame:
		if fr.Stream == 0 || fr.Stream > 0x7fffffff {
			return ErrInvalidStreamID
		}
		if len(fr.Data) > MaxFrameLength {
			return fmt.Errorf("spdy: DATA payload of %d bytes exceeds the 24-bit length field", len(fr.Data))
		}
		var hdr [frameHeaderLen]byte
		binary.BigEndian.PutUint32(hdr[0:4], fr.Stream)
		hdr[4] = fr.Flags
		n := len(fr.Data)
		hdr[5], hdr[6], hdr[7] = byte(n>>16), byte(n>>8), byte(n)
		if _, err := f.w.Write(hdr[:]); err != nil {
			return err
		}
		_, err := f.w.Write(fr.Data)
		return err
	case *SynStreamFrame:
		return f.writeSynStream(fr)
	case *SynReplyFrame:
		return f.writeHeaderFrame(TypeSynReply, fr.Stream, fr.Flags, fr.Headers, &fr.Size)
	case *HeadersFrame:
		return f.writeHeaderFrame(TypeHeaders, fr.Stream, fr.Flags, fr.Headers, &fr.Size)
	case *RstStreamFrame:
		if fr.Stream == 0 || fr.Stream > 0x7fffffff {
			return ErrInvalidStreamID
		}
		f.startControl(TypeRstStream, 0)
		f.putU32(fr.Stream)
		status := fr.Status
		if f.version == Version2 && status > RstFlowControlError {
			// Draft 2 defines codes 1-7 only; the later ones are all
			// protocol errors to a v2 peer.
			status = RstProtocolError
		}
		f.putU32(uint32(status))
		return f.finish()
	case *SettingsFrame:
		return f.writeSettings(fr)
	case *PingFrame:
		f.startControl(TypePing, 0)
		f.putU32(fr.ID)
		return f.finish()
	case *GoAwayFrame:
		f.startControl(TypeGoAway, 0)
		f.putU32(fr.LastGoodStream & 0x7fffffff)
		if f.version != Version2 {
			f.putU32(uint32(fr.Status))
		}
		return f.finish()
	case *NoopFrame:
		if f.version != Version2 {
			return errors.New("spdy: NOOP is a SPDY/2 frame")
		}
		f.startControl(TypeNoop, 0)
		return f.finish()
	case *WindowUpdateFrame:
		// Draft 2 dropped WINDOW_UPDATE, but node-spdy sends it with
		// version 2, so a v2 framer writes it too (sessions decide).
		if fr.Stream > 0x7fffffff {
			return ErrInvalidStreamID
		}
		if fr.Delta == 0 || fr.Delta > 0x7fffffff {
			return fmt.Errorf("spdy: WINDOW_UPDATE delta %d outside 1..2^31-1", fr.Delta)
		}
		f.startControl(TypeWindowUpdate, 0)
		f.putU32(fr.Stream)
		f.putU32(fr.Delta)
		return f.finish()
	case *CredentialFrame:
		if f.version == Version2 {
			return errors.New("spdy: CREDENTIAL is not a SPDY/2 frame")
		}
		f.startControl(TypeCredential, 0)
		f.wb = binary.BigEndian.AppendUint16(f.wb, fr.Slot)
		f.putU32(uint32(len(fr.Proof)))
		f.wb = append(f.wb, fr.Proof...)
		for _, c := range fr.Certificates {
			f.putU32(uint32(len(c)))
			f.wb = append(f.wb, c...)
		}
		return f.finish()
	}
	return fmt.Errorf("spdy: cannot write frame of type %T", fr)
}

func (f *Framer) writeSynStream(fr *SynStreamFrame) error {
	if fr.Stream == 0 || fr.Stream > 0x7fffffff || fr.AssociatedTo > 0x7fffffff {
		return ErrInvalidStreamID
	}
	if fr.Priority > 7 {
		return fmt.Errorf("spdy: priority %d out of range 0-7", fr.Priority)
	}
	f.startControl(TypeSynStream, fr.Flags)
	f.putU32(fr.Stream)
	f.putU32(fr.AssociatedTo)
	if f.version == Version2 {
		f.wb = append(f.wb, fr.Priority>>1<<6, 0)
	} else {
		f.wb = append(f.wb, fr.Priority<<5, fr.Slot)
	}
	var err error
	if f.wb, fr.Size, err = f.enc.encode(f.wb, fr.Headers); err != nil {
		return err
	}
	return f.finish()
}

// writeSettings writes entries lowest id first; draft 2 puts the 24-bit id
// little-endian before the flags byte.
func (f *Framer) writeSettings(fr *SettingsFrame) error {
	f.startControl(TypeSettings, fr.Flags)
	f.putU32(uint32(len(fr.Entries)))
	entries := append([]Setting(nil), fr.Entries...)
	sort.SliceStable(entries, func(i, j int) bool { return entries[i].ID < entries[j].ID }) // spec: lowest id first
	for _, e := range entries {
		if e.ID > 0xffffff {
			return fmt.Errorf("spdy: setting id %d does not fit in 24 bits", e.ID)
		}
		if f.version == Version2 {
			f.wb = binary.LittleEndian.AppendUint32(f.wb, uint32(e.Flags)<<24|uint32(e.ID))
		} else {
			f.putU32(uint32(e.Flags)<<24 | uint32(e.ID))
		}
		f.putU32(e.Value)
	}
	return f.finish()
}

func (f *Framer) writeHeaderFrame(typ FrameType, id uint32, flags uint8, h Header, size *BlockSize) error {
	if id == 0 || id > 0x7fffffff {
		return ErrInvalidStreamID
	}
	f.startControl(typ, flags)
	f.putU32(id)
	if f.version == Version2 {
		f.wb = append(f.wb, 0, 0) // unused
	}
	var err error
	if f.wb, *size, err = f.enc.encode(f.wb, h); err != nil {
		return err
	}
	return f.finish()
}
