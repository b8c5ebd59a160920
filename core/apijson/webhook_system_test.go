package apijson_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	gitlab "gitlab.com/gitlab-org/api/client-go"

	"github.com/hearth-forge/hearth/core/apijson"
	"github.com/hearth-forge/hearth/core/domain"
)

// Golden key lists, transcribed from the request bodies of GitLab 9.x's
// doc/system_hooks/system_hooks.md.
var (
	systemProjectKeys = []string{"created_at", "updated_at", "event_name", "name", "owner_email",
		"owner_name", "path", "path_with_namespace", "project_id", "project_visibility"}
	systemTeamKeys = []string{"created_at", "updated_at", "event_name", "access_level", "project_id",
		"project_name", "project_path", "project_path_with_namespace", "user_email", "user_name",
		"user_username", "user_id", "project_visibility"}
	systemGroupMemberKeys = []string{"created_at", "updated_at", "event_name", "group_access", "group_id",
		"group_name", "group_path", "user_email", "user_name", "user_username", "user_id"}
	systemUserKeys  = []string{"created_at", "updated_at", "email", "event_name", "name", "username", "user_id"}
	systemKeyKeys   = []string{"event_name", "created_at", "updated_at", "username", "key", "id"}
	systemGroupKeys = []string{"created_at", "updated_at", "event_name", "name", "owner_email",
		"owner_name", "path", "group_id"}
)

var (
	sysCreated = time.Date(2012, 7, 21, 9, 30, 54, 123e6, time.FixedZone("", 2*3600))
	sysUpdated = time.Date(2012, 7, 21, 7, 38, 22, 0, time.UTC)
	sysUser    = domain.User{ID: 41, Username: "johnsmith", Name: "John Smith", Email: "johnsmith@gmail.com",
		CreatedAt: sysCreated, UpdatedAt: sysUpdated}
	sysProject = apijson.SystemProjectInput{
		Project: domain.Project{ID: 74, Name: "StoreCloud", Path: "storecloud", Visibility: domain.Private,
			CreatedAt: sysCreated, UpdatedAt: sysUpdated},
		FullPath: "jsmith/storecloud", OwnerName: "John Smith", OwnerEmail: "johnsmith@gmail.com",
	}
)

// parseSystem checks the body's keys and decodes it with go-gitlab.
func parseSystem(t *testing.T, v any, keys []string) (any, []byte) {
	t.Helper()
	body := marshal(t, v)
	assertKeys(t, body, joinKeys(keys))
	ev, err := gitlab.ParseSystemhook(body)
	if err != nil {
		t.Fatalf("go-gitlab rejects the system hook: %v\n%s", err, body)
	}
	// Record times as the documentation writes them: UTC, whole seconds.
	if !strings.Contains(string(body), `"created_at":"2012-07-21T07:30:54Z"`) {
		t.Errorf("created_at not in GitLab's layout: %s", body)
	}
	return ev, body
}

func TestProjectSystemPayloads(t *testing.T) {
	for _, event := range []string{apijson.SystemProjectCreate, apijson.SystemProjectDestroy} {
		ev, _ := parseSystem(t, apijson.ProjectSystemPayload(event, sysProject, ""), systemProjectKeys)
		p := ev.(*gitlab.ProjectSystemEvent)
		if p.EventName != event || p.Name != "StoreCloud" || p.Path != "storecloud" ||
			p.PathWithNamespace != "jsmith/storecloud" || p.ProjectID != 74 || p.OwnerName != "John Smith" ||
			p.OwnerEmail != "johnsmith@gmail.com" || p.ProjectVisibility != "private" ||
			p.UpdatedAt != "2012-07-21T07:38:22Z" {
			t.Errorf("%s decoded = %+v", event, p)
		}
	}
	for _, event := range []string{apijson.SystemProjectRename, apijson.SystemProjectTransfer} {
		ev, _ := parseSystem(t, apijson.ProjectSystemPayload(event, sysProject, "jsmith/overscore"),
			append(systemProjectKeys, "old_path_with_namespace"))
		if p := ev.(*gitlab.ProjectSystemEvent); p.EventName != event || p.OldPathWithNamespace != "jsmith/overscore" {
			t.Errorf("%s decoded = %+v", event, p)
		}
	}
}

