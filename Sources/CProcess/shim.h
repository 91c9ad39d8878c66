// prctl(2) is variadic, which Swift cannot call: these fixed-argument wrappers are the
// only way in. Linux only; keep's ProcessGuard is the one user.
#ifndef KEEP_CPROCESS_SHIM_H
#define KEEP_CPROCESS_SHIM_H

#include <sys/prctl.h>

/// prctl(PR_SET_DUMPABLE, 0): no core dump, no ptrace attach by the same user, and
/// /proc/self files owned by root. Answers 0, or -1 with errno set.
static inline int keep_prctl_set_not_dumpable(void) {
    return prctl(PR_SET_DUMPABLE, 0L, 0L, 0L, 0L);
}

/// prctl(PR_GET_DUMPABLE): 1 when the process may dump core, 0 when not, -1 on error.
static inline int keep_prctl_get_dumpable(void) {
    return prctl(PR_GET_DUMPABLE, 0L, 0L, 0L, 0L);
}

#endif
