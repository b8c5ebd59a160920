package backup

import "time"

// FormatVersion is the archive format this build writes and reads.
const FormatVersion = 1

// Part names.
const (
	manifestName       = "manifest.json"
	manifestSumName    = "manifest.json.sha256"
	sequencesPart      = "db/sequences.json"
	tablePartPrefix    = "db/"
	tablePartSuffix    = ".jsonl.gz"
	repoPartPrefix     = "repositories/"
	repoPartSuffix     = ".bundle"
	blobPartPrefix     = "blobs/"
	maxManifestBytes   = 256 << 20
	maxSequencesBytes  = 16 << 20
	manifestSumMaxSize = 128
)

// Manifest describes an archive.
type Manifest struct {
	Format        int       `json:"format"`
	HearthVersion string    `json:"hearth_version"`
	CreatedAt     time.Time `json:"created_at"`
	// Schema names the applied migrations at the snapshot, oldest first;
	// SchemaVersion is the last of them.
	Schema        []string     `json:"schema"`
	SchemaVersion string       `json:"schema_version"`
	Tables        []Table      `json:"tables"`
	Repositories  []Repository `json:"repositories"`
	Blobs         []Blob       `json:"blobs"`
	// Parts lists every part but the manifest, in archive order.
	Parts []Part `json:"parts"`
}

// Table is one exported table.
type Table struct {
	Name string `json:"name"`
	Rows int64  `json:"rows"`
	Part string `json:"part"`
}

// Repository is one repository; an empty one has no part.
type Repository struct {
	Name          string `json:"name"`
	DefaultBranch string `json:"default_branch"`
	Empty         bool   `json:"empty"`
	Part          string `json:"part,omitempty"`
}

// Blob is one stored file.
type Blob struct {
	Key  string `json:"key"`
	Size int64  `json:"size"`
	Part string `json:"part"`
}

// Part is one file of the archive: its data (Size, SHA256, at
// DataOffset) and the whole span of the tar it occupies, header and
// padding included (Offset to End, SpanSHA256).
type Part struct {
	Name       string `json:"name"`
	Size       int64  `json:"size"`
	SHA256     string `json:"sha256"`
	Offset     int64  `json:"offset"`
	DataOffset int64  `json:"data_offset"`
	End        int64  `json:"end"`
	SpanSHA256 string `json:"span_sha256"`
}

func (m *Manifest) part(name string) (Part, bool) {
	for _, p := range m.Parts {
		if p.Name == name {
			return p, true
		}
	}
	return Part{}, false
}
