package netguard

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"syscall"
	"time"
)

// Client returns an HTTP client for webhook deliveries. Its dialer resolves
// through the guard's Resolver and checks, in the socket's Control hook,
// the very address being connected to, so the check cannot be raced by a
// second DNS answer; a refused address fails the request with an error
// that errors.As finds a *BlockedError in. The client ignores proxy
// settings (a proxy would dial for us, unchecked), never follows redirects
// (the 3xx is the response), verifies TLS certificates only when verifyTLS
// is set, and gives up on the whole exchange after timeout.
func (g Guard) Client(timeout time.Duration, verifyTLS bool) *http.Client {
	dialer := &net.Dialer{
		Timeout:   10 * time.Second,
		KeepAlive: 30 * time.Second,
		Control:   g.control,
	}
	transport := &http.Transport{
		Proxy:       nil,
		DialContext: g.dialContext(dialer),
		TLSClientConfig: &tls.Config{
			// The hook's enable_ssl_verification decides, as in GitLab.
			InsecureSkipVerify: !verifyTLS,
			MinVersion:         tls.VersionTLS12,
		},
		ForceAttemptHTTP2:      true,
		TLSHandshakeTimeout:    10 * time.Second,
		ResponseHeaderTimeout:  timeout,
		ExpectContinueTimeout:  time.Second,
		IdleConnTimeout:        90 * time.Second,
		MaxIdleConnsPerHost:    2,
		MaxResponseHeaderBytes: 64 << 10,
	}
	return &http.Client{
		Transport: transport,
		Timeout:   timeout,
		CheckRedirect: func(*http.Request, []*http.Request) error {
			return http.ErrUseLastResponse
		},
	}
}

// dialContext resolves with the guard's resolver and dials each address in
// turn as an IP literal, so the dialer's Control sees what is connected.
func (g Guard) dialContext(d *net.Dialer) func(ctx context.Context, network, addr string) (net.Conn, error) {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		host, port, err := net.SplitHostPort(addr)
		if err != nil {
			return nil, fmt.Errorf("dial %s: %w", addr, err)
		}
		ips, err := g.resolve(ctx, host)
		if err != nil {
			return nil, fmt.Errorf("dial %s: %w", addr, err)
		}
		var first error
		for _, ip := range ips {
			conn, err := d.DialContext(ctx, network, net.JoinHostPort(ip.String(), port))
			if err == nil {
				return conn, nil
			}
			if first == nil {
				first = err
			}
			if ctx.Err() != nil {
				break
			}
		}
		return nil, first
	}
}

// control runs after the socket is made and before it connects, with the
// numeric remote address: the last word on where the request goes.
func (g Guard) control(_, address string, _ syscall.RawConn) error {
	host, _, err := net.SplitHostPort(address)
	if err != nil {
		return &BlockedError{Addr: address, Reason: MsgHostnameInvalid}
	}
	addr, err := netip.ParseAddr(host)
	if err != nil {
		return &BlockedError{Addr: address, Reason: MsgHostnameInvalid}
	}
	if g.AllowLocal {
		return nil
	}
	if msg := addrReason(addr); msg != "" {
		return &BlockedError{Addr: address, Reason: msg}
	}
	return nil
}

// IsBlocked reports whether err, such as one from a Client request, is or
// wraps a guard refusal.
func IsBlocked(err error) bool {
	var b *BlockedError
	return errors.As(err, &b)
}