func TestMemberSystemPayloads(t *testing.T) {
	m := domain.Member{Source: domain.MemberOfProject, SourceID: 74, UserID: 41, AccessLevel: domain.Master, CreatedAt: sysCreated}
	for _, event := range []string{apijson.SystemUserAddToTeam, apijson.SystemUserRemoveFromTeam} {
		ev, _ := parseSystem(t, apijson.TeamMemberSystemPayload(event, m, sysUser, sysProject), systemTeamKeys)
		e := ev.(*gitlab.UserTeamSystemEvent)
		if e.EventName != event || e.ProjectID != 74 || e.ProjectName != "StoreCloud" || e.ProjectPath != "storecloud" ||
			e.ProjectPathWithNamespace != "jsmith/storecloud" || e.ID != 41 || e.Username != "johnsmith" ||
			e.Name != "John Smith" || e.Email != "johnsmith@gmail.com" || e.AccessLevel != "Master" ||
			e.ProjectVisibility != "private" {
			t.Errorf("%s decoded = %+v", event, e)
		}
	}
	g := domain.Namespace{ID: 78, Kind: domain.NamespaceGroup, Name: "StoreCloud", Path: "storecloud"}
	m = domain.Member{Source: domain.MemberOfGroup, SourceID: 78, UserID: 41, AccessLevel: domain.Owner, CreatedAt: sysCreated}
	for _, event := range []string{apijson.SystemUserAddToGroup, apijson.SystemUserRemoveFromGroup} {
		ev, _ := parseSystem(t, apijson.GroupMemberSystemPayload(event, m, sysUser, g), systemGroupMemberKeys)
		e := ev.(*gitlab.UserGroupSystemEvent)
		if e.EventName != event || e.GroupID != 78 || e.GroupName != "StoreCloud" || e.GroupPath != "storecloud" ||
			e.GroupAccess != "Owner" || e.ID != 41 || e.Username != "johnsmith" || e.Name != "John Smith" ||
			e.Email != "johnsmith@gmail.com" {
			t.Errorf("%s decoded = %+v", event, e)
		}
	}
}

func TestUserKeyGroupSystemPayloads(t *testing.T) {
	for _, event := range []string{apijson.SystemUserCreate, apijson.SystemUserDestroy} {
		ev, _ := parseSystem(t, apijson.UserSystemPayload(event, sysUser), systemUserKeys)
		if u := ev.(*gitlab.UserSystemEvent); u.EventName != event || u.ID != 41 || u.Username != "johnsmith" ||
			u.Name != "John Smith" || u.Email != "johnsmith@gmail.com" || u.UpdatedAt != "2012-07-21T07:38:22Z" {
			t.Errorf("%s decoded = %+v", event, u)
		}
	}
	k := domain.SSHKey{ID: 4, UserID: 41, Key: "ssh-rsa AAAAB3NzaC1yc2E root@localhost", CreatedAt: sysCreated}
	for _, event := range []string{apijson.SystemKeyCreate, apijson.SystemKeyDestroy} {
		ev, _ := parseSystem(t, apijson.KeySystemPayload(event, k, "root"), systemKeyKeys)
		if e := ev.(*gitlab.KeySystemEvent); e.EventName != event || e.ID != 4 || e.Username != "root" || e.Key != k.Key {
			t.Errorf("%s decoded = %+v", event, e)
		}
	}
	g := domain.Namespace{ID: 78, Kind: domain.NamespaceGroup, Name: "StoreCloud", Path: "storecloud",
		CreatedAt: sysCreated, UpdatedAt: sysUpdated}
	for _, event := range []string{apijson.SystemGroupCreate, apijson.SystemGroupDestroy} {
		ev, body := parseSystem(t, apijson.GroupSystemPayload(event, g), systemGroupKeys)
		if e := ev.(*gitlab.GroupSystemEvent); e.EventName != event || e.GroupID != 78 || e.Name != "StoreCloud" || e.Path != "storecloud" {
			t.Errorf("%s decoded = %+v", event, e)
		}
		// A group has no owner in 9.x: the documentation shows nulls.
		if !strings.Contains(string(body), `"owner_email":null`) || !strings.Contains(string(body), `"owner_name":null`) {
			t.Errorf("%s owner is not null: %s", event, body)
		}
	}
}

func TestSystemHookTestPayloadIsGitLabsSample(t *testing.T) {
	got := string(marshal(t, apijson.SystemHookTestPayload()))
	want := `{"event_name":"project_create","name":"Ruby","path":"ruby","project_id":1,"owner_name":"Someone","owner_email":"example@gitlabhq.com"}`
	if got != want {
		t.Errorf("sample = %s\nwant %s", got, want)
	}
	var v map[string]any
	if err := json.Unmarshal([]byte(got), &v); err != nil || len(v) != 6 {
		t.Errorf("sample keys = %v (%v)", v, err)
	}
}
