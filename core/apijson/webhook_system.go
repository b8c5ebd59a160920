package apijson

import "github.com/hearth-forge/hearth/core/domain"

// The event_name of each system hook payload, as GitLab 9.x's
// SystemHooksService#build_event_name gives them.
const (
	SystemProjectCreate       = "project_create"
	SystemProjectDestroy      = "project_destroy"
	SystemProjectRename       = "project_rename"
	SystemProjectTransfer     = "project_transfer"
	SystemUserAddToTeam       = "user_add_to_team"
	SystemUserRemoveFromTeam  = "user_remove_from_team"
	SystemUserCreate          = "user_create"
	SystemUserDestroy         = "user_destroy"
	SystemKeyCreate           = "key_create"
	SystemKeyDestroy          = "key_destroy"
	SystemGroupCreate         = "group_create"
	SystemGroupDestroy        = "group_destroy"
	SystemUserAddToGroup      = "user_add_to_group"
	SystemUserRemoveFromGroup = "user_remove_from_group"
)

// SystemProjectInput is what a system hook payload says about a project;
// the names come with it so that building a payload reads no store.
type SystemProjectInput struct {
	Project domain.Project
	// FullPath is path_with_namespace ("jsmith/storecloud").
	FullPath string
	// OwnerName and OwnerEmail are GitLab's project.owner: the user of a
	// personal namespace, or the group (its name, and "" for the email a
	// group does not have).
	OwnerName  string
	OwnerEmail string
}

// ProjectSystemHook is the payload of project_create, project_destroy,
// project_rename and project_transfer (SystemHooksService#project_data);
// old_path_with_namespace only for a rename or a transfer.
type ProjectSystemHook struct {
	CreatedAt            HookTime `json:"created_at"`
	UpdatedAt            HookTime `json:"updated_at"`
	EventName            string   `json:"event_name"`
	Name                 string   `json:"name"`
	OwnerEmail           string   `json:"owner_email"`
	OwnerName            string   `json:"owner_name"`
	Path                 string   `json:"path"`
	PathWithNamespace    string   `json:"path_with_namespace"`
	ProjectID            int64    `json:"project_id"`
	ProjectVisibility    string   `json:"project_visibility"`
	OldPathWithNamespace string   `json:"old_path_with_namespace,omitempty"`
}

// ProjectSystemPayload builds a project event; oldFullPath is the
// project's path_with_namespace before a rename or a transfer ("" for the
// other events).
func ProjectSystemPayload(event string, in SystemProjectInput, oldFullPath string) ProjectSystemHook {
	p := in.Project
	return ProjectSystemHook{
		CreatedAt: HookTime{p.CreatedAt}, UpdatedAt: HookTime{p.UpdatedAt}, EventName: event,
		Name: p.Name, OwnerEmail: in.OwnerEmail, OwnerName: in.OwnerName, Path: p.Path,
		PathWithNamespace: in.FullPath, ProjectID: p.ID, ProjectVisibility: string(p.Visibility),
		OldPathWithNamespace: oldFullPath,
	}
}

// TeamMemberSystemHook is the payload of user_add_to_team and
// user_remove_from_team (SystemHooksService#project_member_data).
type TeamMemberSystemHook struct {
	CreatedAt                HookTime `json:"created_at"`
	UpdatedAt                HookTime `json:"updated_at"`
	EventName                string   `json:"event_name"`
	AccessLevel              string   `json:"access_level"`
	ProjectID                int64    `json:"project_id"`
	ProjectName              string   `json:"project_name"`
	ProjectPath              string   `json:"project_path"`
	ProjectPathWithNamespace string   `json:"project_path_with_namespace"`
	UserEmail                string   `json:"user_email"`
	UserName                 string   `json:"user_name"`
	UserUsername             string   `json:"user_username"`
	UserID                   int64    `json:"user_id"`
	ProjectVisibility        string   `json:"project_visibility"`
}

// TeamMemberSystemPayload builds a project membership event; the
// membership's times are its creation (Hearth keeps no update time for
// members).
func TeamMemberSystemPayload(event string, m domain.Member, u domain.User, in SystemProjectInput) TeamMemberSystemHook {
	p := in.Project
	return TeamMemberSystemHook{
		CreatedAt: HookTime{m.CreatedAt}, UpdatedAt: HookTime{m.CreatedAt}, EventName: event,
		AccessLevel: HumanAccess(m.AccessLevel), ProjectID: p.ID, ProjectName: p.Name, ProjectPath: p.Path,
		ProjectPathWithNamespace: in.FullPath, UserEmail: u.Email, UserName: u.Name,
		UserUsername: u.Username, UserID: u.ID, ProjectVisibility: string(p.Visibility),
	}
}

