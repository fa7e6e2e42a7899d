// Package portdoc is the ark code docs/PORTING.md shows beside its port to
// ecsinspect's kernel, kept here where ark is a dependency so that it
// compiles (internal/doccheck fails unless every Go block of the docs is
// code of a Go file that builds).
package portdoc
