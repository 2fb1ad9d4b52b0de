// SPDX-License-Identifier: MIT OR GPL-2.0-only
/*
 * What a run ran on: CPU model and count, load average, the commit the
 * benchmark was built from (git describe at build time, "unknown" outside
 * a git checkout) and the date.  Printed in the header and the plot's
 * caption, because a ratio means little without them.
 */
#define _DEFAULT_SOURCE
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench_commit.h"
#include "results.h"

void run_info_get(struct run_info *ri)
{
	FILE *f = fopen("/proc/cpuinfo", "r");
	char line[256];
	time_t now = time(NULL);
	struct tm tm;

	memset(ri, 0, sizeof(*ri));
	snprintf(ri->cpu, sizeof(ri->cpu), "unknown CPU");
	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, "model name", 10)) {
			char *p = strchr(line, ':');

			if (p) {
				snprintf(ri->cpu, sizeof(ri->cpu), "%s", p + 2);
				ri->cpu[strcspn(ri->cpu, "\n")] = '\0';
			}
			break;
		}
	if (f)
		fclose(f);
	ri->ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	if (getloadavg(ri->load, 3) < 0)
		ri->load[0] = ri->load[1] = ri->load[2] = -1;
	snprintf(ri->commit, sizeof(ri->commit), "%s",
		 BENCH_COMMIT[0] ? BENCH_COMMIT : "unknown");
	localtime_r(&now, &tm);
	strftime(ri->date, sizeof(ri->date), "%Y-%m-%d %H:%M %Z", &tm);
}
