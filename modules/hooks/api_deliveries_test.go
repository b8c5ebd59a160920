package hooks

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/hearth-forge/hearth/core/domain"
)

func TestDeliveryEntity(t *testing.T) {
	t.Parallel()
	hook := &domain.ProjectHook{ID: 7, URL: "http://203.0.113.7/hook", Token: "s3cr3t"}
	at := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name string
		hook *domain.ProjectHook
		d    domain.HookDelivery
		want string
	}{
		{"delivered", hook, domain.HookDelivery{ID: 3, Event: "Merge Request Hook", Payload: `{"object_kind":"merge_request"}`,
			State: domain.HookDeliveryDelivered, Attempts: 2, MaxAttempts: 5, LastStatus: 200, LastResponse: "ok",
			LastDuration: 1500 * time.Millisecond, CreatedAt: at, UpdatedAt: at.Add(time.Minute)}, `{
			"id": 3, "url": "http://203.0.113.7/hook", "trigger": "merge_request_hooks",
			"request_headers": {"Content-Type": "application/json", "X-Gitlab-Event": "Merge Request Hook", "X-Gitlab-Token": "[REDACTED]"},
			"request_data": {"object_kind": "merge_request"}, "response_headers": {}, "response_body": "ok",
			"execution_duration": 1.5, "response_status": "200", "internal_error_message": null,
			"created_at": "2026-11-27T12:00:00.000Z", "updated_at": "2026-11-27T12:01:00.000Z",
			"state": "delivered", "attempts": 2, "max_attempts": 5, "next_attempt_at": null}`},
		{"no response, retrying, hook without token", &domain.ProjectHook{ID: 7, URL: "http://203.0.113.7/hook"},
			domain.HookDelivery{ID: 4, Event: "Push Hook", Payload: `{"object_kind":"push"}`, State: domain.HookDeliveryPending,
				Attempts: 1, MaxAttempts: 5, LastError: "connection refused", NextAttemptAt: at.Add(10 * time.Second),
				CreatedAt: at, UpdatedAt: at}, `{
			"id": 4, "url": "http://203.0.113.7/hook", "trigger": "push_hooks",
			"request_headers": {"Content-Type": "application/json", "X-Gitlab-Event": "Push Hook"},
			"request_data": {"object_kind": "push"}, "response_headers": {}, "response_body": "",
			"execution_duration": 0, "response_status": "internal error", "internal_error_message": "connection refused",
			"created_at": "2026-11-27T12:00:00.000Z", "updated_at": "2026-11-27T12:00:00.000Z",
			"state": "pending", "attempts": 1, "max_attempts": 5, "next_attempt_at": "2026-11-27T12:00:10.000Z"}`},
		{"not tried yet", hook, domain.HookDelivery{ID: 5, Event: "Tag Push Hook", Payload: `{}`, State: domain.HookDeliveryPending,
			MaxAttempts: 5, NextAttemptAt: at, CreatedAt: at, UpdatedAt: at}, `{
			"id": 5, "url": "http://203.0.113.7/hook", "trigger": "tag_push_hooks",
			"request_headers": {"Content-Type": "application/json", "X-Gitlab-Event": "Tag Push Hook", "X-Gitlab-Token": "[REDACTED]"},
			"request_data": {}, "response_headers": {}, "response_body": "",
			"execution_duration": 0, "response_status": null, "internal_error_message": null,
			"created_at": "2026-11-27T12:00:00.000Z", "updated_at": "2026-11-27T12:00:00.000Z",
			"state": "pending", "attempts": 0, "max_attempts": 5, "next_attempt_at": "2026-11-27T12:00:00.000Z"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, err := json.Marshal(deliveryOf(tc.hook, &tc.d))
			if err != nil {
				t.Fatal(err)
			}
			var got, want any
			if err := json.Unmarshal(b, &got); err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal([]byte(tc.want), &want); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Fatalf("entity (-want +got):\n%s", diff)
			}
		})
	}
}

func TestTriggerOf(t *testing.T) {
	t.Parallel()
	for event, want := range map[string]string{
		domain.HookEventPush: "push_hooks", domain.HookEventTagPush: "tag_push_hooks", domain.HookEventIssue: "issue_hooks",
		domain.HookEventNote: "note_hooks", domain.HookEventMergeRequest: "merge_request_hooks",
		domain.HookEventPipeline: "pipeline_hooks", domain.HookEventJob: "job_hooks", domain.HookEventSystem: "system_hooks",
	} {
		if got := triggerOf(event); got != want {
			t.Errorf("triggerOf(%q) = %q, want %q", event, got, want)
		}
	}
}
