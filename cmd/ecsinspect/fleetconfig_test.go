package main

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"

	"github.com/ecsinspect/ecsinspect/ecs"
	"github.com/ecsinspect/ecsinspect/fleet"
	"github.com/ecsinspect/ecsinspect/inspector"
)

// selfSigned writes a certificate for 127.0.0.1 and its key, as PEM
// files, and returns their paths (the certificate is its own authority).
func selfSigned(t *testing.T) (cert, key string) {
	t.Helper()
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	must(t, err)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "broker"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, IsCA: true, BasicConstraintsValid: true,
		KeyUsage: x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &k.PublicKey, k)
	must(t, err)
	kb, err := x509.MarshalECPrivateKey(k)
	must(t, err)
	dir := t.TempDir()
	cert, key = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	must(t, os.WriteFile(cert, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600))
	must(t, os.WriteFile(key, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kb}), 0o600))
	return cert, key
}

// TestOwnBrokerAsFleetDocSays: a standalone nats-server configured with
// what `fleet --print-config` prints, and TLS, as docs/FLEET.md says: a
// game joins with its user, the fleet token and the authority's file; a
// client with its user and token lists and queries it over tls://; a
// stranger is refused; and the document shows the same permissions.
func TestOwnBrokerAsFleetDocSays(t *testing.T) {
	t.Setenv(fleet.CAEnv, "") // --ca sets it for the process: put back when the test ends
	t.Setenv(fleet.CredsEnv, "")
	code, conf, errs := cli("fleet", "--instances", "0", "--allow", "match-01", "--clients", "alice", "--print-config")
	if code != 0 {
		t.Fatalf("--print-config: %s", errs)
	}
	token := regexp.MustCompile(`fleet token for games \(Options.Token\) and clients \(--token\): (\S+)`).FindStringSubmatch(conf)
	game := regexp.MustCompile(`user: "game-match-01", password: "(\S+)"`).FindStringSubmatch(conf)
	alice := regexp.MustCompile(`user: "alice", password: "(\S+)"`).FindStringSubmatch(conf)
	if token == nil || game == nil || alice == nil {
		t.Fatalf("the printed configuration lacks the token or a user:\n%s", conf)
	}
	doc, err := os.ReadFile("../../docs/FLEET.md")
	must(t, err)
	for _, line := range strings.Split(conf, "\n") {
		if strings.Contains(line, "allow") && !strings.Contains(string(doc), strings.TrimSpace(line)) {
			t.Errorf("docs/FLEET.md does not show the permission line %q", strings.TrimSpace(line))
		}
	}

	cert, key := selfSigned(t)
	file := filepath.Join(t.TempDir(), "nats.conf")
	must(t, os.WriteFile(file, []byte("listen: 127.0.0.1:-1\ntls {\n  cert_file: \""+cert+"\"\n  key_file: \""+key+"\"\n}\n"+conf), 0o600))
	opts, err := server.ProcessConfigFile(file)
	must(t, err)
	opts.NoLog, opts.NoSigs = true, true
	srv, err := server.NewServer(opts)
	must(t, err)
	srv.Start()
	defer srv.Shutdown()
	if !srv.ReadyForConnections(10 * time.Second) {
		t.Fatal("the broker did not start")
	}
	port := srv.Addr().(*net.TCPAddr).Port
	broker := "tls://127.0.0.1:" + strconv.Itoa(port)

	w := ecs.NewWorld()
	ecs.NewMap[docPos](w).SpawnBatch(10, func(i int, _ ecs.Entity, p *docPos) { p.X = float64(i) })
	agent := inspector.New(w, inspector.Options{Addr: "", Broker: "tls://game-match-01:" + game[1] + "@127.0.0.1:" + strconv.Itoa(port),
		Instance: "match-01", Token: token[1], BrokerCA: cert, Game: "doc"})
	must(t, agent.Start())
	defer agent.Close()
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		for {
			select {
			case <-stop:
				return
			case <-time.After(5 * time.Millisecond):
				agent.Sync()
			}
		}
	}()

	t.Setenv("ECSINSPECT_CREDENTIALS", filepath.Join(t.TempDir(), "none.json"))
	aliceURL := "tls://alice:" + alice[1] + "@127.0.0.1:" + strconv.Itoa(port)
	var listed fleetDump
	for deadline := time.Now().Add(10 * time.Second); len(listed.Instances) == 0 || listed.Instances[0].Total == nil; time.Sleep(100 * time.Millisecond) {
		code, out, errs := cli("dump", "--all", "--json", "--token", token[1], "--ca", cert, "--query", "docPos.X>=5", aliceURL)
		if code == 0 {
			_ = json.Unmarshal([]byte(out), &listed)
		}
		if time.Now().After(deadline) {
			t.Fatalf("alice over tls://: %d %s %s (the game says %q)", code, out, errs, agent.Telemetry().Broker)
		}
	}
	if e := listed.Instances[0]; e.Instance != "match-01" || *e.Total != 5 {
		t.Fatalf("alice listed %+v", listed.Instances)
	}
	if code, _, errs := cli("dump", "--all", "--ca", cert, broker); code == 0 || !strings.Contains(strings.ToLower(errs), "authorization") {
		t.Fatalf("a stranger on the configured broker: %d %s", code, errs)
	}
	if _, err := fleet.ParseURL(broker); err != nil {
		t.Fatal(err)
	}
}

type docPos struct{ X float64 }
