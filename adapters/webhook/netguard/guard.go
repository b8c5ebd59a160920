package netguard

import (
	"context"
	"net/netip"
	"net/url"
	"strings"
	"unicode"
)

// Guard decides which webhook URLs and addresses may be reached.
type Guard struct {
	// AllowLocal lets hooks reach local addresses (the
	// webhooks.allow_local_requests setting, GitLab's
	// allow_local_requests_from_web_hooks_and_services).
	AllowLocal bool
	// Resolver looks up host names; nil is net.DefaultResolver.
	Resolver Resolver
}

// CheckURL validates a hook URL when it is saved: an absolute http or https
// URL with a host that resolves, none of whose addresses is blocked unless
// AllowLocal. User information in the URL is allowed, as in GitLab. Every
// refusal is a *BlockedError; a cancelled ctx is returned as is.
func (g Guard) CheckURL(ctx context.Context, raw string) error {
	blocked := func(msg string) error { return &BlockedError{URL: raw, Reason: msg} }
	if strings.ContainsAny(raw, "\r\n") {
		return blocked(MsgInvalidURI)
	}
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil {
		return blocked(MsgInvalidURI)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return blocked(MsgSchemes)
	}
	host := u.Hostname()
	if !validHostname(host) {
		return blocked(MsgHostnameInvalid)
	}
	addrs, err := g.resolve(ctx, host)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return blocked(MsgUnresolvable)
	}
	if g.AllowLocal {
		return nil
	}
	if msg := firstReason(addrs); msg != "" {
		return blocked(msg)
	}
	return nil
}

// validHostname is GitLab's hostname rule: an IP address, or a name that
// starts with a letter or digit (so "-oProxyCommand=..." is no host).
func validHostname(host string) bool {
	if host == "" {
		return false
	}
	if _, err := netip.ParseAddr(host); err == nil {
		return true
	}
	r := []rune(host)[0]
	return unicode.IsLetter(r) || unicode.IsDigit(r)
}
