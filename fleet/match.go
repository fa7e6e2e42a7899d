package fleet

import (
	"fmt"
	"path"
	"strconv"
	"strings"
)

// matchTerm tests one term of a filter (Match).
func matchTerm(m Member, term string) (bool, error) {
	i := strings.IndexAny(term, "=<>")
	if i <= 0 {
		return false, fmt.Errorf("fleet filter %q: want key=value, key>N or key<N", term)
	}
	key, op, val := strings.TrimSpace(term[:i]), term[i], strings.TrimSpace(term[i+1:])
	text, num, isNum := fieldOf(m, key)
	if !isNum && !knownKey(key) {
		return false, fmt.Errorf("fleet filter %q: no field %q (instance, game, host, build, paused, pid, tick, tps, p99, entities, hits, clients)", term, key)
	}
	if op == '=' {
		if isNum {
			text = strconv.FormatFloat(num, 'f', -1, 64)
		}
		ok, err := path.Match(val, text)
		if err != nil {
			return false, fmt.Errorf("fleet filter %q: %v", term, err)
		}
		return ok, nil
	}
	if !isNum {
		return false, fmt.Errorf("fleet filter %q: %s is not a number", term, key)
	}
	want, err := strconv.ParseFloat(val, 64)
	if err != nil {
		return false, fmt.Errorf("fleet filter %q: %q is not a number", term, val)
	}
	if op == '>' {
		return num > want, nil
	}
	return num < want, nil
}

func knownKey(key string) bool {
	switch key {
	case "instance", "game", "host", "build", "paused":
		return true
	}
	return false
}

// fieldOf is a discovery field by its filter key: text, or a number.
func fieldOf(m Member, key string) (text string, num float64, isNum bool) {
	switch key {
	case "instance":
		return m.Instance, 0, false
	case "game":
		return m.Game, 0, false
	case "host":
		return m.Host, 0, false
	case "build":
		return m.Build, 0, false
	case "paused":
		return strconv.FormatBool(m.Paused), 0, false
	case "pid":
		return "", float64(m.PID), true
	case "tick":
		return "", float64(m.Tick), true
	case "tps":
		return "", m.TPS, true
	case "p99":
		return "", m.FrameP99, true
	case "entities":
		return "", float64(m.Entities), true
	case "hits":
		return "", float64(m.Hits), true
	case "clients":
		return "", float64(m.Clients), true
	}
	return "", 0, false
}
