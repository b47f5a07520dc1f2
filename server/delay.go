package server

import (
	"net/http"
	"time"

	"github.com/spdylab/spdylab/page"
)

// think waits the delay a resource's manifest headers ask for
// (page.ServerDelay), or until the request is gone.
func think(r *http.Request, headers map[string]string) {
	d := page.ServerDelay(headers)
	if d <= 0 {
		return
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-r.Context().Done():
	}
}
