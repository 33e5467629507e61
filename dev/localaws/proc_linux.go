package localaws

import "syscall"

// sysProcAttr puts an engine in its own process group and, should this process die without
// stopping it (SIGKILL, a crash), has the kernel kill it too, so no java is left behind.
// Pdeathsig fires when the creating OS thread exits; the Go runtime keeps threads alive unless a
// goroutine exits while locked to one, which this package never does.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}

func killGroup(pid int, sig syscall.Signal) error {
	return syscall.Kill(-pid, sig)
}
