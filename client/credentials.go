package client

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strings"
)

// Saved credentials: `ecsinspect fleet` runs its broker with users and a
// fleet token, and saves a client's in a file only the user can read
// (mode 0600, in the user's configuration directory), by broker address;
// a client given that broker's URL without a user, or without a token,
// uses them. Another user of the machine reads nothing.

// SavedCredentials is what a client presents to one broker.
type SavedCredentials struct {
	User     string `json:"user"`
	Password string `json:"password"`
	Token    string `json:"token,omitempty"`
}

// CredentialsFile is where credentials are saved: $ECSINSPECT_CREDENTIALS,
// or brokers.json in the user's configuration directory's ecsinspect.
func CredentialsFile() (string, error) {
	if p := os.Getenv("ECSINSPECT_CREDENTIALS"); p != "" {
		return p, nil
	}
	dir, err := os.UserConfigDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, "ecsinspect", "brokers.json"), nil
}

// SaveCredentials keeps c for the broker at hostport ("127.0.0.1:4222").
func SaveCredentials(hostport string, c SavedCredentials) (string, error) {
	path, err := CredentialsFile()
	if err != nil {
		return "", err
	}
	all, err := readCredentials(path)
	if err != nil {
		return "", err
	}
	all[hostport] = c
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return "", err
	}
	return path, writeCredentials(path, all)
}

// writeCredentials replaces the file at path with all: written to a new
// file of a random name made only if none is there (O_EXCL, mode 0600:
// never through a link another user planted), then renamed over path
// (which replaces a link at path, never writes through it). A failure
// leaves nothing behind.
func writeCredentials(path string, all map[string]SavedCredentials) error {
	b, err := json.MarshalIndent(all, "", "  ")
	if err != nil {
		return err
	}
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+"-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	_, err = f.Write(b)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		_ = os.Remove(tmp)
	}
	return err
}

// ForgetCredentials drops what was saved for hostport.
func ForgetCredentials(hostport string) error {
	path, err := CredentialsFile()
	if err != nil {
		return err
	}
	all, err := readCredentials(path)
	if err != nil || len(all) == 0 {
		return err
	}
	delete(all, hostport)
	return writeCredentials(path, all)
}

// readCredentials reads the file; a file others may read is refused (the
// credentials would not be the user's alone).
func readCredentials(path string) (map[string]SavedCredentials, error) {
	all := map[string]SavedCredentials{}
	info, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return all, nil
	}
	if err != nil {
		return nil, err
	}
	if info.Mode().Perm()&0o077 != 0 {
		return nil, fmt.Errorf("%s may be read by other users (mode %v): chmod 600 it", path, info.Mode().Perm())
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(b, &all); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return all, nil
}

// withSavedCredentials is addr and token with what was saved for addr's
// broker filled in: the user and password when the URL has none, the
// token when none was given. Other addresses pass as they are.
func withSavedCredentials(addr, token string) (string, string) {
	if !strings.HasPrefix(addr, "nats://") && !strings.HasPrefix(addr, "tls://") {
		return addr, token
	}
	u, err := url.Parse(addr)
	if err != nil {
		return addr, token
	}
	path, err := CredentialsFile()
	if err != nil {
		return addr, token
	}
	all, err := readCredentials(path)
	if err != nil {
		return addr, token
	}
	c, ok := all[u.Host]
	if !ok {
		return addr, token
	}
	if u.User == nil {
		u.User = url.UserPassword(c.User, c.Password)
		addr = u.String()
	}
	if token == "" {
		token = c.Token
	}
	return addr, token
}
