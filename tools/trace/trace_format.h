/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Tracepoints for `perfring trace`: finding them in tracefs (libtracefs,
 * which also mounts tracefs when it is not mounted), parsing their format
 * (libtraceevent), and turning each field into a kind the decoder knows
 * and the BPF program's configuration (struct trace_cfg of tools/trace/trace.h).
 */
#ifndef PERFRING_TRACE_FORMAT_H
#define PERFRING_TRACE_FORMAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <linux/types.h>

#include "trace.h" /* beside it: the BPF program's side, tools/trace/trace.bpf.c */

enum trace_field_kind {
	TF_INT,          /* a signed or unsigned integer of 1, 2, 4 or 8 bytes */
	TF_CHARS,        /* char name[N]: a NUL-padded string in the record */
	TF_ARRAY,        /* type name[N]: N integers */
	TF_DYN_STRING,   /* __data_loc / __rel_loc char[]: a string after the fixed part */
	TF_DYN_ARRAY,    /* __data_loc / __rel_loc type[]: integers after the fixed part */
	TF_POINTER,      /* an address, shown in hex */
	TF_USER_STRING,  /* a syscall's const char * argument: the string read by the program */
	TF_USER_STRINGS, /* a syscall's const char *const * argument (argv): the strings */
};

struct trace_field {
	const char *name;   /* owned by the format */
	const char *type;   /* as the format file spells it, e.g. "__data_loc char[]" */
	enum trace_field_kind kind;
	uint16_t offset, size; /* in the record; for dynamic fields, of the locator */
	uint8_t elem_size;  /* TF_INT: its width; TF_ARRAY / TF_DYN_ARRAY: an element's */
	bool is_signed;
	bool relative;      /* __rel_loc rather than __data_loc */
	uint8_t ustr;       /* TF_USER_STRING(S): index in the program's user strings */
};

struct trace_tp {
	char *system, *name; /* "syscalls", "sys_enter_openat" */
	char *full;          /* "syscalls:sys_enter_openat" */
	uint32_t id;         /* the tracepoint's id (common_type) */
	struct trace_field *fields; /* the fields after the common ones */
	size_t nfields;
	struct trace_cfg cfg; /* what the BPF program copies */
};

struct trace_formats;

/* An empty set; NULL on allocation failure. */
struct trace_formats *trace_formats_new(void);
void trace_formats_free(struct trace_formats *tf);

/* The tracefs directory, mounted if it was not ("/sys/kernel/tracing");
 * NULL with a reason in err when there is none. *mounted (may be NULL)
 * says whether this call mounted it. */
const char *trace_formats_tracefs(struct trace_formats *tf, bool *mounted, char *err, size_t errlen);

/*
 * Add the tracepoints SPEC names: "system:name" or "system/name", where
 * name (and system) may be a glob ("syscalls:sys_enter_open*"). Tracepoints
 * already added are not added twice. Returns the number added (a glob that
 * matches nothing is an error), or -1 with a one-line reason in err.
 */
int trace_formats_add(struct trace_formats *tf, const char *spec, char *err, size_t errlen);

/* Print the tracepoints SPEC matches (every one when NULL) on out, one
 * SYSTEM:EVENT a line, in tracefs's order. 0, or -1 with the reason in err
 * (no match is an error). */
int trace_formats_list(struct trace_formats *tf, const char *spec, FILE *out, char *err, size_t errlen);

/* Add one tracepoint from the text of its format file (as tracefs gives
 * it): for tests, and for formats saved elsewhere. 1 added, 0 already
 * there, -1 with a reason in err. */
int trace_formats_add_text(struct trace_formats *tf, const char *sys, const char *name, const char *text,
			   size_t len, char *err, size_t errlen);

/* How many tracepoints are in the set, and the i-th. */
size_t trace_formats_count(const struct trace_formats *tf);
const struct trace_tp *trace_formats_get(const struct trace_formats *tf, size_t i);

/* The tracepoint with this id, or NULL: the decoder's lookup for a sample. */
const struct trace_tp *trace_formats_find(const struct trace_formats *tf, uint32_t id);

/* The name of a field kind, for messages and tests ("int", "dyn-string", ...). */
const char *trace_field_kind_name(enum trace_field_kind kind);

#endif
