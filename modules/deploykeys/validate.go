package deploykeys

import (
	"fmt"
	"strings"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/sshkey"
)

// maxTitleLength is GitLab 9.x's limit on a key's title.
const maxTitleLength = 255

// checkTitle adds the title's messages to errs (a deploy key validates as
// a user's key does).
func checkTitle(errs core.FieldErrors, title string) {
	switch {
	case title == "":
		errs.Add("title", "can't be blank")
	case len([]rune(title)) > maxTitleLength:
		errs.Add("title", fmt.Sprintf("is too long (maximum is %d characters)", maxTitleLength))
	}
}

// validateNew checks a new key: its title and its text. The parsed key
// is nil when the text is not a key that may be stored; the messages are
// GitLab's, the same as for a user's key.
func validateNew(title, key string) (*sshkey.PublicKey, error) {
	errs := core.FieldErrors{}
	checkTitle(errs, strings.TrimSpace(title))
	parsed, keyErrs := sshkey.Check(key)
	for f, msgs := range keyErrs {
		errs.Add(f, msgs...)
	}
	return parsed, errs.Err()
}

// errFingerprintTaken is the 400 of a key some other key already is
// (a user's, or a deploy key the caller may not see).
func errFingerprintTaken() error {
	return core.Validation(core.FieldErrors{"fingerprint": {"has already been taken"}})
}
