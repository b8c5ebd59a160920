package netguard

import (
	"context"
	"fmt"
	"net"
	"net/netip"
	"strconv"
	"strings"
)

// Resolver looks up a host name's addresses; *net.Resolver is one.
type Resolver interface {
	LookupIPAddr(ctx context.Context, host string) ([]net.IPAddr, error)
}

func (g Guard) resolver() Resolver {
	if g.Resolver == nil {
		return net.DefaultResolver
	}
	return g.Resolver
}

// resolve returns the addresses host stands for. IP literals, the legacy
// numeric IPv4 forms C's inet_aton accepts (2130706433, 0x7f.1, 0177.0.0.1)
// and the localhost names (RFC 6761: always loopback) are answered without
// asking the resolver, so what is checked is what is dialled whatever the
// resolver does with them.
func (g Guard) resolve(ctx context.Context, host string) ([]netip.Addr, error) {
	if addr, err := netip.ParseAddr(host); err == nil {
		return []netip.Addr{addr.Unmap()}, nil
	}
	if addr, ok := parseLegacyIPv4(host); ok {
		return []netip.Addr{addr}, nil
	}
	name := strings.ToLower(strings.TrimSuffix(host, "."))
	if name == "localhost" || strings.HasSuffix(name, ".localhost") {
		return []netip.Addr{netip.MustParseAddr("127.0.0.1"), netip.IPv6Loopback()}, nil
	}
	ips, err := g.resolver().LookupIPAddr(ctx, host)
	if err != nil {
		return nil, fmt.Errorf("resolve %q: %w", host, err)
	}
	addrs := make([]netip.Addr, 0, len(ips))
	for _, ip := range ips {
		addr, ok := netip.AddrFromSlice(ip.IP)
		if !ok {
			continue
		}
		// Unmap: net.IP keeps IPv4 in 16 bytes; dial it as IPv4.
		addrs = append(addrs, addr.Unmap().WithZone(ip.Zone))
	}
	if len(addrs) == 0 {
		return nil, fmt.Errorf("resolve %q: no addresses", host)
	}
	return addrs, nil
}

// parseLegacyIPv4 parses the inet_aton forms of an IPv4 address: one to
// four dot-separated parts, each decimal, octal (leading 0) or hex (0x),
// the last part filling the remaining bytes. Go's own parsers reject them,
// but C resolvers and some proxies accept them, so the guard reads them as
// the addresses they are rather than as names.
func parseLegacyIPv4(host string) (netip.Addr, bool) {
	parts := strings.Split(host, ".")
	if len(parts) > 4 {
		return netip.Addr{}, false
	}
	vals := make([]uint64, len(parts))
	for i, p := range parts {
		v, ok := parseInetPart(p)
		if !ok {
			return netip.Addr{}, false
		}
		vals[i] = v
	}
	last := len(vals) - 1
	var n uint64
	for i := 0; i < last; i++ {
		if vals[i] > 0xff {
			return netip.Addr{}, false
		}
		n |= vals[i] << (24 - 8*uint(i))
	}
	if vals[last] >= 1<<(32-8*uint(last)) {
		return netip.Addr{}, false
	}
	n |= vals[last]
	return netip.AddrFrom4([4]byte{byte(n >> 24), byte(n >> 16), byte(n >> 8), byte(n)}), true
}

func parseInetPart(p string) (uint64, bool) {
	if p == "" {
		return 0, false
	}
	base, digits := 10, p
	switch {
	case len(p) > 1 && (p[:2] == "0x" || p[:2] == "0X"):
		base, digits = 16, p[2:]
		if digits == "" {
			return 0, false
		}
	case len(p) > 1 && p[0] == '0':
		base, digits = 8, p[1:]
	}
	v, err := strconv.ParseUint(digits, base, 32)
	return v, err == nil
}
