package la

import "syscall"

// osYield gives the processor to another runnable thread, if any
// (sched_yield): a waiting team member on a machine with more runnable
// threads than processors lets its partner run instead of spinning.
func osYield() { syscall.RawSyscall(syscall.SYS_SCHED_YIELD, 0, 0, 0) }
