// Package printable makes text from outside the program safe to show on a
// terminal: a recording's gap reasons, a game's component, system, field
// and resource names, string values, a client's name, an agent's error
// messages. Such text may hold escape sequences (a window title, a clear
// screen, colours) and line breaks that forge output lines; Text shows
// them as Go escapes instead, and Clean does it to every string a message
// holds.
//
//	fmt.Fprintln(stderr, printable.Text(err.Error()))
//	printable.Clean(msg) // every string reachable from msg, in place
package printable
