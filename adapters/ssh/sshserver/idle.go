package sshserver

import (
	"net"
	"sync"
	"sync/atomic"
	"time"
)

// idleConn closes its connection once no byte has moved either way for
// timeout. A read deadline alone would cut a long clone that only writes,
// and would miss a client that stopped reading while the server blocks in
// Write; timing the last transfer in both directions covers both.
type idleConn struct {
	net.Conn
	timeout time.Duration
	last    atomic.Int64 // unix nanoseconds of the last byte moved
	timer   *time.Timer
	onIdle  func()

	closed    atomic.Bool
	closeOnce sync.Once
	closeErr  error
}

// newIdleConn wraps c; a timeout of 0 disables the idle check. onIdle, when
// set, is called once before an idle connection is closed (to log it).
func newIdleConn(c net.Conn, timeout time.Duration, onIdle func()) *idleConn {
	ic := &idleConn{Conn: c, timeout: timeout, onIdle: onIdle}
	ic.last.Store(time.Now().UnixNano())
	if timeout > 0 {
		ic.timer = time.AfterFunc(timeout, ic.check)
	}
	return ic
}

func (c *idleConn) check() {
	if c.closed.Load() {
		return
	}
	idle := time.Since(time.Unix(0, c.last.Load()))
	if idle < c.timeout {
		c.timer.Reset(c.timeout - idle)
		return
	}
	if c.onIdle != nil {
		c.onIdle()
	}
	_ = c.Close()
}

func (c *idleConn) Read(b []byte) (int, error) {
	quickAck(c.Conn)
	n, err := c.Conn.Read(b)
	if n > 0 {
		c.last.Store(time.Now().UnixNano())
	}
	return n, err
}

func (c *idleConn) Write(b []byte) (int, error) {
	n, err := c.Conn.Write(b)
	if n > 0 {
		c.last.Store(time.Now().UnixNano())
	}
	return n, err
}

// Close stops the idle timer and closes the connection; later calls return
// the first call's result.
func (c *idleConn) Close() error {
	c.closeOnce.Do(func() {
		c.closed.Store(true)
		if c.timer != nil {
			c.timer.Stop()
		}
		c.closeErr = c.Conn.Close()
	})
	return c.closeErr
}
