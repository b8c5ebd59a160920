package metrics

import (
	"net/netip"
)

// Guard decides who may read the metrics and profiling endpoints:
// loopback always, plus the configured networks. It judges the TCP peer
// address (http.Request.RemoteAddr), never a header such as
// X-Forwarded-For, which any client can write.
type Guard struct {
	allowed []netip.Prefix
}

// NewGuard allows loopback and the given networks.
func NewGuard(allowed []netip.Prefix) Guard {
	return Guard{allowed: append([]netip.Prefix(nil), allowed...)}
}

// Allows reports whether the peer at remoteAddr ("host:port" as
// net/http sets it, or a bare address) may read the endpoints. Anything
// unparseable (a Unix socket's peer) is refused.
func (g Guard) Allows(remoteAddr string) bool {
	var addr netip.Addr
	if ap, err := netip.ParseAddrPort(remoteAddr); err == nil {
		addr = ap.Addr()
	} else if a, err := netip.ParseAddr(remoteAddr); err == nil {
		addr = a
	} else {
		return false
	}
	// An IPv4 client of a dual-stack listener arrives as ::ffff:a.b.c.d;
	// a zone (fe80::1%eth0) would make Contains false for every prefix.
	addr = addr.Unmap().WithZone("")
	if addr.IsLoopback() {
		return true
	}
	for _, p := range g.allowed {
		if p.Contains(addr) {
			return true
		}
	}
	return false
}