// GroupMemberSystemHook is the payload of user_add_to_group and
// user_remove_from_group (SystemHooksService#group_member_data).
type GroupMemberSystemHook struct {
	CreatedAt    HookTime `json:"created_at"`
	UpdatedAt    HookTime `json:"updated_at"`
	EventName    string   `json:"event_name"`
	GroupAccess  string   `json:"group_access"`
	GroupID      int64    `json:"group_id"`
	GroupName    string   `json:"group_name"`
	GroupPath    string   `json:"group_path"`
	UserEmail    string   `json:"user_email"`
	UserName     string   `json:"user_name"`
	UserUsername string   `json:"user_username"`
	UserID       int64    `json:"user_id"`
}

// GroupMemberSystemPayload builds a group membership event.
func GroupMemberSystemPayload(event string, m domain.Member, u domain.User, g domain.Namespace) GroupMemberSystemHook {
	return GroupMemberSystemHook{
		CreatedAt: HookTime{m.CreatedAt}, UpdatedAt: HookTime{m.CreatedAt}, EventName: event,
		GroupAccess: HumanAccess(m.AccessLevel), GroupID: g.ID, GroupName: g.Name, GroupPath: g.Path,
		UserEmail: u.Email, UserName: u.Name, UserUsername: u.Username, UserID: u.ID,
	}
}

// UserSystemHook is the payload of user_create and user_destroy.
type UserSystemHook struct {
	CreatedAt HookTime `json:"created_at"`
	UpdatedAt HookTime `json:"updated_at"`
	Email     string   `json:"email"`
	EventName string   `json:"event_name"`
	Name      string   `json:"name"`
	Username  string   `json:"username"`
	UserID    int64    `json:"user_id"`
}

// UserSystemPayload builds a user event.
func UserSystemPayload(event string, u domain.User) UserSystemHook {
	return UserSystemHook{
		CreatedAt: HookTime{u.CreatedAt}, UpdatedAt: HookTime{u.UpdatedAt}, Email: u.Email,
		EventName: event, Name: u.Name, Username: u.Username, UserID: u.ID,
	}
}

// KeySystemHook is the payload of key_create and key_destroy.
type KeySystemHook struct {
	EventName string   `json:"event_name"`
	CreatedAt HookTime `json:"created_at"`
	UpdatedAt HookTime `json:"updated_at"`
	Username  string   `json:"username"`
	Key       string   `json:"key"`
	ID        int64    `json:"id"`
}

// KeySystemPayload builds a key event; username is the key's owner's.
// Keys are never edited, so updated_at is their creation.
func KeySystemPayload(event string, k domain.SSHKey, username string) KeySystemHook {
	return KeySystemHook{
		EventName: event, CreatedAt: HookTime{k.CreatedAt}, UpdatedAt: HookTime{k.CreatedAt},
		Username: username, Key: k.Key, ID: k.ID,
	}
}

// GroupSystemHook is the payload of group_create and group_destroy. A
// group has no owner in GitLab 9.x (Namespace#owner is a user
// namespace's), so owner_name and owner_email are null.
type GroupSystemHook struct {
	CreatedAt  HookTime `json:"created_at"`
	UpdatedAt  HookTime `json:"updated_at"`
	EventName  string   `json:"event_name"`
	Name       string   `json:"name"`
	OwnerEmail *string  `json:"owner_email"`
	OwnerName  *string  `json:"owner_name"`
	Path       string   `json:"path"`
	GroupID    int64    `json:"group_id"`
}

// GroupSystemPayload builds a group event.
func GroupSystemPayload(event string, g domain.Namespace) GroupSystemHook {
	return GroupSystemHook{
		CreatedAt: HookTime{g.CreatedAt}, UpdatedAt: HookTime{g.UpdatedAt}, EventName: event,
		Name: g.Name, Path: g.Path, GroupID: g.ID,
	}
}

// SystemHookTest is what GET /hooks/:id sends to a system hook and
// answers with: GitLab's fixed sample of a project_create event.
type SystemHookTest struct {
	EventName  string `json:"event_name"`
	Name       string `json:"name"`
	Path       string `json:"path"`
	ProjectID  int64  `json:"project_id"`
	OwnerName  string `json:"owner_name"`
	OwnerEmail string `json:"owner_email"`
}

// SystemHookTestPayload is GitLab's sample.
func SystemHookTestPayload() SystemHookTest {
	return SystemHookTest{EventName: SystemProjectCreate, Name: "Ruby", Path: "ruby", ProjectID: 1,
		OwnerName: "Someone", OwnerEmail: "example@gitlabhq.com"}
}

// HumanAccess is GitLab 9.x's name of an access level (Member#human_access).
func HumanAccess(l domain.AccessLevel) string {
	switch l {
	case domain.Guest:
		return "Guest"
	case domain.Reporter:
		return "Reporter"
	case domain.Developer:
		return "Developer"
	case domain.Master:
		return "Master"
	case domain.Owner:
		return "Owner"
	}
	return ""
}
