package fleet

import (
	"crypto/ed25519"
	"crypto/hkdf"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"

	"github.com/nats-io/nats.go"
)

// An instance signs what it announces with an Ed25519 key: its Status
// travels as the message's bytes, the key and the signature in headers.
// With a fleet token the key is derived from the token and the instance's
// name, so a client that holds the token knows every instance's key
// without being told, and nobody without the token can announce under a
// name; without one, an instance makes a key at start, and clients pin the
// key they first hear a name with while that instance lives.

// Headers of a signed Status.
const (
	KeyHeader = "Ecs-Key" // the instance's public key, base64 (standard, padded)
	SigHeader = "Ecs-Sig" // the signature of "ecsinspect/2 status\x00" and the message's bytes, base64
)

// statusDomain begins what an instance signs, so a signature over a
// Status answers nothing else.
const statusDomain = "ecsinspect/2 status\x00"

// InstanceKey is the signing key of instance under a fleet token: HKDF-
// SHA256 of the token, salted with the instance's name, info
// "ecsinspect/2 instance key", as an Ed25519 seed.
func InstanceKey(token, instance string) ed25519.PrivateKey {
	seed, err := hkdf.Key(sha256.New, []byte(token), []byte(instance), "ecsinspect/2 instance key", ed25519.SeedSize)
	if err != nil {
		panic(err)
	}
	return ed25519.NewKeyFromSeed(seed)
}

// NewInstanceKey makes a random key, for an instance without a token.
func NewInstanceKey() ed25519.PrivateKey {
	_, k, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		panic(err)
	}
	return k
}

// signedStatus is s encoded and signed with key, as a message to subject.
func signedStatus(subject string, s Status, key ed25519.PrivateKey) (*nats.Msg, error) {
	b, err := EncodeStatus(s)
	if err != nil {
		return nil, err
	}
	m := nats.NewMsg(subject)
	m.Data = b
	m.Header.Set(KeyHeader, base64.StdEncoding.EncodeToString(key.Public().(ed25519.PublicKey)))
	m.Header.Set(SigHeader, base64.StdEncoding.EncodeToString(ed25519.Sign(key, append([]byte(statusDomain), b...))))
	return m, nil
}

// openStatus reads a signed Status: the key it was signed with, once the
// signature checks.
func openStatus(m *nats.Msg) (Status, ed25519.PublicKey, error) {
	key, err := base64.StdEncoding.DecodeString(m.Header.Get(KeyHeader))
	if err != nil || len(key) != ed25519.PublicKeySize {
		return Status{}, nil, errors.New("fleet: a status without its instance's key")
	}
	sig, err := base64.StdEncoding.DecodeString(m.Header.Get(SigHeader))
	if err != nil || len(sig) != ed25519.SignatureSize {
		return Status{}, nil, errors.New("fleet: a status without a signature")
	}
	if len(m.Data) > MaxStatus || !ed25519.Verify(key, append([]byte(statusDomain), m.Data...), sig) {
		return Status{}, nil, errors.New("fleet: a status whose signature does not check")
	}
	s, err := DecodeStatus(m.Data)
	if err != nil {
		return Status{}, nil, err
	}
	return s, key, nil
}

// Fingerprint is a key as people compare them: its first 8 bytes, base64.
func Fingerprint(key ed25519.PublicKey) string {
	if len(key) < 8 {
		return "?"
	}
	return base64.RawURLEncoding.EncodeToString(key[:8])
}
