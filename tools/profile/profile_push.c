// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Pushing profiles to a backend over HTTP (libcurl), from a thread of its
 * own: the sampling loop only copies a profile into a bounded queue, so a
 * slow or dead backend never delays an interval. Past the bound the oldest
 * profile waiting is dropped; a failed request (no connection, a timeout,
 * HTTP 5xx, 408 or 429) is tried again with exponential backoff up to
 * --push-retries times, then dropped; another 4xx is dropped at once (the
 * backend refused it: sending it again would not help). Every drop is
 * counted and said.
 *
 * The two APIs, as documented:
 * - Grafana Pyroscope: POST URL/ingest?name=APP{host=H}&from=S&until=S
 *   &format=pprof&sampleRate=HZ&spyName=perfring, the body the pprof file
 *   (Content-Type: application/octet-stream).
 * - Parca: the gRPC-gateway of ProfileStoreService.WriteRaw, POST
 *   URL/profiles/writeraw, a JSON WriteRawRequest: series of a label set
 *   (__name__ APP, host H) and raw samples whose rawProfile is the pprof
 *   file in base64 (protobuf's JSON mapping of bytes).
 */
#include <curl/curl.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "profile/profile_tool.h"
#include "shared/tool.h"

#define CMD PROFILE_CMD
#define BACKOFF_FIRST_NS 500000000ull
#define BACKOFF_MAX_NS (30 * 1000000000ull)

enum backend { PYROSCOPE, PARCA };

struct item {
	enum backend to;
	unsigned char *data;
	size_t len;
	uint64_t from_ns, until_ns;
	unsigned tries;
	uint64_t next_ns; /* not before (CLOCK_MONOTONIC) */
};

struct profile_push {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	pthread_t thread;
	bool started, stopping;
	uint64_t deadline_ns; /* when stopping: give up past it */
	struct item *q;       /* a FIFO of cap items */
	size_t cap, head, n;
	const char *url[2];
	char host[256], app[256];
	uint64_t freq;
	unsigned retries;
	long timeout_ms;
	struct profile_push_stats st;
	CURL *curl;
};

static void item_free(struct item *it)
{
	free(it->data);
	it->data = NULL;
}

/* ---- the requests ---- */

static char *base64(const unsigned char *in, size_t len)
{
	static const char tab[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	char *out = malloc((len + 2) / 3 * 4 + 1), *o = out;
	size_t i;

	if (!out)
		return NULL;
	for (i = 0; i + 2 < len; i += 3) {
		uint32_t v = (uint32_t)in[i] << 16 | (uint32_t)in[i + 1] << 8 | in[i + 2];

		*o++ = tab[v >> 18];
		*o++ = tab[(v >> 12) & 63];
		*o++ = tab[(v >> 6) & 63];
		*o++ = tab[v & 63];
	}
	if (i < len) {
		uint32_t v = (uint32_t)in[i] << 16 | (i + 1 < len ? (uint32_t)in[i + 1] << 8 : 0);

		*o++ = tab[v >> 18];
		*o++ = tab[(v >> 12) & 63];
		*o++ = i + 1 < len ? tab[(v >> 6) & 63] : '=';
		*o++ = '=';
	}
	*o = '\0';
	return out;
}

/* A JSON string's characters: the host and application names are checked
 * not to need escapes but a host name is the system's. */
static void json_str(FILE *f, const char *s)
{
	for (; *s; s++)
		if (*s == '"' || *s == '\\' || (unsigned char)*s < 0x20)
			fprintf(f, "\\u%04x", (unsigned char)*s);
		else
			fputc(*s, f);
}

static size_t discard(char *p, size_t size, size_t n, void *ctx)
{
	(void)p;
	(void)ctx;
	return size * n;
}

/* Send it: 0 on success, 1 when worth trying again, -1 when refused. *why says what happened. */
static int send_one(struct profile_push *p, const struct item *it, char *why, size_t whylen)
{
	struct curl_slist *hdr = NULL;
	char *url = NULL, *body = NULL, *name = NULL, *b64 = NULL;
	size_t blen = 0, ulen = 0;
	long code = 0;
	CURLcode rc;
	FILE *f;
	int ret = 1;

	curl_easy_reset(p->curl);
	if (it->to == PYROSCOPE) {
		char label[600];

		snprintf(label, sizeof(label), "%s{host=%s}", p->app, p->host);
		name = curl_easy_escape(p->curl, label, 0);
		f = open_memstream(&url, &ulen);
		if (!f || !name)
			goto nomem;
		fprintf(f, "%s/ingest?name=%s&from=%llu&until=%llu&format=pprof&sampleRate=%llu&spyName=perfring",
			p->url[PYROSCOPE], name, (unsigned long long)(it->from_ns / 1000000000ull),
			(unsigned long long)((it->until_ns + 999999999ull) / 1000000000ull), (unsigned long long)p->freq);
		fclose(f);
		hdr = curl_slist_append(hdr, "Content-Type: application/octet-stream");
		curl_easy_setopt(p->curl, CURLOPT_POSTFIELDS, it->data);
		curl_easy_setopt(p->curl, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)it->len);
	} else {
		b64 = base64(it->data, it->len);
		f = open_memstream(&body, &blen);
		if (!f || !b64)
			goto nomem;
		fputs("{\"series\":[{\"labels\":{\"labels\":[{\"name\":\"__name__\",\"value\":\"", f);
		json_str(f, p->app);
		fputs("\"},{\"name\":\"host\",\"value\":\"", f);
		json_str(f, p->host);
		fprintf(f, "\"}]},\"samples\":[{\"rawProfile\":\"%s\"}]}],\"normalized\":false}", b64);
		fclose(f);
		f = open_memstream(&url, &ulen);
		if (!f)
			goto nomem;
		fprintf(f, "%s/profiles/writeraw", p->url[PARCA]);
		fclose(f);
		hdr = curl_slist_append(hdr, "Content-Type: application/json");
		curl_easy_setopt(p->curl, CURLOPT_POSTFIELDS, body);
		curl_easy_setopt(p->curl, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)blen);
	}
	curl_easy_setopt(p->curl, CURLOPT_URL, url);
	curl_easy_setopt(p->curl, CURLOPT_HTTPHEADER, hdr);
	curl_easy_setopt(p->curl, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(p->curl, CURLOPT_TIMEOUT_MS, p->timeout_ms);
	curl_easy_setopt(p->curl, CURLOPT_CONNECTTIMEOUT_MS, p->timeout_ms);
	curl_easy_setopt(p->curl, CURLOPT_WRITEFUNCTION, discard);
	curl_easy_setopt(p->curl, CURLOPT_USERAGENT, "perfring-profile");
	rc = curl_easy_perform(p->curl);
	if (rc != CURLE_OK) {
		snprintf(why, whylen, "%s", curl_easy_strerror(rc));
	} else {
		curl_easy_getinfo(p->curl, CURLINFO_RESPONSE_CODE, &code);
		snprintf(why, whylen, "HTTP %ld", code);
		if (code >= 200 && code < 300)
			ret = 0;
		else if (code >= 400 && code < 500 && code != 408 && code != 429)
			ret = -1;
	}
	goto out;
nomem:
	snprintf(why, whylen, "no memory");
out:
	curl_slist_free_all(hdr);
	curl_free(name);
	free(url);
	free(body);
	free(b64);
	return ret;
}

/* ---- the queue ---- */

static struct item *at(struct profile_push *p, size_t i)
{
	return &p->q[(p->head + i) % p->cap];
}

static void pop_front(struct profile_push *p)
{
	item_free(at(p, 0));
	p->head = (p->head + 1) % p->cap;
	p->n--;
}

static void *worker(void *arg)
{
	struct profile_push *p = arg;
	struct timespec ts;
	char why[256];
	int r;

	pthread_mutex_lock(&p->mu);
	for (;;) {
		uint64_t now = tool_now_ns();
		struct item it;

		if (p->stopping && (!p->n || now >= p->deadline_ns))
			break;
		if (!p->n || at(p, 0)->next_ns > now) {
			uint64_t until = p->n ? at(p, 0)->next_ns : now + 1000000000ull;

			if (p->stopping && until > p->deadline_ns)
				until = p->deadline_ns;

			clock_gettime(CLOCK_MONOTONIC, &ts);
			ts.tv_sec += (time_t)((until - now) / 1000000000ull);
			ts.tv_nsec += (long)((until - now) % 1000000000ull);
			if (ts.tv_nsec >= 1000000000L) {
				ts.tv_sec++;
				ts.tv_nsec -= 1000000000L;
			}
			pthread_cond_timedwait(&p->cv, &p->mu, &ts);
			continue;
		}
		/* the front item is sent outside the lock; it stays queued (owned here) meanwhile:
		 * a full queue drops from the front only what is not in flight */
		it = *at(p, 0);
		at(p, 0)->data = NULL;
		pop_front(p);
		pthread_mutex_unlock(&p->mu);
		r = send_one(p, &it, why, sizeof(why));
		pthread_mutex_lock(&p->mu);
		if (r == 0) {
			p->st.sent++;
			item_free(&it);
			continue;
		}
		if (r < 0 || it.tries >= p->retries) {
			if (r < 0)
				p->st.rejected++;
			else
				p->st.dropped_failed++;
			fprintf(stderr, "%s %s: push to %s: %s after %u tr%s: profile dropped\n", TOOL_NAME, CMD,
				p->url[it.to], why, it.tries + 1, it.tries ? "ies" : "y");
			item_free(&it);
			continue;
		}
		/* try again later, at the front (the oldest goes first) unless full */
		p->st.retries++;
		it.next_ns = tool_now_ns() + (BACKOFF_FIRST_NS << (it.tries < 6 ? it.tries : 6));
		if (it.next_ns - tool_now_ns() > BACKOFF_MAX_NS)
			it.next_ns = tool_now_ns() + BACKOFF_MAX_NS;
		it.tries++;
		if (p->n == p->cap) {
			p->st.dropped_full++;
			item_free(&it);
			continue;
		}
		p->head = (p->head + p->cap - 1) % p->cap;
		*at(p, 0) = it;
		p->n++;
	}
	while (p->n) {
		p->st.dropped_failed++;
		pop_front(p);
	}
	pthread_mutex_unlock(&p->mu);
	return NULL;
}

struct profile_push *profile_push_new(const struct profile_opts *o, const char *host)
{
	struct profile_push *p = calloc(1, sizeof(*p));
	pthread_condattr_t ca;

	if (!p)
		return NULL;
	p->url[PYROSCOPE] = o->pyroscope;
	p->url[PARCA] = o->parca;
	p->cap = (size_t)o->push_queue * ((o->pyroscope != NULL) + (o->parca != NULL));
	p->retries = o->push_retries;
	p->timeout_ms = (long)(o->push_timeout * 1000);
	p->freq = o->session.freq;
	snprintf(p->host, sizeof(p->host), "%s", host);
	snprintf(p->app, sizeof(p->app), "%s", o->app);
	p->q = calloc(p->cap ? p->cap : 1, sizeof(*p->q));
	if (!p->q || curl_global_init(CURL_GLOBAL_DEFAULT) || !(p->curl = curl_easy_init())) {
		free(p->q);
		free(p);
		return NULL;
	}
	pthread_mutex_init(&p->mu, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&p->cv, &ca);
	pthread_condattr_destroy(&ca);
	if (pthread_create(&p->thread, NULL, worker, p)) {
		profile_push_free(p, 0);
		return NULL;
	}
	p->started = true;
	return p;
}

void profile_push_add(struct profile_push *p, const void *pprof, size_t len, uint64_t from_ns, uint64_t until_ns)
{
	int to;

	pthread_mutex_lock(&p->mu);
	for (to = PYROSCOPE; to <= PARCA; to++) {
		struct item it = { (enum backend)to, NULL, len, from_ns, until_ns, 0, 0 };

		if (!p->url[to])
			continue;
		if (p->n == p->cap) {
			p->st.dropped_full++;
			fprintf(stderr, "%s %s: push queue full (%zu profiles): the oldest dropped\n", TOOL_NAME, CMD,
				p->cap);
			pop_front(p);
		}
		if (!(it.data = malloc(len ? len : 1))) {
			p->st.dropped_full++;
			continue;
		}
		memcpy(it.data, pprof, len);
		*at(p, p->n) = it;
		p->n++;
	}
	pthread_cond_signal(&p->cv);
	pthread_mutex_unlock(&p->mu);
}

void profile_push_stats(struct profile_push *p, struct profile_push_stats *st)
{
	pthread_mutex_lock(&p->mu);
	*st = p->st;
	pthread_mutex_unlock(&p->mu);
}

void profile_push_free(struct profile_push *p, double wait_s)
{
	if (!p)
		return;
	if (p->started) {
		pthread_mutex_lock(&p->mu);
		p->stopping = true;
		p->deadline_ns = tool_now_ns() + (uint64_t)(wait_s * 1e9);
		pthread_cond_signal(&p->cv);
		pthread_mutex_unlock(&p->mu);
		pthread_join(p->thread, NULL);
	}
	while (p->n)
		pop_front(p);
	fprintf(stderr, "%s %s: push: %llu sent, %llu retried, %llu dropped (%llu queue full, %llu failed, %llu refused)\n",
		TOOL_NAME, CMD, (unsigned long long)p->st.sent, (unsigned long long)p->st.retries,
		(unsigned long long)(p->st.dropped_full + p->st.dropped_failed + p->st.rejected),
		(unsigned long long)p->st.dropped_full, (unsigned long long)p->st.dropped_failed,
		(unsigned long long)p->st.rejected);
	curl_easy_cleanup(p->curl);
	curl_global_cleanup();
	pthread_mutex_destroy(&p->mu);
	pthread_cond_destroy(&p->cv);
	free(p->q);
	free(p);
}
