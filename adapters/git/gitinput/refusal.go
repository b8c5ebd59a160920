package gitinput

import (
	"errors"
	"strings"

	"github.com/hearth-forge/hearth/core"
)

// Refusal is the one line a git client prints for a push check's error:
// the core error's message when it has one (what a user should read),
// with control characters blanked so it cannot break the protocol line.
func Refusal(err error) string {
	msg := err.Error()
	var ce *core.Error
	if errors.As(err, &ce) && ce.Msg != "" {
		msg = ce.Msg
	}
	return OneLine(msg)
}

// OneLine blanks the control characters of s, for a pkt-line of text.
func OneLine(s string) string {
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return ' '
		}
		return r
	}, s)
}
