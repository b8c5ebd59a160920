package domain

import "strings"

// Contributor is one author of a branch's history, as GitLab's repository
// contributors list groups them: by author email, exactly as recorded.
type Contributor struct {
	Email string
	// Name is the author name of the newest of the author's commits whose
	// name is not blank.
	Name    string
	Commits int
}

// ContributorTally groups commits, fed newest first, into contributors in
// the order of each author's newest commit. Both git backends feed it, so
// they group and name alike; the zero value is ready to use.
type ContributorTally struct {
	index map[string]int
	list  []Contributor
}

// Add counts one commit by the author (name, email).
func (t *ContributorTally) Add(name, email string) {
	if t.index == nil {
		t.index = map[string]int{}
	}
	i, ok := t.index[email]
	if !ok {
		i = len(t.list)
		t.index[email] = i
		t.list = append(t.list, Contributor{Email: email})
	}
	c := &t.list[i]
	if strings.TrimSpace(c.Name) == "" {
		c.Name = name
	}
	c.Commits++
}

// List is the contributors so far, never nil.
func (t *ContributorTally) List() []Contributor {
	if t.list == nil {
		return []Contributor{}
	}
	return t.list
}
