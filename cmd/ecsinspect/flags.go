package main

import (
	"flag"
	"fmt"
	"io"
)

// commandFlags is a command's flag set: errors and help go to out, and
// --help prints usage (the command's own text; none for a subcommand of
// exec, whose usage is exec's) and then every flag with its default.
func commandFlags(name, usage string, out io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(out)
	if usage != "" {
		fs.Usage = func() { fmt.Fprint(out, usage); fs.PrintDefaults() }
	}
	return fs
}
