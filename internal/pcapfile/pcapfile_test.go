package pcapfile

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"testing"
	"time"
)

func TestRecordsRoundTrip(t *testing.T) {
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 678901234, time.UTC)
	pkts := [][]byte{{0x45, 0, 0, 20}, bytes.Repeat([]byte{7}, 1500), {}}
	f := AppendFileHeader(nil, DefaultSnapLen, LinkTypeRaw)
	if len(f) != FileHeaderLen || !bytes.Equal(f[:4], []byte{0xd4, 0xc3, 0xb2, 0xa1}) {
		t.Fatalf("file header % x", f)
	}
	for i, p := range pkts {
		f = AppendRecord(f, t0.Add(time.Duration(i)*time.Millisecond), p, DefaultSnapLen)
	}
	r, err := NewReader(bytes.NewReader(f))
	if err != nil {
		t.Fatal(err)
	}
	if h := r.Header(); h.LinkType != LinkTypeRaw || h.SnapLen != DefaultSnapLen || h.Nanos || h.VersionMajor != 2 || h.VersionMinor != 4 {
		t.Errorf("header %+v", h)
	}
	for i, want := range pkts {
		p, err := r.Next()
		if err != nil {
			t.Fatalf("packet %d: %v", i, err)
		}
		wantTime := t0.Add(time.Duration(i) * time.Millisecond).Truncate(time.Microsecond)
		if !bytes.Equal(p.Data, want) || p.OrigLen != len(want) || !p.Time.Equal(wantTime) {
			t.Errorf("packet %d: %d bytes (orig %d) at %v, want %d at %v", i, len(p.Data), p.OrigLen, p.Time, len(want), wantTime)
		}
	}
	if _, err := r.Next(); err != io.EOF {
		t.Errorf("after the last packet: %v, want io.EOF", err)
	}
}

func TestSnapLenCutsButKeepsTheLength(t *testing.T) {
	f := AppendFileHeader(nil, 64, LinkTypeRaw)
	f = AppendRecord(f, time.Unix(1, 0), make([]byte, 100), 64)
	r, err := NewReader(bytes.NewReader(f))
	if err != nil {
		t.Fatal(err)
	}
	p, err := r.Next()
	if err != nil || len(p.Data) != 64 || p.OrigLen != 100 {
		t.Fatalf("got %d of %d bytes, %v; want 64 of 100", len(p.Data), p.OrigLen, err)
	}
}

// Files written elsewhere: big-endian (a capture from a big-endian
// machine) and nanosecond timestamps.
func TestReadsOtherByteOrderAndNanoseconds(t *testing.T) {
	be := binary.BigEndian
	var f []byte
	f = be.AppendUint32(f, MagicNanos)
	f = be.AppendUint16(f, 2)
	f = be.AppendUint16(f, 4)
	f = append(f, make([]byte, 8)...)
	f = be.AppendUint32(f, 65535)
	f = be.AppendUint32(f, LinkTypeRaw)
	f = be.AppendUint32(f, 10)
	f = be.AppendUint32(f, 123456789)
	f = be.AppendUint32(f, 3)
	f = be.AppendUint32(f, 3)
	f = append(f, 1, 2, 3)
	r, err := NewReader(bytes.NewReader(f))
	if err != nil {
		t.Fatal(err)
	}
	if h := r.Header(); h.Order != binary.BigEndian || !h.Nanos || h.SnapLen != 65535 {
		t.Errorf("header %+v", h)
	}
	p, err := r.Next()
	if err != nil || !p.Time.Equal(time.Unix(10, 123456789)) || !bytes.Equal(p.Data, []byte{1, 2, 3}) {
		t.Errorf("packet %+v, %v", p, err)
	}
}

func TestBrokenFilesAreErrors(t *testing.T) {
	good := AppendRecord(AppendFileHeader(nil, 100, LinkTypeRaw), time.Unix(1, 0), make([]byte, 50), 100)
	if _, err := NewReader(bytes.NewReader([]byte("not a pcap file at all....."))); !errors.Is(err, ErrNotPcap) {
		t.Errorf("text: %v, want ErrNotPcap", err)
	}
	if _, err := NewReader(bytes.NewReader(good[:10])); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("short header: %v", err)
	}
	for _, cut := range []int{FileHeaderLen + 5, len(good) - 1} {
		r, err := NewReader(bytes.NewReader(good[:cut]))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := r.Next(); !errors.Is(err, io.ErrUnexpectedEOF) {
			t.Errorf("cut at %d: %v, want an unexpected EOF", cut, err)
		}
	}
	long := AppendRecord(AppendFileHeader(nil, 10, LinkTypeRaw), time.Unix(1, 0), make([]byte, 50), 0)
	r, _ := NewReader(bytes.NewReader(long))
	if _, err := r.Next(); err == nil {
		t.Error("a record longer than the snapshot length was accepted")
	}
}

// FuzzReader: any input is a clean error or packets that write back to
// the same records.
func FuzzReader(f *testing.F) {
	f.Add(AppendRecord(AppendFileHeader(nil, DefaultSnapLen, LinkTypeRaw), time.Unix(5, 6000), []byte{0x45, 1, 2}, 0))
	f.Add(AppendFileHeader(nil, 0, LinkTypeRaw))
	f.Add([]byte{0xa1, 0xb2, 0x3c, 0x4d, 0, 2, 0, 4})
	f.Fuzz(func(t *testing.T, in []byte) {
		r, err := NewReader(bytes.NewReader(in))
		if err != nil {
			return
		}
		for range 10000 {
			p, err := r.Next()
			if err != nil {
				return
			}
			if len(p.Data) > p.OrigLen || len(p.Data) > maxSnapLen {
				t.Fatalf("packet of %d bytes, original %d", len(p.Data), p.OrigLen)
			}
			if r.Header().Nanos || p.Time.Unix() >= 1<<32 {
				continue // the writer keeps microseconds and 32-bit seconds only
			}
			again, err := NewReader(bytes.NewReader(AppendRecord(AppendFileHeader(nil, maxSnapLen, LinkTypeRaw), p.Time, p.Data, 0)))
			if err != nil {
				t.Fatal(err)
			}
			q, err := again.Next()
			if err != nil || !bytes.Equal(q.Data, p.Data) || !q.Time.Equal(p.Time) {
				t.Fatalf("rewritten packet differs: %v", err)
			}
		}
	})
}
