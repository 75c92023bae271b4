#define _GNU_SOURCE
#include "CTimestampCounter.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int tr_timestamp_counter_is_invariant(void) {
#if defined(__x86_64__)
    FILE *cpuinfo = fopen("/proc/cpuinfo", "re");
    if (cpuinfo == NULL) return 0;
    char *line = NULL;
    size_t capacity = 0;
    int invariant = 0;
    while (getline(&line, &capacity, cpuinfo) > 0) {
        if (strncmp(line, "flags", 5) != 0) continue;
        invariant = strstr(line, " constant_tsc") != NULL && strstr(line, " nonstop_tsc") != NULL;
        break;
    }
    free(line);
    fclose(cpuinfo);
    return invariant;
#else
    return 0;
#endif
}
