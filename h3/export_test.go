package h3

import "github.com/quic-go/quic-go"

// KillInSwitch closes c's QUIC connection as http3's client does when its
// control-stream goroutine loses the race with the switch to 1-RTT after
// a rejection (see redial), and returns when the connection has ended.
func KillInSwitch(c *Conn) {
	q := c.conn()
	q.CloseWithError(quic.ApplicationErrorCode(0x102), "control stream failed") // H3_INTERNAL_ERROR
	<-q.Context().Done()
}
