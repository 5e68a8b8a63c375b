//go:build !unix

package load

import "os/exec"

// inProcessGroup leaves cmd as it is where there are no process groups: cancelling it kills
// the program itself.
func inProcessGroup(cmd *exec.Cmd) {}
