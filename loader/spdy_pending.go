package loader

import (
	"context"
	"errors"
	"io"
	"net/http"
)

// Until the spdy package's client lands, SPDY loads fail with a clear error.
type spdyPending struct{}

func newSPDY(*load, string) protocol { return spdyPending{} }

func (spdyPending) fetch(context.Context, *entry, func(io.Reader) (int64, error)) error {
	return errors.New("the SPDY client is not available in this build yet")
}
func (spdyPending) pushed(*entry) (*http.Response, *connection, bool) { return nil, nil, false }
func (spdyPending) headerBytes() (int64, int64)                       { return 0, 0 }
func (spdyPending) shutdown()                                         {}
