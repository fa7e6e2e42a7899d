package protocol

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/hkdf"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
)

// Tokens never travel. An agent that has a token answers a Hello with a
// Challenge (its nonce); the client proves it knows the token with an
// HMAC over both nonces (Auth), the agent proves the same in its Welcome,
// and from then on every frame each way is sealed with AES-256-GCM under
// keys derived from the token and both nonces, numbered from 0. A sniffer
// learns neither the token nor what the session says, a recorded proof
// does not answer another challenge, and a frame someone else injects,
// replays or alters fails to open and ends the session. PROTOCOL.md,
// "Tokens and sealed sessions", is the contract.

// NonceSize is the size of the client's and the agent's nonces.
const NonceSize = 32

// Message types of the token handshake.
const (
	TypeAuth      Type = 21 // client: the proof that it knows the token
	TypeChallenge Type = 77 // agent: its nonce, when it wants a token
)

// Challenge asks the client to prove it knows the agent's token.
type Challenge struct {
	Nonce []byte `msgpack:"an"` // the agent's nonce, NonceSize bytes
}

// Auth is the client's proof: ClientProof(token, its nonce, the agent's).
type Auth struct {
	Proof []byte `msgpack:"p"`
}

func (*Challenge) Type() Type { return TypeChallenge }
func (*Auth) Type() Type      { return TypeAuth }

// NewNonce returns NonceSize random bytes.
func NewNonce() []byte {
	b := make([]byte, NonceSize)
	_, _ = rand.Read(b)
	return b
}

// ClientProof is the client's proof of the token for a handshake's nonces:
// HMAC-SHA256 keyed with the token over "ecsinspect/2 client", the
// client's nonce and the agent's.
func ClientProof(token string, clientNonce, agentNonce []byte) []byte {
	return proof(token, "ecsinspect/2 client", clientNonce, agentNonce)
}

// AgentProof is the agent's: the same over "ecsinspect/2 agent".
func AgentProof(token string, clientNonce, agentNonce []byte) []byte {
	return proof(token, "ecsinspect/2 agent", clientNonce, agentNonce)
}

func proof(token, label string, cn, an []byte) []byte {
	m := hmac.New(sha256.New, []byte(token))
	m.Write([]byte(label))
	m.Write(cn)
	m.Write(an)
	return m.Sum(nil)
}

// SessionKeys derives the keys that seal a session's frames: HKDF-SHA256
// of the token, salted with the client's nonce then the agent's, info
// "ecsinspect/2 session keys", 64 bytes: the client's key (frames it
// sends) then the agent's.
func SessionKeys(token string, clientNonce, agentNonce []byte) (client, agent []byte) {
	salt := append(append([]byte{}, clientNonce...), agentNonce...)
	k, err := hkdf.Key(sha256.New, []byte(token), salt, "ecsinspect/2 session keys", 64)
	if err != nil {
		panic(err) // only for lengths HKDF cannot give
	}
	return k[:32], k[32:]
}

// SealOverhead is what sealing adds to a frame: GCM's tag.
const SealOverhead = 16

// ErrSealBroken is matched by the error of a sealed frame that does not open:
// injected, replayed, altered, or sealed under another key.
var ErrSealBroken = errors.New("protocol: a sealed frame failed its authentication")

// frameSealer seals or opens one direction's frames, numbered from 0.
type frameSealer struct {
	aead  cipher.AEAD
	n     uint64
	nonce [12]byte
}

func newFrameSealer(key []byte) *frameSealer {
	block, err := aes.NewCipher(key)
	if err != nil {
		panic(err) // a 32-byte key always makes one
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		panic(err)
	}
	return &frameSealer{aead: aead}
}

// next is the nonce of the next frame: 4 zero bytes, then its number.
func (s *frameSealer) next() []byte {
	binary.BigEndian.PutUint64(s.nonce[4:], s.n)
	s.n++
	return s.nonce[:]
}

// seal appends the sealed payload to dst.
func (s *frameSealer) seal(dst, payload []byte) []byte {
	return s.aead.Seal(dst, s.next(), payload, nil)
}

// open opens a sealed frame in place.
func (s *frameSealer) open(frame []byte) ([]byte, error) {
	n := s.n
	out, err := s.aead.Open(frame[:0], s.next(), frame, nil)
	if err != nil {
		return nil, fmt.Errorf("%w (frame %d)", ErrSealBroken, n)
	}
	return out, nil
}

// Seal makes every frame after this call sealed: sent ones under send,
// received ones opened under recv (32-byte keys, see SessionKeys).
func (c *Conn) Seal(send, recv []byte) {
	c.out, c.in = newFrameSealer(send), newFrameSealer(recv)
}

// Sealed reports whether the connection's frames are sealed.
func (c *Conn) Sealed() bool { return c.out != nil }
