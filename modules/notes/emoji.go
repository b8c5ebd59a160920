package notes

import (
	_ "embed"
	"regexp"
	"strings"
)

// Vote names: awards with them count as upvotes and downvotes.
const (
	thumbsUp   = "thumbsup"
	thumbsDown = "thumbsdown"
)

// emojiIndex is GitLab 9.x's emoji index (gemojione 3, after EmojiOne
// 2.2): one emoji a line, its name then its aliases.
//
//go:embed emoji.txt
var emojiIndex string

// knownEmoji are the names an award may have; emojiAliases the other
// names GitLab accepts for them ("+1" is "thumbsup").
var knownEmoji, emojiAliases = parseEmojiIndex(emojiIndex)

func parseEmojiIndex(index string) (names map[string]bool, aliases map[string]string) {
	names, aliases = map[string]bool{}, map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(index), "\n") {
		f := strings.Fields(line)
		names[f[0]] = true
		for _, a := range f[1:] {
			aliases[a] = f[0]
		}
	}
	return names, aliases
}

// emojiOnly matches a body that is one ":name:" and nothing else.
var emojiOnly = regexp.MustCompile(`^:([a-z0-9_+\-]+):$`)

// awardName returns the award a note body asks for instead of a comment:
// a body of one known emoji (":+1:", ":thumbsup:", ":tada:" ...), as
// GitLab's Note#award_emoji? decides.
func awardName(body string) (string, bool) {
	m := emojiOnly.FindStringSubmatch(strings.TrimSpace(body))
	if m == nil {
		return "", false
	}
	name := normalizeEmoji(m[1])
	return name, knownEmoji[name]
}

// normalizeEmoji is the name GitLab stores for name: its alias's target
// ("+1" is "thumbsup"), or name itself.
func normalizeEmoji(name string) string {
	if alias, ok := emojiAliases[name]; ok {
		return alias
	}
	return name
}

// isVote reports whether name is an upvote or a downvote.
func isVote(name string) bool { return name == thumbsUp || name == thumbsDown }
