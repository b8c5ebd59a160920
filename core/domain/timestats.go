package domain

// TimeStats are the time tracked on an issue or merge request, in
// seconds of working time.
type TimeStats struct {
	TimeEstimate   int64
	TotalTimeSpent int64
}
