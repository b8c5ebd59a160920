package gitcli

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/hearth-forge/hearth/core/domain"
)

// Parsers of git's object formats, as cat-file prints them.

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
	sig := domain.Signature{
		Name:  strings.TrimSpace(s[:lt]),
		Email: s[lt+1 : gt],
	}
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

// formatDate writes a signature date as git stores it, for GIT_*_DATE
// and tag objects: "<unix> +hhmm" (now when t is zero).
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

// treeEntry is one raw entry of a tree object.
type treeEntry struct {
	Mode string // as stored: "100644", "40000", ...
	Name string
	ID   string
}

// isDir reports whether the entry is a subtree.
func (e treeEntry) isDir() bool { return e.Mode == "40000" || e.Mode == "040000" }

// typ is the object type the entry's mode implies.
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

// parseTree reads a binary tree object: "<mode> <name>\0<20-byte id>"...
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

var errNotCommit = errors.New("not a commit")
