package ciconfig

// Limits bound what one configuration may cost to parse. Anything over a
// limit is refused with a clear error, never expanded. Zero fields take
// the defaults below.
type Limits struct {
	// MaxBytes caps the file and each file it includes
	// (config.CI.MaxConfigBytes).
	MaxBytes int64
	// MaxDepth caps the nesting of mappings and sequences (GitLab's
	// MAX_YAML_DEPTH).
	MaxDepth int
	// MaxNodes caps the YAML nodes of the file and its includes together,
	// aliases counted as many times as they are used: a billion-laughs
	// file is refused before anything is expanded.
	MaxNodes int
	// MaxJobs caps the visible jobs of a pipeline.
	MaxJobs int
	// MaxIncludes caps the files included, nested includes counted
	// (GitLab's MAX_INCLUDES).
	MaxIncludes int
}

// Defaults.
const (
	DefaultMaxBytes    = 1 << 20
	DefaultMaxDepth    = 100
	DefaultMaxNodes    = 250_000
	DefaultMaxJobs     = 1000
	DefaultMaxIncludes = 50
)

func (l Limits) withDefaults() Limits {
	if l.MaxBytes <= 0 {
		l.MaxBytes = DefaultMaxBytes
	}
	if l.MaxDepth <= 0 {
		l.MaxDepth = DefaultMaxDepth
	}
	if l.MaxNodes <= 0 {
		l.MaxNodes = DefaultMaxNodes
	}
	if l.MaxJobs <= 0 {
		l.MaxJobs = DefaultMaxJobs
	}
	if l.MaxIncludes <= 0 {
		l.MaxIncludes = DefaultMaxIncludes
	}
	return l
}
