// Package watch is the agent's watchpoints: what a client asks to be told
// of (a value becoming true, a spawn, a despawn, a component added or
// removed, a system or frame running long, a dead handle used), checked
// over what each system and frame changed within a budget of row tests a
// frame, and the hits that follow.
//
//	ws := watch.New(world, lw, schedule, frameNs, watch.Hooks{Broadcast: notify})
//	id, err := ws.Add(client, &protocol.Watch{Expr: "Energy.Value<-1"})
//	// Schedule.SystemEnd: ws.CheckSystem(run); each Sync: pause := ws.CheckFrame()
package watch
