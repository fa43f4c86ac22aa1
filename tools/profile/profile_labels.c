// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The labels a profile's samples carry besides pid, tid and comm (which the
 * library writes itself): the host, and the process's cgroup and container,
 * from /proc/PID/cgroup.
 *
 * A cgroup is read once per process and interval and cached in a small
 * table emptied at each interval's end: processes change cgroups rarely
 * but pids are reused, and a storm of short-lived processes must not grow
 * it past one interval's processes (it is also emptied when full).
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "profile/profile_tool.h"

#define LABELS_SLOTS 4096 /* a power of two */

struct cg_ent {
	uint32_t pid; /* + 1; 0: free */
	char *cgroup;
	char container[65];
};

struct profile_labels {
	char host[256];
	struct cg_ent *e;
	size_t used;
};

struct profile_labels *profile_labels_new(void)
{
	struct profile_labels *l = calloc(1, sizeof(*l));

	if (!l)
		return NULL;
	l->e = calloc(LABELS_SLOTS, sizeof(*l->e));
	if (!l->e) {
		free(l);
		return NULL;
	}
	if (gethostname(l->host, sizeof(l->host) - 1))
		snprintf(l->host, sizeof(l->host), "unknown");
	return l;
}

void profile_labels_tick(struct profile_labels *l)
{
	size_t i;

	for (i = 0; i < LABELS_SLOTS; i++) {
		free(l->e[i].cgroup);
		l->e[i] = (struct cg_ent){ 0 };
	}
	l->used = 0;
}

void profile_labels_free(struct profile_labels *l)
{
	if (!l)
		return;
	profile_labels_tick(l);
	free(l->e);
	free(l);
}

const char *profile_labels_host(const struct profile_labels *l)
{
	return l->host;
}

/* A container runtime names a container's cgroup after its 64-hex-digit id
 * (docker-ID.scope, /docker/ID, cri-containerd-ID.scope, crio-ID.scope):
 * the last such run of the path. */
static void container_of(const char *path, char *id)
{
	const char *p;
	size_t run = 0;

	id[0] = '\0';
	for (p = path;; p++) {
		if (*p && isxdigit((unsigned char)*p) && !isupper((unsigned char)*p)) {
			run++;
			continue;
		}
		if (run == 64) {
			memcpy(id, p - 64, 64);
			id[64] = '\0';
		}
		run = 0;
		if (!*p)
			break;
	}
}

/* The process's cgroup: the unified hierarchy's path ("0::PATH"), else (cgroup v1)
 * the first controller's path that is not the root. NULL when unreadable. */
static char *cgroup_read(uint32_t pid)
{
	char path[64], line[4096], *best = NULL, *c;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%u/cgroup", pid);
	f = fopen(path, "re");
	if (!f)
		return NULL;
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		c = strchr(line, ':');
		c = c ? strchr(c + 1, ':') : NULL;
		if (!c)
			continue;
		c++;
		if (!strncmp(line, "0::", 3) && strcmp(c, "/")) {
			free(best);
			best = strdup(c);
			break;
		}
		if (!best && strcmp(c, "/"))
			best = strdup(c);
	}
	fclose(f);
	return best ? best : strdup("/");
}

void profile_labels_cgroup(struct profile_labels *l, uint32_t pid, const char **cgroup, const char **container)
{
	struct cg_ent *e;
	size_t i;

	*cgroup = *container = "";
	if (!pid)
		return;
	for (i = (pid * 2654435761u) & (LABELS_SLOTS - 1); l->e[i].pid; i = (i + 1) & (LABELS_SLOTS - 1))
		if (l->e[i].pid == pid + 1)
			goto found;
	if (l->used * 4 >= LABELS_SLOTS * 3) {
		profile_labels_tick(l);
		i = (pid * 2654435761u) & (LABELS_SLOTS - 1);
	}
	e = &l->e[i];
	e->pid = pid + 1;
	e->cgroup = cgroup_read(pid);
	container_of(e->cgroup ? e->cgroup : "", e->container);
	l->used++;
found:
	e = &l->e[i];
	*cgroup = e->cgroup ? e->cgroup : "";
	*container = e->container;
}
