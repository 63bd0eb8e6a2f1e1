#define _GNU_SOURCE
#include "CLinux.h"
#include <fcntl.h>

int offc_insert_range(int fd, off_t offset, off_t length) {
    return fallocate(fd, FALLOC_FL_INSERT_RANGE, offset, length);
}
