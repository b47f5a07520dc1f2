package page

import (
	"fmt"
	"time"
)

// ServerDelayHeader in a resource's Headers makes the lab's servers wait
// that long (a Go duration, "500ms") before they answer the resource: how
// a page models a server that thinks before answering. The servers send
// it as a response header too. Since the lab's servers wait for nothing
// else, the critical path takes it as the server's whole think time.
const ServerDelayHeader = "X-Spdylab-Server-Delay"

// ServerDelay is the think time a resource's headers ask the servers for:
// 0 without one (Validate refuses a value that does not parse).
func ServerDelay(headers map[string]string) time.Duration {
	d, err := parseServerDelay(headers)
	if err != nil {
		return 0
	}
	return d
}

func parseServerDelay(headers map[string]string) (time.Duration, error) {
	v, ok := headers[ServerDelayHeader]
	if !ok {
		return 0, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil || d < 0 {
		return 0, fmt.Errorf("header %s %q: want a duration of 0 or more, such as 500ms", ServerDelayHeader, v)
	}
	return d, nil
}
