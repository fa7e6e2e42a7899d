package ui

import (
	"strings"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
)

// Styles is every style the UI uses, in one place.
type Styles struct {
	Title, Tab, ActiveTab, Header, Selected, Faint, Error, Flash, Changed, Status, Key lipgloss.Style
}

// DefaultStyles are the UI's styles; without colour (NO_COLOR, a dumb
// terminal) they fall back to bold, reverse and faint.
func DefaultStyles() Styles {
	return Styles{
		Title:     lipgloss.NewStyle().Bold(true),
		Tab:       lipgloss.NewStyle().Faint(true),
		ActiveTab: lipgloss.NewStyle().Bold(true).Reverse(true),
		Header:    lipgloss.NewStyle().Bold(true).Underline(true),
		Selected:  lipgloss.NewStyle().Reverse(true),
		Faint:     lipgloss.NewStyle().Faint(true),
		Error:     lipgloss.NewStyle().Foreground(lipgloss.Color("9")).Bold(true),
		Flash:     lipgloss.NewStyle().Foreground(lipgloss.Color("11")),
		Changed:   lipgloss.NewStyle().Foreground(lipgloss.Color("10")).Bold(true),
		Status:    lipgloss.NewStyle().Reverse(true),
		Key:       lipgloss.NewStyle().Bold(true),
	}
}

// fit cuts s to width cells (styles kept) and pads it, so no line wraps.
func fit(s string, width int) string {
	if width <= 0 {
		return ""
	}
	s = ansi.Truncate(s, width, "…")
	if pad := width - ansi.StringWidth(s); pad > 0 {
		s += spaces(pad)
	}
	return s
}

func spaces(n int) string {
	switch {
	case n <= 0:
		return ""
	case n <= len(blanks):
		return blanks[:n] // no copy: the screen pads every line each frame
	}
	return strings.Repeat(" ", n)
}

// blanks is the padding spaces hands out without a copy: a screen's width.
var blanks = strings.Repeat(" ", 512)
