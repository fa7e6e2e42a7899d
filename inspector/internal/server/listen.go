package server

import (
	"errors"
	"fmt"
	"net"
	"os"
	"strings"
	"syscall"
	"time"
)

// Listen opens the listener addr names: "host:port" for TCP or
// "unix:/path" for a Unix socket made with mode. It refuses an address
// other machines can reach when there is no token, unless allowRemote.
func Listen(addr, token string, allowRemote bool, mode os.FileMode) (net.Listener, error) {
	if path, ok := strings.CutPrefix(addr, "unix:"); ok {
		if path == "" {
			return nil, errors.New("inspector: unix: needs a socket path, like unix:/tmp/game.sock")
		}
		return listenUnix(path, mode)
	}
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("inspector: address %q: want host:port or unix:/path (%v)", addr, err)
	}
	if !isLoopback(host) && token == "" && !allowRemote {
		return nil, fmt.Errorf("inspector: refusing to listen on %s without a token: anyone who can reach it could read and edit the game; "+
			"set Options.Token (clients pass --token), listen on 127.0.0.1, or set Options.AllowRemote to accept the risk", addr)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("inspector: listen on %s: %w", addr, err)
	}
	return ln, nil
}

func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// listenUnix listens on a Unix socket at path with the given permissions.
// A socket file left by a process that died is detected (nothing answers
// on it) and replaced; a socket another process still serves, or a file
// that is not a socket, is refused with an error saying so.
func listenUnix(path string, mode os.FileMode) (net.Listener, error) {
	if fi, err := os.Lstat(path); err == nil {
		if fi.Mode()&os.ModeSocket == 0 {
			return nil, fmt.Errorf("inspector: listen on unix:%s: the path exists and is not a socket", path)
		}
		c, err := net.DialTimeout("unix", path, 200*time.Millisecond)
		if err == nil {
			_ = c.Close()
			return nil, fmt.Errorf("inspector: listen on unix:%s: another process serves this socket", path)
		}
		if !errors.Is(err, syscall.ECONNREFUSED) {
			return nil, fmt.Errorf("inspector: listen on unix:%s: the socket exists and does not answer as a stale one would: %w", path, err)
		}
		if err := os.Remove(path); err != nil {
			return nil, fmt.Errorf("inspector: remove the stale socket %s: %w", path, err)
		}
	}
	// The socket is created with the process umask; a restrictive umask
	// while it is made means no moment where others could connect.
	old := syscall.Umask(0o777 &^ int(mode.Perm()))
	ln, err := net.Listen("unix", path)
	syscall.Umask(old)
	if err != nil {
		return nil, fmt.Errorf("inspector: listen on unix:%s: %w", path, err)
	}
	if err := os.Chmod(path, mode.Perm()); err != nil {
		_ = ln.Close()
		return nil, fmt.Errorf("inspector: set the mode of %s: %w", path, err)
	}
	return ln, nil
}
