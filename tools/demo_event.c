// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The demo's events: see demo_event.h. */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>

#include "demo_event.h"

const char *demo_event_type_name(uint32_t type)
{
	switch (type) {
	case DEMO_EXEC:
		return "EXEC";
	case DEMO_EXIT:
		return "EXIT";
	case DEMO_OPEN:
		return "OPEN";
	default:
		return "?";
	}
}

static void demo_open_flags(int flags, char *buf, size_t len)
{
	static const struct {
		int flag;
		const char *name;
	} names[] = {
		{ O_CREAT, "CREAT" }, { O_TRUNC, "TRUNC" }, { O_APPEND, "APPEND" },
		{ O_DIRECTORY, "DIRECTORY" }, { O_NONBLOCK, "NONBLOCK" }, { O_CLOEXEC, "CLOEXEC" },
	};
	const char *acc = (flags & O_ACCMODE) == O_WRONLY ? "WRONLY" : (flags & O_ACCMODE) == O_RDWR ? "RDWR"
												    : "RDONLY";
	size_t off, i;

	off = (size_t)snprintf(buf, len, "%s", acc);
	for (i = 0; i < sizeof(names) / sizeof(names[0]) && off < len; i++)
		if (flags & names[i].flag)
			off += (size_t)snprintf(buf + off, len - off, "|%s", names[i].name);
}

void demo_event_detail(const struct demo_event *e, char *buf, size_t len)
{
	char flags[96];

	switch (e->type) {
	case DEMO_EXEC:
		snprintf(buf, len, "%s", e->detail);
		break;
	case DEMO_OPEN:
		demo_open_flags(e->value, flags, sizeof(flags));
		snprintf(buf, len, "%s (%s)", e->detail, flags);
		break;
	case DEMO_EXIT:
		if (WIFSIGNALED(e->value))
			snprintf(buf, len, "killed by signal %d", WTERMSIG(e->value));
		else
			snprintf(buf, len, "exit %d", WEXITSTATUS(e->value));
		break;
	default:
		snprintf(buf, len, "unknown event type %u", e->type);
	}
}

bool demo_event_decode(const struct perfring_event *ev, struct demo_event *e)
{
	size_t n1, n2 = 0, detail;

	memset(e, 0, sizeof(*e));
	n1 = ev->size < sizeof(*e) ? ev->size : sizeof(*e);
	memcpy(e, ev->data, n1);
	if (ev->data2 && n1 < sizeof(*e)) {
		n2 = ev->size2 < sizeof(*e) - n1 ? ev->size2 : sizeof(*e) - n1;
		memcpy((char *)e + n1, ev->data2, n2);
	}
	if (n1 + n2 < DEMO_EVENT_HDR_LEN || e->detail_len > DEMO_DETAIL_LEN)
		return false;
	/* Never trust the producer's string to be terminated. */
	detail = e->detail_len ? e->detail_len - 1 : 0;
	if (detail > n1 + n2 - DEMO_EVENT_HDR_LEN)
		detail = n1 + n2 - DEMO_EVENT_HDR_LEN;
	e->detail[detail < DEMO_DETAIL_LEN ? detail : DEMO_DETAIL_LEN - 1] = '\0';
	e->comm[DEMO_COMM_LEN - 1] = '\0';
	return true;
}
