package server

import (
	"context"
	"net/http/httptest"
	"testing"

	"github.com/spdylab/spdylab/page"
)

// think returns at once without a delay or with one it cannot read, and
// when the request is gone before the delay ends (a load that was
// cancelled must not keep its handler).
func TestThinkReturnsWhenItHasNothingToWaitFor(t *testing.T) {
	r := httptest.NewRequest("GET", "/x", nil)
	think(r, nil)
	think(r, map[string]string{page.ServerDelayHeader: "soon"})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	think(r.WithContext(ctx), map[string]string{page.ServerDelayHeader: "1h"})
}
