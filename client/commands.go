package client

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/ecsinspect/ecsinspect/protocol"
	"github.com/ecsinspect/ecsinspect/protocol/query"
)

// Commands lists the commands ParseCommand knows, for messages.
const Commands = "pause, resume, step N, rewind TICK|-N, set, add, remove, parent, despawn, spawn, watch, unwatch, watch-off, watch-on"

// ParseCommand turns a command line into a request.
func ParseCommand(words []string) (func(uint32) protocol.Message, string, error) {
	cmd, args := words[0], words[1:]
	need := func(n int, form string) error {
		if len(args) < n {
			return fmt.Errorf("%s: want %s", cmd, form)
		}
		return nil
	}
	entity := func() (protocol.EntityID, error) {
		e, err := protocol.ParseEntityID(args[0])
		if err != nil {
			return 0, fmt.Errorf("%s: %q is not an entity like 42v3", cmd, args[0])
		}
		return e, nil
	}
	switch cmd {
	case "pause":
		return func(id uint32) protocol.Message { return &protocol.Pause{ID: id} }, cmd, nil
	case "resume":
		return func(id uint32) protocol.Message { return &protocol.Resume{ID: id} }, cmd, nil
	case "step":
		n := uint64(1)
		if len(args) > 0 {
			var err error
			if n, err = strconv.ParseUint(args[0], 10, 32); err != nil || n == 0 {
				return nil, "", fmt.Errorf("step: %q is not a number of frames", args[0])
			}
		}
		return func(id uint32) protocol.Message { return &protocol.Step{ID: id, N: uint32(n)} }, cmd, nil
	case "rewind":
		if err := need(1, "a tick, or -N for N ticks back"); err != nil {
			return nil, "", err
		}
		back, relative := strings.CutPrefix(args[0], "-")
		n, err := strconv.ParseUint(back, 10, 64)
		if err != nil || relative && n == 0 {
			return nil, "", fmt.Errorf("rewind: %q is not a tick, or -N ticks back", args[0])
		}
		if relative {
			return func(id uint32) protocol.Message { return &protocol.Rewind{ID: id, Back: n, Exact: true} }, cmd, nil
		}
		return func(id uint32) protocol.Message { return &protocol.Rewind{ID: id, Tick: n, Exact: true} }, cmd, nil
	case "set":
		if err := need(2, "ENTITY Component.Field=VALUE"); err != nil {
			return nil, "", err
		}
		e, err := entity()
		if err != nil {
			return nil, "", err
		}
		path, val, ok := strings.Cut(args[1], "=")
		if !ok || path == "" {
			return nil, "", fmt.Errorf("set: want Component.Field=VALUE, got %q", args[1])
		}
		v := ParseInput(val)
		return func(id uint32) protocol.Message { return &protocol.SetField{ID: id, Entity: e, Path: path, Value: v} }, "set " + path, nil
	case "parent":
		if err := need(2, "ENTITY PARENT (or none)"); err != nil {
			return nil, "", err
		}
		e, err := entity()
		if err != nil {
			return nil, "", err
		}
		var p protocol.EntityID
		if args[1] != "none" {
			if p, err = protocol.ParseEntityID(args[1]); err != nil || p == 0 {
				return nil, "", fmt.Errorf("parent: %q is not an entity like 7v1, or none", args[1])
			}
		}
		return func(id uint32) protocol.Message { return &protocol.SetParent{ID: id, Entity: e, Parent: p} }, "parent", nil
	case "add", "remove":
		if err := need(2, "ENTITY COMPONENT"); err != nil {
			return nil, "", err
		}
		e, err := entity()
		if err != nil {
			return nil, "", err
		}
		cv, err := ParseComponent(args[1])
		if err != nil {
			return nil, "", err
		}
		if cmd == "remove" {
			return func(id uint32) protocol.Message {
				return &protocol.RemoveComponent{ID: id, Entity: e, Component: cv.Component}
			}, "remove " + cv.Component, nil
		}
		return func(id uint32) protocol.Message {
			return &protocol.AddComponent{ID: id, Entity: e, Component: cv.Component, Value: cv.Value}
		}, "add " + cv.Component, nil
	case "despawn":
		if err := need(1, "ENTITY [--recursive]"); err != nil {
			return nil, "", err
		}
		e, err := entity()
		if err != nil {
			return nil, "", err
		}
		rec := len(args) > 1 && (args[1] == "--recursive" || args[1] == "-recursive")
		return func(id uint32) protocol.Message { return &protocol.Despawn{ID: id, Entity: e, Recursive: rec} }, "despawn", nil
	case "watch":
		log, keep := false, false
		for len(args) > 0 && slices.Contains([]string{"--log", "-log", "--keep", "-keep"}, args[0]) {
			log, keep = log || strings.HasSuffix(args[0], "log"), keep || strings.HasSuffix(args[0], "keep")
			args = args[1:]
		}
		if keep && !log {
			return nil, "", fmt.Errorf("watch: --keep goes with --log (a watchpoint that pauses the game stays anyway)")
		}
		expr := strings.Join(args, " ")
		if _, err := query.ParseWatch(expr); err != nil {
			return nil, "", fmt.Errorf("watch: %v", err)
		}
		return func(id uint32) protocol.Message { return &protocol.Watch{ID: id, Expr: expr, Log: log, Keep: keep} }, "watch " + expr, nil
	case "unwatch", "watch-off", "watch-on":
		if err := need(1, "a watchpoint's number"); err != nil {
			return nil, "", err
		}
		n, err := strconv.ParseUint(args[0], 10, 32)
		if err != nil || n == 0 {
			return nil, "", fmt.Errorf("%s: %q is not a watchpoint's number", cmd, args[0])
		}
		w := uint32(n)
		if cmd == "unwatch" {
			return func(id uint32) protocol.Message { return &protocol.Unwatch{ID: id, Watch: w} }, cmd, nil
		}
		on := cmd == "watch-on"
		return func(id uint32) protocol.Message { return &protocol.EnableWatch{ID: id, Watch: w, On: on} }, cmd, nil
	case "spawn":
		var comps []protocol.ComponentValue
		for _, a := range args {
			cv, err := ParseComponent(a)
			if err != nil {
				return nil, "", err
			}
			comps = append(comps, cv)
		}
		return func(id uint32) protocol.Message { return &protocol.Spawn{ID: id, Components: comps} }, "spawn", nil
	}
	return nil, "", fmt.Errorf("unknown command %q: want one of %s", cmd, Commands)
}

