// Package netguard keeps webhook deliveries from reaching the server's own
// network (server-side request forgery). Webhook URLs come from users, so
// by default a URL whose host is, or resolves to, a loopback, unspecified,
// private, link-local, shared (CGNAT) or broadcast address is refused, in
// IPv4, IPv6 and IPv4-mapped IPv6 forms alike, as GitLab's UrlBlocker does
// unless an admin allows local requests.
//
// The check runs twice: Guard.CheckURL when a hook is saved (GitLab's 422
// "is blocked: ..." validation), and Guard.Client at delivery, whose dialer
// checks the address actually connected to, so a name that resolved to a
// public address at creation and to a local one later (DNS rebinding) is
// still refused. The client never follows redirects and ignores proxy
// environment variables. Both report refusals as *BlockedError.
package netguard
