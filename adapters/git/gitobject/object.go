// Package gitobject is what both git backends (gitcli, gogit) know of git's
// own formats, so the two can never disagree on an object's meaning or its
// name:
//   - objects (commits, tags, trees, signatures), read and written byte for
//     byte as git does: gitcli parses what cat-file prints, gogit parses and
//     writes objects;
//   - walks over objects through a backend's Reader: tags peeled, trees
//     read, paths looked up, directories listed, files read (reader.go);
//   - refs as git stores them in a bare repository (loose files,
//     packed-refs, symbolic refs), read the same way by both (refs.go);
//   - a tree being built from file actions, with GitLab's answers to
//     actions that do not fit (flattree.go).
package gitobject

import (
	"bytes"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/hearth-forge/hearth/adapters/git/gitnames"
	"github.com/hearth-forge/hearth/core/domain"
)

// EmptyTree is the object name of the tree with no entries.
const EmptyTree = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"

// ParseCommit reads a raw commit object.
func ParseCommit(id string, data []byte) (domain.Commit, error) {
	c := domain.Commit{ID: id, ParentIDs: []string{}}
	header, msg, _ := bytes.Cut(data, []byte("\n\n"))
	c.Message = string(msg)
	for _, line := range strings.Split(string(header), "\n") {
		key, val, _ := strings.Cut(line, " ")
		var err error
		switch key {
		case "tree":
			c.TreeID = val
		case "parent":
			c.ParentIDs = append(c.ParentIDs, val)
		case "author":
			c.Author, err = ParseSignature(val)
		case "committer":
			c.Committer, err = ParseSignature(val)
		}
		if err != nil {
			return domain.Commit{}, fmt.Errorf("commit %s: %w", id, err)
		}
	}
	if c.TreeID == "" {
		return domain.Commit{}, fmt.Errorf("commit %s has no tree", id)
	}
	return c, nil
}

// Tag is a parsed annotated tag.
type Tag struct {
	Object  string
	Type    string
	Tagger  *domain.Signature
	Message string // without the one trailing newline git adds
}

func ParseTag(id string, data []byte) (Tag, error) {
	var t Tag
	header, msg, _ := bytes.Cut(data, []byte("\n\n"))
	t.Message = strings.TrimSuffix(string(msg), "\n")
	for _, line := range strings.Split(string(header), "\n") {
		key, val, _ := strings.Cut(line, " ")
		switch key {
		case "object":
			t.Object = val
		case "type":
			t.Type = val
		case "tagger":
			sig, err := ParseSignature(val)
			if err != nil {
				return Tag{}, fmt.Errorf("tag %s: %w", id, err)
			}
			t.Tagger = &sig
		}
	}
	if t.Object == "" {
		return Tag{}, fmt.Errorf("tag %s has no object", id)
	}
	return t, nil
}

// ParseSignature reads "Name <email> 1700000000 +0100".
func ParseSignature(s string) (domain.Signature, error) {
	lt := strings.IndexByte(s, '<')
	gt := strings.LastIndexByte(s, '>')
	if lt < 0 || gt < lt {
		return domain.Signature{}, fmt.Errorf("malformed signature %q", s)
	}
	sig := domain.Signature{Name: strings.TrimSpace(s[:lt]), Email: s[lt+1 : gt]}
	f := strings.Fields(s[gt+1:])
	if len(f) == 0 {
		return sig, nil
	}
	sec, err := strconv.ParseInt(f[0], 10, 64)
	if err != nil {
		return domain.Signature{}, fmt.Errorf("malformed signature date %q", s)
	}
	offset := 0
	if len(f) > 1 && len(f[1]) == 5 && (f[1][0] == '+' || f[1][0] == '-') {
		hh, err1 := strconv.Atoi(f[1][1:3])
		mm, err2 := strconv.Atoi(f[1][3:5])
		if err1 == nil && err2 == nil {
			offset = hh*3600 + mm*60
			if f[1][0] == '-' {
				offset = -offset
			}
		}
	}
	sig.When = time.Unix(sec, 0).In(time.FixedZone("", offset))
	return sig, nil
}

// FormatDate writes a signature date as git stores it: "<unix> +hhmm"
// (now when t is zero).
func FormatDate(t time.Time) string {
	if t.IsZero() {
		t = time.Now()
	}
	_, offset := t.Zone()
	sign := byte('+')
	if offset < 0 {
		sign = '-'
		offset = -offset
	}
	return fmt.Sprintf("%d %c%02d%02d", t.Unix(), sign, offset/3600, offset%3600/60)
}

