package inspector

import (
	"fmt"
	"os"
)

// defaultInstance names an instance by its host and process.
func defaultInstance() string {
	host, _ := os.Hostname()
	clean := make([]rune, 0, len(host))
	for _, r := range host {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' {
			clean = append(clean, r)
		}
		if len(clean) >= 40 {
			break
		}
	}
	if len(clean) == 0 {
		clean = []rune("game")
	}
	return fmt.Sprintf("%s-%d", string(clean), os.Getpid())
}

// Instance is the agent's name on the broker ("" without one).
func (a *Agent) Instance() string {
	if a.opts.Broker == "" {
		return ""
	}
	return a.opts.Instance
}
