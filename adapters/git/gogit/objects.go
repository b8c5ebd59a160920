package gogit

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

// emptyTree is the object name of the tree with no entries.
const emptyTree = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"

// parseCommit reads a raw commit object.
func parseCommit(id string, data []byte) (domain.Commit, error) {
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
			c.Author, err = parseSignature(val)
		case "committer":
			c.Committer, err = parseSignature(val)
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

// tagObject is a parsed annotated tag.
type tagObject struct {
	Object  string
	Type    string
	Tagger  *domain.Signature
	Message string // without the one trailing newline git adds
}

func parseTag(id string, data []byte) (tagObject, error) {
	var t tagObject
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
			sig, err := parseSignature(val)
			if err != nil {
				return tagObject{}, fmt.Errorf("tag %s: %w", id, err)
			}
			t.Tagger = &sig
		}
	}
	if t.Object == "" {
		return tagObject{}, fmt.Errorf("tag %s has no object", id)
	}
	return t, nil
}

// parseSignature reads "Name <email> 1700000000 +0100".
func parseSignature(s string) (domain.Signature, error) {
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

// formatDate writes a signature date as git stores it: "<unix> +hhmm"
// (now when t is zero).
func formatDate(t time.Time) string {
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

// ident is a commit's author or committer line as git's commit-tree
// writes it from GIT_*_NAME, GIT_*_EMAIL and GIT_*_DATE.
func ident(s domain.Signature) string {
	return fmt.Sprintf("%s <%s> %s", withoutCrud(s.Name), withoutCrud(s.Email), formatDate(s.When))
}

// encodeCommit is a commit object as git commit-tree -F - writes it: the
// message exactly as given.
func encodeCommit(tree string, parents []string, author, committer domain.Signature, msg string) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "tree %s\n", tree)
	for _, p := range parents {
		fmt.Fprintf(&b, "parent %s\n", p)
	}
	fmt.Fprintf(&b, "author %s\ncommitter %s\n\n", ident(author), ident(committer))
	b.WriteString(msg)
	return b.Bytes()
}

// treeEntry is one raw entry of a tree object.
type treeEntry struct {
	Mode string // as stored: "100644", "40000", ...
	Name string
	ID   string
}

func (e treeEntry) isDir() bool { return e.Mode == "40000" || e.Mode == "040000" }

func (e treeEntry) typ() string {
	switch {
	case e.isDir():
		return "tree"
	case e.Mode == "160000":
		return "commit"
	default:
		return "blob"
	}
}

// mode is the mode as git prints it (six digits).
func (e treeEntry) mode() string {
	if len(e.Mode) < 6 {
		return strings.Repeat("0", 6-len(e.Mode)) + e.Mode
	}
	return e.Mode
}

// parseTree reads a binary tree object.
func parseTree(id string, data []byte) ([]treeEntry, error) {
	var entries []treeEntry
	for len(data) > 0 {
		sp := bytes.IndexByte(data, ' ')
		nul := bytes.IndexByte(data, 0)
		if sp < 0 || nul < sp || len(data) < nul+21 {
			return nil, fmt.Errorf("tree %s is malformed", id)
		}
		entries = append(entries, treeEntry{
			Mode: string(data[:sp]),
			Name: string(data[sp+1 : nul]),
			ID:   fmt.Sprintf("%x", data[nul+1:nul+21]),
		})
		data = data[nul+21:]
	}
	return entries, nil
}

// encodeTree writes entries in git's tree order (names compared as if
// trees ended in "/"), modes as git stores them ("40000" for trees).
func encodeTree(entries []treeEntry) ([]byte, error) {
	sorted := append([]treeEntry(nil), entries...)
	key := func(e treeEntry) string {
		if e.isDir() {
			return e.Name + "/"
		}
		return e.Name
	}
	sort.Slice(sorted, func(i, j int) bool { return key(sorted[i]) < key(sorted[j]) })
	var b bytes.Buffer
	for _, e := range sorted {
		mode := strings.TrimLeft(e.Mode, "0")
		raw, err := hexID(e.ID)
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

func hexID(id string) ([]byte, error) {
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

// readCommit reads the commit oid.
func (r *repoh) readCommit(oid string) (domain.Commit, error) {
	o, err := r.read(oid)
	if err != nil {
		return domain.Commit{}, err
	}
	if o.Type != "commit" {
		return domain.Commit{}, fmt.Errorf("object %s is a %s, not a commit", oid, o.Type)
	}
	return parseCommit(o.ID, o.Data)
}

// readTree reads the tree object id.
func (r *repoh) readTree(id string) ([]treeEntry, error) {
	if id == emptyTree {
		return nil, nil
	}
	o, err := r.read(id)
	if err != nil {
		return nil, err
	}
	if o.Type != "tree" {
		return nil, fmt.Errorf("object %s is a %s, not a tree", id, o.Type)
	}
	return parseTree(o.ID, o.Data)
}
