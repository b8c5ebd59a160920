package users

import (
	"regexp"
	"strconv"
	"strings"

	"github.com/hearth-forge/hearth/core/domain"
)

// Field limits, as GitLab 9.x validates its models.
const (
	minPasswordLength = 8
	maxPasswordLength = 128
	maxNameLength     = 255
	maxEmailLength    = 255
	maxBioLength      = 255
	maxTokenName      = 255
	maxProjectsLimit  = 2147483647
)

// Devise's email rule, which GitLab uses.
var emailRE = regexp.MustCompile(`^[^@\s]+@[^@\s]+$`)

// usernameErrors lists what is wrong with a username, nil when it is fine:
// a username is the path of a top-level namespace.
func usernameErrors(username string) []string { return domain.NamespacePathErrors(username, true) }

// ValidUsername reports whether GitLab would accept username.
func ValidUsername(username string) bool { return usernameErrors(username) == nil }

// NormalizeEmail trims and lowercases an address, as GitLab (Devise) stores it.
func NormalizeEmail(email string) string { return strings.ToLower(strings.TrimSpace(email)) }

// emailErrors lists what is wrong with a (normalized) address.
func emailErrors(email string) []string {
	switch {
	case email == "":
		return []string{"can't be blank"}
	case len(email) > maxEmailLength:
		return []string{"is too long (maximum is " + strconv.Itoa(maxEmailLength) + " characters)"}
	case !emailRE.MatchString(email):
		return []string{"is invalid"}
	}
	return nil
}

// ValidEmail reports whether GitLab would accept the address.
func ValidEmail(email string) bool { return emailErrors(NormalizeEmail(email)) == nil }

// passwordErrors lists what is wrong with a new password.
func passwordErrors(password string) []string {
	n := len([]rune(password))
	switch {
	case password == "":
		return []string{"can't be blank"}
	case n < minPasswordLength:
		return []string{"is too short (minimum is " + strconv.Itoa(minPasswordLength) + " characters)"}
	case n > maxPasswordLength:
		return []string{"is too long (maximum is " + strconv.Itoa(maxPasswordLength) + " characters)"}
	}
	return nil
}

func nameErrors(name string) []string {
	switch {
	case strings.TrimSpace(name) == "":
		return []string{"can't be blank"}
	case len([]rune(name)) > maxNameLength:
		return []string{"is too long (maximum is " + strconv.Itoa(maxNameLength) + " characters)"}
	}
	return nil
}
