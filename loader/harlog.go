package loader

import (
	"fmt"
	"sort"
	"strings"

	"github.com/spdylab/spdylab/har"
	"github.com/spdylab/spdylab/probe"
)

// This file only translates the load's entries into the har package's
// terms; har builds the entries and owns the format.

// browserName is the loader's name as the browser of its HARs.
const browserName = "spdylab loader (Chrome 16 / Chromium 25 network behaviour)"

// harLog builds the load's HAR, in the order requests were decided on,
// and sums its entries' phases into r.Phases.
func (l *load) harLog(r *probe.Result, timings har.PageTimings) har.Log {
	log := har.NewLog(browserName, har.SpdylabVersion)
	sort.SliceStable(l.entries, func(i, j int) bool { return l.entries[i].queued.Before(l.entries[j].queued) })
	for _, e := range l.entries {
		he := har.NewEntry(l.exchangeOf(e))
		log.Entries = append(log.Entries, he)
		har.AddPhases(&r.Phases, he.Timings.Phases())
	}
	comment := fmt.Sprintf("%s over %s, TLS %s", l.m.Name, l.opt.Proto, tlsName(l.tlsVer))
	log.Pages = []har.Page{har.NewPage(l.t0, l.m.URL(0), comment, timings)}
	if len(l.problems) > 0 {
		log.Comment = strings.Join(l.problems, "\n")
	}
	return log
}

// exchangeOf is what the load saw of e, in har's terms.
func (l *load) exchangeOf(e *entry) har.Exchange {
	e.mu.Lock()
	defer e.mu.Unlock()
	x := har.Exchange{
		URL:                e.url,
		Protocol:           l.protoOf(e),
		Queued:             e.queued,
		SendStart:          e.sendStart,
		SendEnd:            e.sendEnd,
		FirstByte:          e.firstByte,
		End:                e.end,
		RequestHeaders:     e.reqHeaders,
		RequestHeaderSize:  e.reqHdrSize,
		Status:             e.status,
		StatusText:         e.statusText,
		ResponseHeaders:    e.respHeaders,
		ResponseHeaderSize: e.respHdrSize,
		ContentBytes:       e.bodyBytes,
		WireBodyBytes:      e.wireBody,
		MimeType:           e.mime,
		Pushed:             e.pushed,
		Retries:            e.retries,
		Priority:           int(e.priority),
		Done:               e.done,
		Err:                e.err,
	}
	if e.res != nil {
		id := e.res.ID
		x.ResourceID = &id
	}
	if c := e.conn; c != nil {
		x.Connection = itoa(c.id)
		x.ServerIP = c.remoteIP
		if e.setup {
			x.Setup = &har.Setup{DNS: c.dns, Connected: !c.ready.IsZero(), Connect: c.connectDur, SSL: l.harSSL(c)}
		}
	}
	return x
}
