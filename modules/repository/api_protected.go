package repository

import "github.com/hearth-forge/hearth/core/domain"

// protectedBranchJSON is GitLab 9.5's ProtectedBranch entity: the rule's
// name and one access level each for pushing and merging.
type protectedBranchJSON struct {
	Name              string            `json:"name"`
	PushAccessLevels  []accessLevelJSON `json:"push_access_levels"`
	MergeAccessLevels []accessLevelJSON `json:"merge_access_levels"`
}

// accessLevelJSON is GitLab's ProtectedRefAccess entity.
type accessLevelJSON struct {
	AccessLevel            int    `json:"access_level"`
	AccessLevelDescription string `json:"access_level_description"`
}

// protectionLevelNames are GitLab's ProtectedRefAccess::HUMAN_ACCESS_LEVELS.
var protectionLevelNames = map[domain.AccessLevel]string{
	domain.Master:    "Masters",
	domain.Developer: "Developers + Masters",
	domain.NoAccess:  "No one",
}

func newAccessLevelJSON(l domain.AccessLevel) []accessLevelJSON {
	return []accessLevelJSON{{AccessLevel: int(l), AccessLevelDescription: protectionLevelNames[l]}}
}

func newProtectedBranchJSON(b domain.ProtectedBranch) protectedBranchJSON {
	return protectedBranchJSON{
		Name:              b.Name,
		PushAccessLevels:  newAccessLevelJSON(b.PushAccessLevel),
		MergeAccessLevels: newAccessLevelJSON(b.MergeAccessLevel),
	}
}
