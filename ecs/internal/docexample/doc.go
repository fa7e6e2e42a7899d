// Package docexample holds, as Examples a test compiles, the code the
// README and docs/KERNEL.md show: internal/doccheck fails unless every
// fenced Go block of those pages is code of a Go file that builds. It has
// nothing to import.
package docexample