// ParseComponent reads NAME or NAME={json fields}.
func ParseComponent(s string) (protocol.ComponentValue, error) {
	name, fields, hasFields := strings.Cut(s, "=")
	cv := protocol.ComponentValue{Component: name}
	if !hasFields {
		return cv, nil
	}
	var m map[string]any
	dec := json.NewDecoder(strings.NewReader(fields))
	dec.UseNumber()
	if err := dec.Decode(&m); err != nil {
		return cv, fmt.Errorf("%s: the fields are not a JSON object like {\"X\":1}: %v", name, err)
	}
	cv.Value = jsonValue(m)
	return cv, nil
}

// jsonValue turns decoded JSON into a wire value.
func jsonValue(x any) protocol.Value {
	switch v := x.(type) {
	case map[string]any:
		fields := make([]protocol.Field, 0, len(v))
		for k, e := range v {
			fields = append(fields, protocol.Field{Name: k, Value: jsonValue(e)})
		}
		return protocol.MapValue(fields...)
	case []any:
		items := make([]protocol.Value, len(v))
		for i, e := range v {
			items[i] = jsonValue(e)
		}
		return protocol.ListValue(items...)
	case json.Number:
		if i, err := v.Int64(); err == nil {
			return protocol.IntValue(i)
		}
		f, _ := v.Float64()
		return protocol.FloatValue(f)
	case string:
		return protocol.StringValue(v)
	case bool:
		return protocol.BoolValue(v)
	}
	return protocol.Nil()
}

// SplitWords splits a command line on spaces, keeping 'quoted' and
// "quoted" words (JSON values) whole.
func SplitWords(s string) []string {
	var out []string
	var cur strings.Builder
	var quote rune
	inWord := false
	for _, r := range s {
		switch {
		case quote != 0:
			if r == quote {
				quote = 0
			} else {
				cur.WriteRune(r)
			}
		case r == '\'' || (r == '"' && !inWord):
			quote, inWord = r, true
		case r == ' ' || r == '\t':
			if inWord {
				out = append(out, cur.String())
				cur.Reset()
				inWord = false
			}
		default:
			cur.WriteRune(r)
			inWord = true
		}
	}
	if inWord {
		out = append(out, cur.String())
	}
	return out
}

// Held is a command as a connection that leaves at once sends it: what it
// sets stays. A log-only watchpoint is kept, and a pausing one's pause is
// held when it fires; a pause (and the pause a step or a rewind leaves) is
// held until a resume or the game's hold timeout.
func Held(m protocol.Message) protocol.Message {
	switch m := m.(type) {
	case *protocol.Watch:
		m.Keep = m.Keep || m.Log
		m.Hold = !m.Log
	case *protocol.Pause:
		m.Hold = true
	case *protocol.Step:
		m.Hold = true
	case *protocol.Rewind:
		m.Hold = true
	}
	return m
}
