package main

import (
	"fmt"
	"os"
	"runtime/pprof"
)

// profileEnv names a file the command writes a CPU profile of itself to,
// for measuring the tool's own cost (docs/PERFORMANCE.md): a variable,
// not a flag, since it is for whoever works on the tool.
const profileEnv = "ECSINSPECT_CPUPROFILE"

// startProfile starts the CPU profile profileEnv asks for; stop ends it.
func startProfile() (stop func()) {
	path := os.Getenv(profileEnv)
	if path == "" {
		return func() {}
	}
	f, err := os.Create(path)
	if err == nil {
		err = pprof.StartCPUProfile(f)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "ecsinspect: %s: %v\n", profileEnv, err)
		return func() {}
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
	}
}
