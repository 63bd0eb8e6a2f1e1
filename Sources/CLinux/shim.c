#define _GNU_SOURCE
#include "CLinux.h"
#include <fcntl.h>
#include <pthread.h>
#include <string.h>

int offc_insert_range(int fd, off_t offset, off_t length) {
    return fallocate(fd, FALLOC_FL_INSERT_RANGE, offset, length);
}

int offc_name_this_thread(const char *name) {
    // Linux keeps 15 bytes and a NUL; pthread_setname_np refuses a longer name (ERANGE).
    char cut[16];
    strncpy(cut, name, sizeof cut - 1);
    cut[sizeof cut - 1] = '\0';
    return pthread_setname_np(pthread_self(), cut);
}
