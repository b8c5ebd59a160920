package apijson

import (
	"github.com/hearth-forge/hearth/core/domain"
	"github.com/hearth-forge/hearth/core/duration"
)

// TimeStats is GitLab's IssuableTimeStats entity: seconds, and the human
// forms ("3h 30m"), null when zero.
type TimeStats struct {
	TimeEstimate        int64   `json:"time_estimate"`
	TotalTimeSpent      int64   `json:"total_time_spent"`
	HumanTimeEstimate   *string `json:"human_time_estimate"`
	HumanTotalTimeSpent *string `json:"human_total_time_spent"`
}

// NewTimeStats renders an item's time stats.
func NewTimeStats(s domain.TimeStats) TimeStats {
	return TimeStats{TimeEstimate: s.TimeEstimate, TotalTimeSpent: s.TotalTimeSpent,
		HumanTimeEstimate: human(s.TimeEstimate), HumanTotalTimeSpent: human(s.TotalTimeSpent)}
}

func human(seconds int64) *string {
	if seconds == 0 {
		return nil
	}
	s := duration.Format(seconds)
	return &s
}
