package browser

import (
	"encoding/json"
	"sync"
)

// The subset of CDP's Network and Page domains a page load is built from
// (https://chromedevtools.github.io/devtools-protocol/tot/Network/).

type cdpRequest struct {
	URL             string            `json:"url"`
	Method          string            `json:"method"`
	Headers         map[string]string `json:"headers"`
	InitialPriority string            `json:"initialPriority"`
}

type cdpTiming struct {
	RequestTime       float64 `json:"requestTime"` // seconds, same clock as event timestamps
	DNSStart          float64 `json:"dnsStart"`    // ms after RequestTime; -1 = n/a
	DNSEnd            float64 `json:"dnsEnd"`
	ConnectStart      float64 `json:"connectStart"`
	ConnectEnd        float64 `json:"connectEnd"`
	SSLStart          float64 `json:"sslStart"`
	SSLEnd            float64 `json:"sslEnd"`
	SendStart         float64 `json:"sendStart"`
	SendEnd           float64 `json:"sendEnd"`
	ReceiveHeadersEnd float64 `json:"receiveHeadersEnd"`
}

type cdpResponse struct {
	URL               string            `json:"url"`
	Status            int               `json:"status"`
	StatusText        string            `json:"statusText"`
	Headers           map[string]string `json:"headers"`
	MimeType          string            `json:"mimeType"`
	ConnectionReused  bool              `json:"connectionReused"`
	ConnectionID      float64           `json:"connectionId"`
	RemoteIPAddress   string            `json:"remoteIPAddress"`
	RemotePort        int               `json:"remotePort"`
	EncodedDataLength float64           `json:"encodedDataLength"` // bytes received up to the headers
	Timing            *cdpTiming        `json:"timing"`
	Protocol          string            `json:"protocol"`
	FromDiskCache     bool              `json:"fromDiskCache"`
	SecurityDetails   *struct {
		Protocol string `json:"protocol"`
	} `json:"securityDetails"`
}

type evRequestWillBeSent struct {
	RequestID        string          `json:"requestId"`
	Request          cdpRequest      `json:"request"`
	Timestamp        float64         `json:"timestamp"`
	WallTime         float64         `json:"wallTime"`
	Initiator        json.RawMessage `json:"initiator"`
	RedirectResponse *cdpResponse    `json:"redirectResponse"`
	Type             string          `json:"type"`
}

type evExtraInfo struct {
	RequestID   string            `json:"requestId"`
	Headers     map[string]string `json:"headers"`
	HeadersText string            `json:"headersText"` // response side, HTTP/1.x only
}

type evResponseReceived struct {
	RequestID string      `json:"requestId"`
	Timestamp float64     `json:"timestamp"`
	Type      string      `json:"type"`
	Response  cdpResponse `json:"response"`
}

type evDataReceived struct {
	RequestID  string  `json:"requestId"`
	DataLength int64   `json:"dataLength"`
	Timestamp  float64 `json:"timestamp"`
}

type evLoadingFinished struct {
	RequestID         string  `json:"requestId"`
	Timestamp         float64 `json:"timestamp"`
	EncodedDataLength float64 `json:"encodedDataLength"`
}

type evLoadingFailed struct {
	RequestID string  `json:"requestId"`
	Timestamp float64 `json:"timestamp"`
	ErrorText string  `json:"errorText"`
	Canceled  bool    `json:"canceled"`
}

type evPriority struct {
	RequestID   string `json:"requestId"`
	NewPriority string `json:"newPriority"`
}

type evTimestamp struct {
	Timestamp float64 `json:"timestamp"`
}

// exchange is one request and what came back, in CDP's terms.
type exchange struct {
	id         string
	req        cdpRequest
	typ        string
	initiator  json.RawMessage
	start      float64 // requestWillBeSent timestamp (s)
	wall       float64 // its wall time (s since the epoch)
	priority   string  // latest priority
	reqHeaders map[string]string
	resp       *cdpResponse
	respText   string // raw response head (HTTP/1.x)
	respAt     float64
	dataBytes  int64   // decoded body bytes (dataReceived)
	encoded    float64 // loadingFinished encodedDataLength (head + body on the wire, TLS excluded)
	end        float64 // loadingFinished/Failed timestamp
	finished   bool
	failed     string
	redirected bool // ended by a redirect; a new exchange has the same id
	fromCache  bool // answered by Chromium's memory or disk cache
}

// collector turns the event stream into exchanges. Events arrive on the
// CDP reader goroutine; the load goroutine reads under mu.
type collector struct {
	mu        sync.Mutex
	byID      map[string]*exchange // current exchange per request id
	all       []*exchange          // every exchange in start order
	loadAt    float64              // Page.loadEventFired; 0 = not yet
	dclAt     float64
	crashed   string
	lastEvent float64 // timestamp of the latest network event
	changed   chan struct{}
	decodeErr error
	// requestWillBeSentExtraInfo (the headers as sent) may arrive before
	// the requestWillBeSent it belongs to; it waits here until then.
	earlyReqHeaders map[string]map[string]string
	// page is the page's own DevTools session: its Page events and its
	// detaching count, those of the frames and workers attached below it
	// (whose Network events are the page's too) do not. "" = every
	// session's (a stream without child targets).
	page string
}

func newCollector() *collector {
	return &collector{byID: map[string]*exchange{}, changed: make(chan struct{}, 1), earlyReqHeaders: map[string]map[string]string{}}
}

func (c *collector) notify() {
	select {
	case c.changed <- struct{}{}:
	default:
	}
}

// handle is the CDP event callback.
func (c *collector) handle(ev cdpEvent) {
	c.mu.Lock()
	defer c.mu.Unlock()
	defer c.notify()
	if err := c.apply(ev); err != nil && c.decodeErr == nil {
		c.decodeErr = err
	}
}

