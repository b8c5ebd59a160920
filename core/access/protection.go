package access

import "github.com/hearth-forge/hearth/core/domain"

// Admits reports whether a protected branch access level (a rule's push
// or merge level) admits t's caller, as GitLab's ProtectedBranchAccess
// check does: Developer admits who may push code, Master who may push to
// protected branches, NoAccess no one, masters and administrators
// included.
func (t Target) Admits(level domain.AccessLevel) bool {
	switch level {
	case domain.Developer:
		return t.Can(PushCode)
	case domain.Master:
		return t.Can(PushToProtectedBranches)
	}
	return false
}

// MayPushTo is GitLab's can_push_to_branch? for branch under rules: who
// may push code when no rule protects it, else whom the rule's push level
// admits. It is about updating the branch, never forcing or deleting it.
func (t Target) MayPushTo(rules []domain.ProtectedBranch, branch string) bool {
	rule, protected := domain.Protection(rules, branch)
	if !protected {
		return t.Can(PushCode)
	}
	return t.Admits(rule.PushAccessLevel)
}

// MayUpdate is GitLab's can_update_branch? and a merge request's
// can_be_merged_by?: who may push to branch, or whom the protecting
// rule's merge level admits.
func (t Target) MayUpdate(rules []domain.ProtectedBranch, branch string) bool {
	rule, protected := domain.Protection(rules, branch)
	if !protected {
		return t.Can(PushCode)
	}
	return t.Admits(rule.PushAccessLevel) || t.Admits(rule.MergeAccessLevel)
}
