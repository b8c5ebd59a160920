// Package sender POSTs webhook payloads: ports.HookSender over netguard's
// client, so every delivery is checked against the URL guard before it is
// sent and again, at the socket, against the address actually dialled.
package sender

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/hearth-forge/hearth/adapters/webhook/netguard"
	"github.com/hearth-forge/hearth/core/domain"
	"github.com/hearth-forge/hearth/core/ports"
)

// drainLimit is how much of a response beyond what is kept is read so the
// connection can be reused; a longer body closes it instead.
const drainLimit = 256 << 10

// Sender implements ports.HookSender. Its two clients (TLS verified and
// not) are shared by every delivery, so connections to a receiver are
// reused.
type Sender struct {
	guard     netguard.Guard
	userAgent string
	verified  *http.Client
	insecure  *http.Client
}

// New returns a sender whose requests take at most timeout each and say
// userAgent.
func New(guard netguard.Guard, timeout time.Duration, userAgent string) *Sender {
	return &Sender{guard: guard, userAgent: userAgent,
		verified: guard.Client(timeout, true), insecure: guard.Client(timeout, false)}
}

// Send posts payload to t.URL with GitLab's webhook headers.
func (s *Sender) Send(ctx context.Context, t domain.HookTarget, m ports.HookMessage) ports.HookResponse {
	start := time.Now()
	out := s.send(ctx, t, m)
	out.Duration = time.Since(start)
	return out
}

func (s *Sender) send(ctx context.Context, t domain.HookTarget, m ports.HookMessage) ports.HookResponse {
	// The URL was checked when the hook was saved; settings and DNS may
	// have changed since, and a scheme other than http(s) must never reach
	// the transport.
	if err := s.guard.CheckURL(ctx, t.URL); err != nil {
		return ports.HookResponse{Err: err, Refused: netguard.IsBlocked(err)}
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, t.URL, bytes.NewReader(m.Payload))
	if err != nil {
		return ports.HookResponse{Err: fmt.Errorf("webhook request: %w", err), Refused: true}
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", s.userAgent)
	req.Header.Set("X-Gitlab-Event", m.Event)
	if m.DeliveryID != 0 {
		req.Header.Set("X-Hearth-Delivery", strconv.FormatInt(m.DeliveryID, 10))
	}
	if t.Token != "" {
		req.Header.Set("X-Gitlab-Token", t.Token)
	}
	client := s.verified
	if !t.VerifyTLS {
		client = s.insecure
	}
	resp, err := client.Do(req)
	if err != nil {
		return ports.HookResponse{Err: unwrapURLError(err), Refused: netguard.IsBlocked(err)}
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, domain.HookResponseLimit))
	if err == nil {
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, drainLimit))
	}
	// A body cut short by a timeout still leaves the status, which is the
	// answer that counts.
	return ports.HookResponse{Status: resp.StatusCode, Body: string(body)}
}

// unwrapURLError drops net/http's `Post "url": ` prefix, which repeats
// the URL (and any credentials in it) in every logged error.
func unwrapURLError(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) && ue.Err != nil {
		return ue.Err
	}
	return err
}

var _ ports.HookSender = (*Sender)(nil)
