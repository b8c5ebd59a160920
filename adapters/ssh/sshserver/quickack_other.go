//go:build !linux

package sshserver

import "net"

// quickAck is Linux only (see quickack_linux.go).
func quickAck(net.Conn) {}
