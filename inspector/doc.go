// Package inspector will hold the agent a game links to serve its ecs.World
// over TCP or a Unix socket without slowing the game loop (issue 5).
package inspector
