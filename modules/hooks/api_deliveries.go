package hooks

import (
	"encoding/json"
	"strconv"
	"strings"

	"github.com/hearth-forge/hearth/core/domain"
	"github.com/hearth-forge/hearth/core/httpx"
)

// redacted stands for the hook's secret token in request_headers, as
// GitLab shows it.
const redacted = "[REDACTED]"

// deliveryJSON is later GitLab's Entities::WebHookLog (the hook events
// API, GitLab 17.2), in its order, then Hearth's outbox fields:
//
//   - url is the hook's URL now (a delivery does not keep the URL it was
//     sent to; the current one is where the next attempt goes).
//   - request_headers are the headers Hearth sends, the token masked;
//     request_data is the payload as a JSON object.
//   - response_headers is always {}: Hearth does not keep them.
//   - response_status is a string as GitLab's column is: the HTTP status
//     ("200"), "internal error" when an attempt got no response (the
//     reason is in internal_error_message), null before the first attempt.
//   - execution_duration is the last attempt's, in seconds.
//   - state (pending, running, delivered, failed) and attempts say where
//     the delivery is in the outbox; next_attempt_at, while pending, when
//     it is tried next.
type deliveryJSON struct {
	ID                   int64             `json:"id"`
	URL                  string            `json:"url"`
	Trigger              string            `json:"trigger"`
	RequestHeaders       map[string]string `json:"request_headers"`
	RequestData          json.RawMessage   `json:"request_data"`
	ResponseHeaders      map[string]string `json:"response_headers"`
	ResponseBody         string            `json:"response_body"`
	ExecutionDuration    float64           `json:"execution_duration"`
	ResponseStatus       *string           `json:"response_status"`
	InternalErrorMessage *string           `json:"internal_error_message"`
	CreatedAt            httpx.Time        `json:"created_at"`
	UpdatedAt            httpx.Time        `json:"updated_at"`
	State                string            `json:"state"`
	Attempts             int               `json:"attempts"`
	MaxAttempts          int               `json:"max_attempts"`
	NextAttemptAt        *httpx.Time       `json:"next_attempt_at"`
}

// internalError is GitLab's response_status for an attempt that got no
// HTTP response (WebHookService::InternalErrorResponse).
const internalError = "internal error"

func deliveryOf(h *domain.ProjectHook, d *domain.HookDelivery) deliveryJSON {
	headers := map[string]string{"Content-Type": "application/json", "X-Gitlab-Event": d.Event}
	if h.Token != "" {
		headers["X-Gitlab-Token"] = redacted
	}
	data := json.RawMessage(d.Payload)
	if !json.Valid(data) {
		// Never expected: payloads are built as JSON. Shown as a string
		// rather than breaking the whole list.
		data, _ = json.Marshal(d.Payload)
	}
	out := deliveryJSON{ID: d.ID, URL: h.URL, Trigger: triggerOf(d.Event), RequestHeaders: headers,
		RequestData: data, ResponseHeaders: map[string]string{}, ResponseBody: d.LastResponse,
		ExecutionDuration: d.LastDuration.Seconds(), CreatedAt: httpx.TimeOf(d.CreatedAt),
		UpdatedAt: httpx.TimeOf(d.UpdatedAt), State: string(d.State), Attempts: d.Attempts, MaxAttempts: d.MaxAttempts}
	switch {
	case d.LastStatus > 0:
		s := strconv.Itoa(d.LastStatus)
		out.ResponseStatus = &s
	case d.LastError != "":
		s, e := internalError, d.LastError
		out.ResponseStatus, out.InternalErrorMessage = &s, &e
	}
	if d.State == domain.HookDeliveryPending {
		out.NextAttemptAt = &httpx.Time{Time: d.NextAttemptAt}
	}
	return out
}

// triggerOf is GitLab's trigger, the hook scope that sent the event
// ("push_hooks"), from its X-Gitlab-Event header ("Push Hook"): GitLab
// derives the header from the scope (hook_name.singularize.titleize),
// this is the inverse.
func triggerOf(event string) string {
	if event == "" {
		return ""
	}
	return strings.ToLower(strings.ReplaceAll(event, " ", "_")) + "s"
}
