package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/ecsinspect/ecsinspect/client"
	"github.com/ecsinspect/ecsinspect/fleet"
	"github.com/ecsinspect/ecsinspect/inspector"
	"github.com/ecsinspect/ecsinspect/ui"
)

// runAttach opens the UI on a running game's agent.
func runAttach(args []string, out, errOut io.Writer) error {
	fs := commandFlags("attach", "Usage: ecsinspect attach [ADDR] [--token T]\n\nOpens the terminal UI on the game whose agent listens at ADDR\n(host:port, default "+inspector.DefaultAddr+", or unix:/path, or one game on a\nbroker: nats://host:4222/INSTANCE). On a broker's URL, nats://host:4222,\nit opens the Fleet view: every game on the broker; enter attaches to one,\nF comes back.\n\n", out)
	token := fs.String("token", "", "the agent's token, if it wants one")
	brokerFlags(fs)
	if err := fs.Parse(reorder(fs, args)); err != nil {
		return err
	}
	defer collectLessOften()()
	addr := inspector.DefaultAddr
	switch fs.NArg() {
	case 0:
	case 1:
		addr = fs.Arg(0)
	default:
		return usageError{fmt.Errorf("one address, please; got %v", fs.Args())}
	}
	if t, err := fleet.ParseURL(addr); err == nil && t.Instance == "" {
		return ui.Run(addr, *token, errOut) // the Fleet view: it says if the broker is not there
	}
	// Fail fast with a clear message if nothing listens there.
	c, _, err := client.Connect(addr, *token, "ecsinspect "+client.Version)
	if err != nil {
		return err
	}
	c.Close()
	return ui.Run(addr, *token, errOut)
}

// brokerFlags adds --creds and --ca to a command's flags: the files its
// broker connections take (see fleet.CredsEnv, fleet.CAEnv).
func brokerFlags(fs *flag.FlagSet) {
	fs.Func("creds", "a NATS credentials file for a broker that wants one (nats://, tls://)", func(v string) error { brokerFile("--creds", v); return nil })
	fs.Func("ca", "a PEM file of the certificate authorities a tls:// broker's certificate is checked against", func(v string) error { brokerFile("--ca", v); return nil })
}

// brokerFile sets the file a broker flag names for this process's
// connections.
func brokerFile(flag, path string) {
	if flag == "--creds" {
		os.Setenv(fleet.CredsEnv, path)
	} else {
		os.Setenv(fleet.CAEnv, path)
	}
}

// reorder moves flags before positional arguments, so "attach ADDR --token
// T" works as well as "attach --token T ADDR". Whether a flag takes the
// next argument as its value is asked of the flag itself (a boolean flag
// does not), so a new boolean flag needs no list kept by hand.
func reorder(fs *flag.FlagSet, args []string) []string {
	var flags, pos []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			pos = append(pos, args[i+1:]...)
			break
		}
		if len(a) > 1 && a[0] == '-' {
			flags = append(flags, a)
			if !strings.Contains(a, "=") && i+1 < len(args) && takesValue(fs, a) {
				flags = append(flags, args[i+1])
				i++
			}
			continue
		}
		pos = append(pos, a)
	}
	return append(flags, pos...)
}

// takesValue reports whether the flag named by arg (-name or --name) takes
// a value: every flag but a boolean one (and -h, --help).
func takesValue(fs *flag.FlagSet, arg string) bool {
	f := fs.Lookup(strings.TrimLeft(arg, "-"))
	if f == nil {
		return false // unknown: flag.Parse says so
	}
	b, ok := f.Value.(interface{ IsBoolFlag() bool })
	return !ok || !b.IsBoolFlag()
}
