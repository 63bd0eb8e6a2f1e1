#ifndef OFFCONVERT_CLINUX_H
#define OFFCONVERT_CLINUX_H
#include <sys/types.h>

// Linux calls that Swift's Glibc module does not import: glibc declares them only under
// _GNU_SOURCE, which the module is not built with. Each wrapper is defined in shim.c, which is.

/// fallocate(fd, FALLOC_FL_INSERT_RANGE, offset, length): inserts `length` bytes (a multiple of
/// the file system's block size) at `offset`, moving everything after it up without copying it.
/// Returns 0, or -1 with errno (EOPNOTSUPP where the file system cannot, as on tmpfs and btrfs).
int offc_insert_range(int fd, off_t offset, off_t length);

/// pthread_setname_np(pthread_self(), name): names the calling thread for top, perf and
/// debuggers (and the threads it starts inherit the name). `name` is cut to the 15 bytes Linux
/// keeps. Returns 0, or an error number.
int offc_name_this_thread(const char *name);

#endif
