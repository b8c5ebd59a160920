package sshserver

import (
	"net"
	"syscall"
)

// quickAck asks Linux to acknowledge the client's next segments at once
// instead of after the delayed-ACK timer. OpenSSH does not disable Nagle
// on a session without a terminal, so in the handshake a client that
// writes twice before reading holds its second packet until the first is
// acknowledged: without quick ACKs each such exchange waits out the
// server's delayed ACK (tens of milliseconds, several times per login).
// The same holds for the small window adjustments a client sends while
// it receives a clone. Linux turns quick ACK mode off again on its own,
// hence a call per read (reads are few: clients mostly receive).
func quickAck(c net.Conn) {
	tc, ok := c.(*net.TCPConn)
	if !ok {
		return
	}
	raw, err := tc.SyscallConn()
	if err != nil {
		return
	}
	_ = raw.Control(func(fd uintptr) {
		_ = syscall.SetsockoptInt(int(fd), syscall.IPPROTO_TCP, syscall.TCP_QUICKACK, 1)
	})
}
