// Package client holds what ecsinspect's command line and terminal UI
// share as clients of an inspector agent: the game reached (Game: a
// socket, a broker instance, an instance of an open Fleet), connecting and
// the handshake (Connect), short-lived request connections (Dial,
// OneShot), a fleet on a broker over one connection (OpenFleet: its
// roster, sessions, fan-outs), recording a
// live game (StartRecording), the commands people type (ParseCommand, the
// same for `ecsinspect exec` and the UI's palette), reading typed values,
// and the text forms of sizes, durations and world diffs.
//
//	o, err := client.Dial("127.0.0.1:7777", "")
//	if err != nil { return err }
//	defer o.Close()
//	page, err := o.Query("Energy.Value<10", 20)
package client