// pageSession is the page's own DevTools session.
func (c *collector) pageSession() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.page
}

// setPage names the page's session (collector.page).
func (c *collector) setPage(session string) {
	c.mu.Lock()
	c.page = session
	c.mu.Unlock()
}

// fromPage reports whether a Page or Inspector event came from the page
// itself rather than from a frame attached below it.
func (c *collector) fromPage(ev cdpEvent) bool {
	return c.page == "" || ev.SessionID == c.page
}

func (c *collector) apply(ev cdpEvent) error {
	switch ev.Method {
	case "Page.loadEventFired", "Page.domContentEventFired":
		if !c.fromPage(ev) {
			return nil // an out-of-process iframe's own load event
		}
		var e evTimestamp
		if err := json.Unmarshal(ev.Params, &e); err != nil {
			return err
		}
		if ev.Method == "Page.loadEventFired" {
			c.loadAt = e.Timestamp
		} else {
			c.dclAt = e.Timestamp
		}
	case "Inspector.targetCrashed":
		if c.fromPage(ev) {
			c.crashed = "the page's renderer crashed"
		}
	case "Target.targetCrashed":
		c.crashed = "the page's renderer crashed"
	case "Target.detachedFromTarget":
		var e struct {
			SessionID string `json:"sessionId"`
		}
		if err := json.Unmarshal(ev.Params, &e); err != nil {
			return err
		}
		// A frame or worker attached below the page detaches when it goes
		// away (an iframe removed or navigated); only the page's own
		// session ending is fatal.
		if c.crashed == "" && (c.page == "" || e.SessionID == c.page) {
			c.crashed = "the page's target detached (tab closed or renderer gone)"
		}
	default:
		return c.applyNetwork(ev)
	}
	return nil
}

// applyNetwork handles the Network domain's events.
func (c *collector) applyNetwork(ev cdpEvent) error {
	switch ev.Method {
	case "Network.requestWillBeSent":
		var e evRequestWillBeSent
		if err := json.Unmarshal(ev.Params, &e); err != nil {
			return err
		}
		if old := c.byID[e.RequestID]; old != nil && e.RedirectResponse != nil {
			r := *e.RedirectResponse
			old.resp, old.respAt, old.end, old.finished, old.redirected = &r, e.Timestamp, e.Timestamp, true, true
		}
		x := &exchange{id: e.RequestID, req: e.Request, typ: e.Type, initiator: e.Initiator,
			start: e.Timestamp, wall: e.WallTime, priority: e.Request.InitialPriority}
		if h, ok := c.earlyReqHeaders[e.RequestID]; ok {
			x.reqHeaders = h
			delete(c.earlyReqHeaders, e.RequestID)
		}
		c.byID[e.RequestID] = x
		c.all = append(c.all, x)
		c.lastEvent = e.Timestamp
	case "Network.requestWillBeSentExtraInfo":
		var e evExtraInfo
		if err := json.Unmarshal(ev.Params, &e); err != nil {
			return err
		}
		if x := c.byID[e.RequestID]; x != nil && x.reqHeaders == nil && !x.finished {
			x.reqHeaders = e.Headers
		} else {
			c.earlyReqHeaders[e.RequestID] = e.Headers // for the request (or redirect hop) not yet announced
		}
	case "Network.responseReceived":
		var e evResponseReceived
		if err := json.Unmarshal(ev.Params, &e); err != nil {
			return err
		}
		if x := c.byID[e.RequestID]; x != nil {
			r := e.Response
			x.resp, x.respAt = &r, e.Timestamp
			x.fromCache = x.fromCache || r.FromDiskCache
			c.lastEvent = e.Timestamp
		}
	case "Network.responseReceivedExtraInfo":
		var e evExtraInfo
		if err := json.Unmarshal(ev.Params, &e); err != nil {
			return err
		}
		if x := c.byID[e.RequestID]; x != nil {
			x.respText = e.HeadersText
		}
	case "Network.dataReceived":
		var e evDataReceived
		if err := json.Unmarshal(ev.Params, &e); err != nil {
			return err
		}
		if x := c.byID[e.RequestID]; x != nil {
			x.dataBytes += e.DataLength
			c.lastEvent = e.Timestamp
		}
	case "Network.loadingFinished":
		var e evLoadingFinished
		if err := json.Unmarshal(ev.Params, &e); err != nil {
			return err
		}
		if x := c.byID[e.RequestID]; x != nil {
			x.end, x.encoded, x.finished = e.Timestamp, e.EncodedDataLength, true
			c.lastEvent = e.Timestamp
		}
	case "Network.loadingFailed":
		var e evLoadingFailed
		if err := json.Unmarshal(ev.Params, &e); err != nil {
			return err
		}
		if x := c.byID[e.RequestID]; x != nil {
			x.end, x.finished, x.failed = e.Timestamp, true, e.ErrorText
			if x.failed == "" && e.Canceled {
				x.failed = "canceled"
			}
			c.lastEvent = e.Timestamp
		}
	case "Network.requestServedFromCache":
		var e struct {
			RequestID string `json:"requestId"`
		}
		if err := json.Unmarshal(ev.Params, &e); err != nil {
			return err
		}
		if x := c.byID[e.RequestID]; x != nil {
			x.fromCache = true
		}
	case "Network.resourceChangedPriority":
		var e evPriority
		if err := json.Unmarshal(ev.Params, &e); err != nil {
			return err
		}
		if x := c.byID[e.RequestID]; x != nil {
			x.priority = e.NewPriority
		}
	}
	return nil
}
