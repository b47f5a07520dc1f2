package server

import (
	"net/http"
	"time"
)

// ServerDelayHeader in a resource's manifest headers makes the server
// wait that long (a Go duration, "500ms") before it answers the resource:
// how a page models a server that thinks before answering (the critical
// path's server-wait known answer). It is sent as a response header too.
const ServerDelayHeader = "X-Spdylab-Server-Delay"

// think waits the delay headers ask for, or until the request is gone.
func think(r *http.Request, headers map[string]string) {
	d, err := time.ParseDuration(headers[ServerDelayHeader])
	if err != nil || d <= 0 {
		return
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-r.Context().Done():
	}
}
