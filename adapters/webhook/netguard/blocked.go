package netguard

import (
	"net"
	"net/netip"
)

// GitLab's UrlBlocker messages (lib/gitlab/url_blocker.rb), reused so API
// clients see the texts they know.
const (
	MsgInvalidURI       = "URI is invalid"
	MsgSchemes          = "Only allowed schemes are http, https"
	MsgHostnameInvalid  = "Hostname or IP address invalid"
	MsgUnresolvable     = "Host cannot be resolved or invalid"
	MsgLocalhost        = "Requests to localhost are not allowed"
	MsgLoopback         = "Requests to loopback addresses are not allowed"
	MsgLocalNetwork     = "Requests to the local network are not allowed"
	MsgLinkLocal        = "Requests to the link local network are not allowed"
	MsgSharedAddress    = "Requests to the shared address space are not allowed"
	MsgLimitedBroadcast = "Requests to the limited broadcast address are not allowed"
)

// rule is one blocked range and the message GitLab gives for it. The order
// of rules is GitLab's order of checks, so when a name resolves to several
// blocked addresses the reported reason is the one GitLab would report.
type rule struct {
	prefix netip.Prefix
	msg    string
}

var rules = []rule{
	// GitLab's "localhost" check covers the unspecified addresses and the
	// host's own addresses, of which 127.0.0.1 and ::1 are always two.
	{netip.MustParsePrefix("0.0.0.0/8"), MsgLocalhost},
	{netip.MustParsePrefix("::/128"), MsgLocalhost},
	{netip.MustParsePrefix("127.0.0.1/32"), MsgLocalhost},
	{netip.MustParsePrefix("::1/128"), MsgLocalhost},
	{netip.MustParsePrefix("127.0.0.0/8"), MsgLoopback},
	{netip.MustParsePrefix("10.0.0.0/8"), MsgLocalNetwork},
	{netip.MustParsePrefix("172.16.0.0/12"), MsgLocalNetwork},
	{netip.MustParsePrefix("192.168.0.0/16"), MsgLocalNetwork},
	{netip.MustParsePrefix("fc00::/7"), MsgLocalNetwork},  // unique local
	{netip.MustParsePrefix("fec0::/10"), MsgLocalNetwork}, // deprecated site local
	{netip.MustParsePrefix("169.254.0.0/16"), MsgLinkLocal},
	{netip.MustParsePrefix("fe80::/10"), MsgLinkLocal},
	{netip.MustParsePrefix("224.0.0.0/24"), MsgLinkLocal}, // link-local multicast
	{netip.MustParsePrefix("ff02::/16"), MsgLinkLocal},    // link-local multicast
	{netip.MustParsePrefix("100.64.0.0/10"), MsgSharedAddress},
	{netip.MustParsePrefix("255.255.255.255/32"), MsgLimitedBroadcast},
	// GitLab does not list multicast (a TCP connect to it fails anyway);
	// refusing it keeps delivery from ever trying.
	{netip.MustParsePrefix("224.0.0.0/4"), MsgLocalNetwork},
	{netip.MustParsePrefix("ff00::/8"), MsgLocalNetwork},
}

// Blocked reports whether ip is an address webhooks may not reach unless
// local requests are allowed: loopback, unspecified (0.0.0.0/8, ::),
// private (10/8, 172.16/12, 192.168/16, fc00::/7, fec0::/10), link-local
// unicast and multicast, shared address space (100.64/10), the limited
// broadcast address, multicast, and the IPv4-mapped IPv6 form of each.
// A nil or malformed ip is blocked.
func Blocked(ip net.IP) bool {
	return reason(ip) != ""
}

// reason returns GitLab's message for a blocked ip, or "" when ip is public.
func reason(ip net.IP) string {
	addr, ok := netip.AddrFromSlice(ip)
	if !ok {
		return MsgHostnameInvalid
	}
	return addrReason(addr)
}

func addrReason(addr netip.Addr) string {
	addr = addr.WithZone("").Unmap() // ::ffff:127.0.0.1 is 127.0.0.1
	for _, r := range rules {
		if r.prefix.Contains(addr) {
			return r.msg
		}
	}
	return ""
}

// firstReason returns the reason GitLab would give for a set of resolved
// addresses: the earliest rule any of them hits.
func firstReason(addrs []netip.Addr) string {
	best := len(rules)
	for _, a := range addrs {
		a = a.WithZone("").Unmap()
		for i := 0; i < best; i++ {
			if rules[i].prefix.Contains(a) {
				best = i
				break
			}
		}
	}
	if best == len(rules) {
		return ""
	}
	return rules[best].msg
}