// crud is git's ident.c crud(): what git strips from both ends of a name
// or email it is given through GIT_AUTHOR_NAME and friends.
func crud(c byte) bool {
	return c <= 32 || c == ',' || c == ':' || c == ';' || c == '<' || c == '>' ||
		c == '"' || c == '\\' || c == '\''
}

func withoutCrud(s string) string {
	for len(s) > 0 && crud(s[0]) {
		s = s[1:]
	}
	for len(s) > 0 && crud(s[len(s)-1]) {
		s = s[:len(s)-1]
	}
	return s
}

// Ident is a commit's author or committer line as git's commit-tree
// writes it from GIT_*_NAME, GIT_*_EMAIL and GIT_*_DATE.
func Ident(s domain.Signature) string {
	return fmt.Sprintf("%s <%s> %s", withoutCrud(s.Name), withoutCrud(s.Email), FormatDate(s.When))
}

// EncodeCommit is a commit object as git commit-tree -F - writes it: the
// message exactly as given.
func EncodeCommit(tree string, parents []string, author, committer domain.Signature, msg string) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "tree %s\n", tree)
	for _, p := range parents {
		fmt.Fprintf(&b, "parent %s\n", p)
	}
	fmt.Fprintf(&b, "author %s\ncommitter %s\n\n", Ident(author), Ident(committer))
	b.WriteString(msg)
	return b.Bytes()
}

// TreeEntry is one raw entry of a tree object.
type TreeEntry struct {
	Mode string // as stored: "100644", "40000", ...
	Name string
	ID   string
}

// IsDir reports whether the entry is a subtree.
func (e TreeEntry) IsDir() bool { return e.Mode == "40000" || e.Mode == "040000" }

// Type is the object type the entry's mode implies.
func (e TreeEntry) Type() string {
	switch {
	case e.IsDir():
		return "tree"
	case e.Mode == "160000":
		return "commit"
	default:
		return "blob"
	}
}

// PrintedMode is the mode as git prints it (six digits).
func (e TreeEntry) PrintedMode() string {
	if len(e.Mode) < 6 {
		return strings.Repeat("0", 6-len(e.Mode)) + e.Mode
	}
	return e.Mode
}

// ParseTree reads a binary tree object.
func ParseTree(id string, data []byte) ([]TreeEntry, error) {
	var entries []TreeEntry
	for len(data) > 0 {
		sp := bytes.IndexByte(data, ' ')
		nul := bytes.IndexByte(data, 0)
		if sp < 0 || nul < sp || len(data) < nul+21 {
			return nil, fmt.Errorf("tree %s is malformed", id)
		}
		entries = append(entries, TreeEntry{
			Mode: string(data[:sp]),
			Name: string(data[sp+1 : nul]),
			ID:   fmt.Sprintf("%x", data[nul+1:nul+21]),
		})
		data = data[nul+21:]
	}
	return entries, nil
}

// EncodeTree writes entries in git's tree order (names compared as if
// trees ended in "/"), modes as git stores them ("40000" for trees).
func EncodeTree(entries []TreeEntry) ([]byte, error) {
	sorted := append([]TreeEntry(nil), entries...)
	key := func(e TreeEntry) string {
		if e.IsDir() {
			return e.Name + "/"
		}
		return e.Name
	}
	sort.Slice(sorted, func(i, j int) bool { return key(sorted[i]) < key(sorted[j]) })
	var b bytes.Buffer
	for _, e := range sorted {
		mode := strings.TrimLeft(e.Mode, "0")
		raw, err := RawID(e.ID)
		if err != nil {
			return nil, err
		}
		b.WriteString(mode)
		b.WriteByte(' ')
		b.WriteString(e.Name)
		b.WriteByte(0)
		b.Write(raw)
	}
	return b.Bytes(), nil
}

// RawID is the 20-byte form of a full object name.
func RawID(id string) ([]byte, error) {
	if !gitnames.IsOID(id) {
		return nil, fmt.Errorf("bad object name %q", id)
	}
	out := make([]byte, 20)
	for i := 0; i < 20; i++ {
		v, err := strconv.ParseUint(id[2*i:2*i+2], 16, 8)
		if err != nil {
			return nil, err
		}
		out[i] = byte(v)
	}
	return out, nil
}
