//go:build unix

package load

import (
	"os/exec"
	"syscall"
)

// inProcessGroup starts cmd in a process group of its own and makes cancelling it kill the
// whole group, so no helper a converter started lives on after a timeout.
func inProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
}
