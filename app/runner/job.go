package runner

// Job is the payload of a 201 to POST /jobs/request, as far as the runner
// reads it (gitlab-runner's common/network.go JobResponse).
type Job struct {
	ID            int64  `json:"id"`
	Token         string `json:"token"`
	AllowGitFetch bool   `json:"allow_git_fetch"`
	JobInfo       struct {
		ID          int64  `json:"id"`
		Name        string `json:"name"`
		Stage       string `json:"stage"`
		ProjectID   int64  `json:"project_id"`
		ProjectName string `json:"project_name"`
	} `json:"job_info"`
	GitInfo struct {
		RepoURL   string   `json:"repo_url"`
		Ref       string   `json:"ref"`
		Sha       string   `json:"sha"`
		BeforeSha string   `json:"before_sha"`
		RefType   string   `json:"ref_type"`
		Refspecs  []string `json:"refspecs"`
		Depth     int      `json:"depth"`
	} `json:"git_info"`
	RunnerInfo struct {
		Timeout int `json:"timeout"`
	} `json:"runner_info"`
	Variables    []Variable   `json:"variables"`
	Steps        []Step       `json:"steps"`
	Artifacts    []Artifact   `json:"artifacts"`
	Cache        []CacheSpec  `json:"cache"`
	Dependencies []Dependency `json:"dependencies"`
}

// Variable is one job variable.
type Variable struct {
	Key    string `json:"key"`
	Value  string `json:"value"`
	Public bool   `json:"public"`
	Masked bool   `json:"masked"`
	Raw    bool   `json:"raw"`
	File   bool   `json:"file"`
}

// Step is a script step ("script", "after_script").
type Step struct {
	Name         string   `json:"name"`
	Script       []string `json:"script"`
	Timeout      int      `json:"timeout"`
	When         string   `json:"when"`
	AllowFailure bool     `json:"allow_failure"`
}

// Artifact is one artifacts entry to upload after the script.
type Artifact struct {
	Name      string   `json:"name"`
	Untracked bool     `json:"untracked"`
	Paths     []string `json:"paths"`
	Exclude   []string `json:"exclude"`
	When      string   `json:"when"`
	Type      string   `json:"artifact_type"`
	Format    string   `json:"artifact_format"`
	ExpireIn  string   `json:"expire_in"`
}

// CacheSpec is one cache entry.
type CacheSpec struct {
	Key       string   `json:"key"`
	Untracked bool     `json:"untracked"`
	Paths     []string `json:"paths"`
	Policy    string   `json:"policy"`
	When      string   `json:"when"`
}

// Dependency is a job whose artifacts are unpacked before the script.
type Dependency struct {
	ID            int64  `json:"id"`
	Token         string `json:"token"`
	Name          string `json:"name"`
	ArtifactsFile *struct {
		Filename string `json:"filename"`
		Size     int64  `json:"size"`
	} `json:"artifacts_file"`
}

// Failure reasons the runner reports.
const (
	ScriptFailure       = "script_failure"
	JobExecutionTimeout = "job_execution_timeout"
	RunnerSystemFailure = "runner_system_failure"
	JobCanceled         = "job_canceled"
)
