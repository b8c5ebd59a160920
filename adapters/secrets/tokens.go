package secrets

import (
	"crypto/rand"
	"encoding/base64"
	"fmt"

	"github.com/hearth-forge/hearth/core/ports"
)

// tokenBytes is the entropy of a token: 192 bits, above the 160 the port
// requires, and a whole number of base64 groups (32 characters).
const tokenBytes = 24

// RandomTokens makes token secrets from crypto/rand, URL-safe base64
// encoded after a prefix. GitLab-style prefixes such as "glpat-" let secret
// scanners recognise leaked tokens.
type RandomTokens struct{}

// NewToken returns prefix followed by 24 random bytes in unpadded URL-safe base64.
func (RandomTokens) NewToken(prefix string) (string, error) {
	b := make([]byte, tokenBytes)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("secrets: token: %w", err)
	}
	return prefix + base64.RawURLEncoding.EncodeToString(b), nil
}

var _ ports.TokenGenerator = RandomTokens{}
