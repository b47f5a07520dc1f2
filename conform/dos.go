package conform

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/spdylab/spdylab/spdy"
)

// DefaultFlood is how many frames a flood case sends: far more than any
// client sends in a burst, few enough that a run stays quick.
const DefaultFlood = 5000

func (o *Options) flood() int {
	if o.Flood <= 0 {
		return DefaultFlood
	}
	return o.Flood
}

// runDoS runs an attack case. Its verdict has three parts, all needed:
// the server's reaction (the case's own rule: stopped the attacker within
// the flood, or answered it in time when answering is what the draft asks),
// its memory growth within the limit (when the server's process can be
// read; otherwise reported as not measured), and a fresh connection served
// while the attacking one is still open.
func runDoS(ctx context.Context, c Case, o *Options, r Result) Result {
	r.Class = c.Class
	mw := watchMemory(o)
	p, err := dial(ctx, o, c.rcvBuf)
	if err != nil {
		r.Error, r.Received, r.Memory = err.Error(), "no connection", mw.finish()
		return r
	}
	defer p.close()
	reacted, err := c.run(p, o)
	if err != nil && !(errors.Is(err, errClosed) && reacted) {
		reacted = false
		r.Error = err.Error()
	}
	r.Received, r.Reaction = p.summary(), p.reaction
	if r.Reaction == "" && reacted {
		r.Reaction = "stopped: " + p.last()
	} else if r.Reaction == "" {
		r.Reaction = "none: no GOAWAY, RST_STREAM or close in time; last received: " + p.last()
	}
	served, fresh := freshGet(ctx, o)
	r.Fresh = fresh
	r.Memory = mw.finish()
	var why []string
	if !reacted {
		why = append(why, "reaction")
	}
	if !served {
		why = append(why, "fresh connection")
	}
	if !r.Memory.Within() {
		why = append(why, "memory")
	}
	r.Pass = len(why) == 0
	if !r.Pass {
		r.Error = strings.TrimSuffix("failed on: "+strings.Join(why, ", ")+"; "+r.Error, "; ")
	}
	return r
}

// freshGet opens a new connection and GETs the path: a server an attack
// has wedged or killed fails it. A server may still be shedding the
// attacker's streams, and may count them against the client's address (as
// spdylab's per-client stream cap does): a refusal is tried again, on a
// new connection, until the case's wait runs out.
func freshGet(ctx context.Context, o *Options) (bool, string) {
	deadline := time.Now().Add(o.timeout())
	for tries := 1; ; tries++ {
		ok, what := freshTry(ctx, o)
		if ok {
			if tries > 1 {
				what += fmt.Sprintf(" on try %d", tries)
			}
			return true, what
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			return false, fmt.Sprintf("%s (try %d, none served)", what, tries)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func freshTry(ctx context.Context, o *Options) (bool, string) {
	p, err := dial(ctx, o, 0)
	if err != nil {
		return false, "no connection: " + err.Error()
	}
	defer p.close()
	if err := p.get(1, o.Path, spdy.FlagFin); err != nil {
		return false, "GET not sent: " + err.Error()
	}
	ok, err := p.await(replyOn(1, hasStatus))
	switch {
	case err != nil:
		return false, "GET " + o.Path + ": " + err.Error() + "; received " + p.summary()
	case !ok:
		return false, "GET " + o.Path + " not answered with a reply: " + p.summary()
	}
	return true, "served (GET " + o.Path + " answered with SYN_REPLY)"
}

// writeAsync writes b in the background (the case reads meanwhile, so a
// server answering as it reads never blocks on this side); the channel
// yields the write's error once it is done.
func (p *peer) writeAsync(b []byte) <-chan error {
	done := make(chan error, 1)
	p.conn.SetWriteDeadline(time.Now().Add(p.wait))
	go func() { _, err := p.conn.Write(b); done <- err }()
	return done
}

// outcome is what a flood case saw after sending its flood.
type outcome int

const (
	keptUp  outcome = iota // the server answered everything it had to
	stopped                // GOAWAY, a RST_STREAM for the attacked stream, or close
	silent                 // neither, before the wait ran out
)

// floodEnd reads until the server stops the attacker (GOAWAY, a
// RST_STREAM on stream rst when rst > 0, or closing) or until done says
// the server kept up. count is called on every frame (to tally answers).
func (p *peer) floodEnd(rst uint32, done func(spdy.Frame) bool) (outcome, error) {
	deadline := time.Now().Add(p.wait)
	for {
		f, err := p.next(deadline)
		if errors.Is(err, errClosed) {
			return stopped, nil
		}
		if err != nil {
			if errors.Is(err, os.ErrDeadlineExceeded) {
				return silent, nil
			}
			return silent, err
		}
		switch f := f.(type) {
		case *spdy.GoAwayFrame:
			return stopped, nil
		case *spdy.RstStreamFrame:
			if rst > 0 && f.Stream == rst {
				return stopped, nil
			}
		}
		if done(f) {
			return keptUp, nil
		}
	}
}

// lastPing is the PING a flood ends with: its echo shows the server read
// the whole flood.
const lastPing = 0x7ffffff1

func isPing(id uint32) func(spdy.Frame) bool {
	return func(f spdy.Frame) bool { pf, ok := f.(*spdy.PingFrame); return ok && pf.ID == id }
}

func (p *peer) ping(id uint32) []byte {
	return p.control(6, 0, []byte{byte(id >> 24), byte(id >> 16), byte(id >> 8), byte(id)})
}

// survive is the rule of a flood whose frames the draft lets a server
// answer or ignore cheaply (PING, SETTINGS, empty DATA): the server passes
// by stopping the attacker or by keeping up (echoing the PING sent after
// the flood); memory and the fresh connection judge the cost.
func (p *peer) survive(what string, flood []byte, rst uint32) (bool, error) {
	werr := p.writeAsync(append(flood, p.ping(lastPing)...))
	out, err := p.floodEnd(rst, isPing(lastPing))
	if err != nil {
		return false, err
	}
	switch out {
	case stopped:
		p.reaction = "stopped: " + p.last()
	case keptUp:
		p.reaction = "kept up: read the " + what + " and echoed the PING after it"
	default:
		if e := <-werr; e != nil {
			p.reaction = "silent: the flood could not be written in time (" + e.Error() + ")"
		} else {
			p.reaction = "silent: no echo of the PING after the " + what + ", no GOAWAY, no close"
		}
		return false, nil
	}
	return true, nil
}

// last is the last thing received, for a reaction.
func (p *peer) last() string {
	if len(p.seen) == 0 {
		return "nothing"
	}
	return fmt.Sprintf("%s (after %d frames received)", p.seen[len(p.seen)-1], p.nseen-1)
}
