package users

import (
	"regexp"
	"strconv"
	"strings"
)

// Field limits, as GitLab 9.x validates its models.
const (
	minPasswordLength = 8
	maxPasswordLength = 128
	maxUsernameLength = 255
	maxNameLength     = 255
	maxEmailLength    = 255
	maxBioLength      = 255
	maxTokenName      = 255
	maxProjectsLimit  = 2147483647
)

// GitLab's namespace path rule: letters, digits, '_', '-' and '.'; not
// starting with '-', not ending with '.', '.git' or '.atom'.
var usernameRE = regexp.MustCompile(`^(?:[a-zA-Z0-9_.][a-zA-Z0-9_.-]*[a-zA-Z0-9_-]|[a-zA-Z0-9_])$`)

const usernameFormatMsg = "can contain only letters, digits, '_', '-' and '.'. Cannot start with '-' or end in '.', '.git' or '.atom'."

// Devise's email rule, which GitLab uses.
var emailRE = regexp.MustCompile(`^[^@\s]+@[^@\s]+$`)

// reservedUsernames are GitLab 9.x's top-level routes, which no namespace may take.
var reservedUsernames = map[string]bool{
	"-": true, ".well-known": true, "404.html": true, "422.html": true, "500.html": true,
	"502.html": true, "503.html": true, "abuse_reports": true, "admin": true, "api": true,
	"apple-touch-icon-precomposed.png": true, "apple-touch-icon.png": true, "assets": true,
	"autocomplete": true, "ci": true, "dashboard": true, "deploy.html": true, "explore": true,
	"favicon.ico": true, "files": true, "groups": true, "health_check": true, "help": true,
	"import": true, "invites": true, "jwt": true, "koding": true, "notification_settings": true,
	"oauth": true, "profile": true, "projects": true, "public": true, "robots.txt": true,
	"s": true, "search": true, "sent_notifications": true, "slash-command-logo.png": true,
	"snippets": true, "u": true, "unicorn_test": true, "unsubscribes": true, "uploads": true,
	"users": true,
}

// fieldErrors collects model-validation messages per field.
type fieldErrors map[string][]string

func (f fieldErrors) add(field, msg string) { f[field] = append(f[field], msg) }

// usernameErrors lists what is wrong with a username, nil when it is fine.
func usernameErrors(username string) []string {
	var msgs []string
	switch {
	case strings.TrimSpace(username) == "":
		return []string{"can't be blank"}
	case len(username) > maxUsernameLength:
		msgs = append(msgs, "is too long (maximum is "+strconv.Itoa(maxUsernameLength)+" characters)")
	}
	lower := strings.ToLower(username)
	if !usernameRE.MatchString(username) || strings.HasSuffix(lower, ".git") || strings.HasSuffix(lower, ".atom") {
		msgs = append(msgs, usernameFormatMsg)
	}
	if reservedUsernames[lower] {
		msgs = append(msgs, username+" is a reserved name")
	}
	return msgs
}

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
