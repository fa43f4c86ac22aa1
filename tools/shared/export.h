/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The exports of `perfring report` and `perfring script` (--folded FILE,
 * --pprof FILE, --speedscope FILE, --firefox FILE): each sample's named
 * frames become a perfring_stack added to one profile (the library's
 * perfring/profile.h), written at the end in each format asked for.
 */
#ifndef PERFRING_TOOL_EXPORT_H
#define PERFRING_TOOL_EXPORT_H

#include <getopt.h>
#include <stdbool.h>

#include "shared/samples.h"

struct export_opts {
	const char *folded;     /* FILE ("-": standard output) */
	const char *pprof;
	const char *speedscope;
	const char *firefox;
	bool by_period;         /* folded: counts are periods, not samples */
	bool inline_frames;     /* --inline: DWARF inlined functions as frames of their own */
	bool modifiers;         /* --by-period given (it needs an export) */
	bool inline_given;      /* --inline or --no-inline given */
	bool listing_inlines;   /* set by the command: its own output takes --inline too
				 * (script's listing), so that it needs no export */
};

/* The export options, shared by report and script so that both take the same
 * names with the same meaning: EXPORT_LONGOPTS goes into a command's
 * getopt_long() table, export_option() takes what getopt_long() returned
 * for them, EXPORT_HELP is their part of the command's --help (columns of
 * report's help: the option in 26, the text after). */
enum {
	EXPORT_OPT_FOLDED = 0x400, /* above any short option and the commands' own long ones */
	EXPORT_OPT_PPROF,
	EXPORT_OPT_SPEEDSCOPE,
	EXPORT_OPT_FIREFOX,
	EXPORT_OPT_BY_PERIOD,
	EXPORT_OPT_INLINE,
	EXPORT_OPT_NO_INLINE,
};

#define EXPORT_LONGOPTS                                                   \
	{ "folded", required_argument, NULL, EXPORT_OPT_FOLDED },         \
	{ "pprof", required_argument, NULL, EXPORT_OPT_PPROF },           \
	{ "speedscope", required_argument, NULL, EXPORT_OPT_SPEEDSCOPE }, \
	{ "firefox", required_argument, NULL, EXPORT_OPT_FIREFOX },       \
	{ "by-period", no_argument, NULL, EXPORT_OPT_BY_PERIOD },         \
	{ "inline", no_argument, NULL, EXPORT_OPT_INLINE },               \
	{ "no-inline", no_argument, NULL, EXPORT_OPT_NO_INLINE }

#define EXPORT_HELP                                                                                \
	"      --folded FILE       write folded stacks (comm;root;...;leaf COUNT; '-': stdout)\n"  \
	"      --pprof FILE        write a gzip'd pprof profile (go tool pprof, Pyroscope, ...)\n" \
	"      --speedscope FILE   write a speedscope JSON profile\n"                              \
	"      --firefox FILE      write a Firefox Profiler profile (processed format)\n"          \
	"      --by-period         folded counts are periods rather than samples\n"                \
	"      --inline            the exports show DWARF inlined functions as frames\n"           \
	"      --no-inline         frames named by their symbol only (the default)\n"

/* c is what getopt_long() returned: true when it is an export option (o updated). */
bool export_option(struct export_opts *o, int c, const char *arg);

/* The command line's checks once parsed: an export to '-' and the command's
 * --json cannot share standard output, nor two exports. 0, or -1 with the
 * usage error printed; --by-period needs an export, and so do --inline and
 * --no-inline unless o->listing_inlines. */
int export_check(const char *cmd, const struct export_opts *o, bool json);

/* Any export asked for. */
bool export_wanted(const struct export_opts *o);

/* Whether an export goes to standard output ('-'): it then owns it, the
 * command prints nothing else there. */
bool export_to_stdout(const struct export_opts *o);

struct export;

/* NULL with the error printed (a file that cannot be created, out of memory). */
struct export *export_new(const char *cmd, const struct export_opts *o);
/* Add one sample (events named from r). 0, or -errno (printed). */
int export_add(struct export *x, const struct samples_reader *r, const struct named_sample *a);
/* Write the files, with what r's file says of the recording (its clock's
 * wall-clock reference, each event's period or frequency); returns the tool's
 * exit status. Frees x. */
int export_finish(struct export *x, const struct samples_reader *r, const char *title);
void export_free(struct export *x);

#endif
