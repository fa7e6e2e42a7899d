package protocol

import (
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
)

// A token's proof is an HMAC over nonces anyone on the path sees, so one
// captured handshake (or one with an impostor on the game's address)
// lets whoever holds it test guesses offline, as fast as they can compute
// HMACs. A word or a phrase a person chose falls to a dictionary in
// seconds; a random token of NewToken's size does not in any time. So
// both sides refuse a token too short or too plain to be random
// (CheckToken), and tools make tokens with NewToken.

// ErrWeakToken is matched by CheckToken's error: trying again will not help.
var ErrWeakToken = errors.New("the token is too weak")

// Bounds on a token (CheckToken).
const (
	MinTokenBytes    = 20 // at least this many bytes
	MinTokenDistinct = 10 // of at least this many distinct byte values
)

// CheckToken refuses a token that cannot be random enough to survive an
// offline guess from one captured proof: shorter than MinTokenBytes, or
// with fewer than MinTokenDistinct distinct bytes. The empty token (no
// token) passes.
func CheckToken(token string) error {
	if token == "" {
		return nil
	}
	var seen [256]bool
	distinct := 0
	for i := 0; i < len(token); i++ {
		if !seen[token[i]] {
			seen[token[i]] = true
			distinct++
		}
	}
	if len(token) < MinTokenBytes || distinct < MinTokenDistinct {
		return fmt.Errorf("%w: a proof of it captured once can be guessed offline; use a random token of %d characters or more (%d different ones at least), such as 'ecsinspect token' prints", ErrWeakToken, MinTokenBytes, MinTokenDistinct)
	}
	return nil
}

// NewToken returns a random token: 24 random bytes as unpadded base64url,
// 32 characters (192 bits).
func NewToken() string {
	b := make([]byte, 24)
	_, _ = rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}
