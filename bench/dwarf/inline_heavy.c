// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The program scripts/bench_dwarf.sh records with `perf record --call-graph
 * dwarf`: a fixed amount of work (no clock, no randomness but a seeded
 * generator) shaped like zstd's, whose DWARF reading issue 27 measured:
 * built -O2 -g without frame pointers, most of the hot code is small static
 * functions the compiler inlines two to five deep into a few real ones, the
 * stacks are deep (a recursive sort, a recursive tree walk), and some of the
 * time is in libc (qsort with a callback, memcpy, memcmp), whose frames are
 * unwound through its own CFI.
 *
 *   main -> run_round -> compress_buffer -> compress_block -> (inlined:
 *   find_match -> count_match -> read64 ...) / emit_sequence -> bits_put ...
 *   main -> run_round -> sort_symbols -> qsort -> cmp_freq (callback)
 *   main -> run_round -> tree_build (recursive) -> tree_sum (recursive)
 *   main -> run_round -> decompress_buffer -> copy_match (inlined) -> memcpy
 *
 *   inline_heavy [ROUNDS]   ROUNDS passes over 1 MiB (default 40)
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NOINLINE __attribute__((noinline))
#define INLINE static inline __attribute__((always_inline))

#define BUF_SIZE (1u << 20)
#define BLOCK_SIZE (1u << 14)
#define HASH_LOG 14
#define CHAIN_LOG 12
#define MIN_MATCH 4
#define MAX_CHAIN 16

static volatile uint64_t sink;

/* ---- input: text-like bytes from a seeded generator ---- */

INLINE uint64_t rng_next(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

INLINE uint8_t pick_byte(uint64_t *s, const uint8_t *hist, size_t pos)
{
	uint64_t r = rng_next(s);

	/* mostly repeats of earlier bytes, so that matches are found */
	if (pos > 64 && (r & 7) < 6)
		return hist[pos - 1 - (r >> 8) % 64];
	return (uint8_t)('a' + (r >> 16) % 26);
}

static NOINLINE void fill_input(uint8_t *buf, size_t n, uint64_t seed)
{
	uint64_t s = seed | 1;
	size_t i;

	for (i = 0; i < n; i++)
		buf[i] = pick_byte(&s, buf, i);
}

/* ---- the bit writer ---- */

struct bits {
	uint8_t *out;
	size_t pos, cap;
	uint64_t acc;
	unsigned nacc;
};

INLINE void bits_flush(struct bits *b)
{
	while (b->nacc >= 8 && b->pos < b->cap) {
		b->out[b->pos++] = (uint8_t)b->acc;
		b->acc >>= 8;
		b->nacc -= 8;
	}
}

INLINE void bits_put(struct bits *b, uint64_t v, unsigned n)
{
	b->acc |= (v & ((1ull << n) - 1)) << b->nacc;
	b->nacc += n;
	bits_flush(b);
}

INLINE unsigned highbit(uint32_t v)
{
	return 31u - (unsigned)__builtin_clz(v | 1);
}

INLINE void put_varlen(struct bits *b, uint32_t v)
{
	unsigned h = highbit(v + 1);

	bits_put(b, h, 5);
	bits_put(b, v + 1, h);
}

INLINE void emit_literal(struct bits *b, uint8_t c)
{
	bits_put(b, 0, 1);
	bits_put(b, c, 8);
}

INLINE void emit_sequence(struct bits *b, uint32_t len, uint32_t dist)
{
	bits_put(b, 1, 1);
	put_varlen(b, len - MIN_MATCH);
	put_varlen(b, dist);
}

/* ---- the match finder (hash chains, as zstd's lazy strategies) ---- */

struct matcher {
	uint32_t head[1u << HASH_LOG];
	uint32_t chain[1u << CHAIN_LOG];
	uint64_t stats[4];
};

INLINE uint32_t read32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

INLINE uint64_t read64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

INLINE uint32_t hash4(uint32_t v)
{
	return (v * 2654435761u) >> (32 - HASH_LOG);
}

INLINE uint32_t count_tail(const uint8_t *a, const uint8_t *b, const uint8_t *end)
{
	uint32_t n = 0;

	while (a + n < end && a[n] == b[n])
		n++;
	return n;
}

INLINE uint32_t count_match(const uint8_t *a, const uint8_t *b, const uint8_t *end)
{
	uint32_t n = 0;

	while (a + n + 8 <= end) {
		uint64_t x = read64(a + n) ^ read64(b + n);

		if (x)
			return n + (uint32_t)__builtin_ctzll(x) / 8;
		n += 8;
	}
	return n + count_tail(a + n, b + n, end);
}

INLINE void insert_pos(struct matcher *m, const uint8_t *base, uint32_t pos)
{
	uint32_t h = hash4(read32(base + pos));

	m->chain[pos & ((1u << CHAIN_LOG) - 1)] = m->head[h];
	m->head[h] = pos + 1;
}

INLINE uint32_t find_match(struct matcher *m, const uint8_t *base, uint32_t pos, const uint8_t *end,
			   uint32_t *dist)
{
	uint32_t cand = m->head[hash4(read32(base + pos))], best = 0, tries = 0;

	while (cand && tries++ < MAX_CHAIN) {
		uint32_t c = cand - 1, len;

		if (pos - c >= (1u << CHAIN_LOG))
			break;
		if (read32(base + c) == read32(base + pos)) {
			len = count_match(base + pos, base + c, end);
			if (len > best) {
				best = len;
				*dist = pos - c;
			}
		}
		cand = m->chain[c & ((1u << CHAIN_LOG) - 1)];
	}
	m->stats[best >= MIN_MATCH]++;
	return best;
}

/* a lazy look one byte ahead, as zstd's lazy strategy */
INLINE uint32_t best_match(struct matcher *m, const uint8_t *base, uint32_t pos, const uint8_t *end,
			   uint32_t *dist)
{
	uint32_t d1 = 0, d2 = 0, l1 = find_match(m, base, pos, end, &d1), l2 = 0;

	if (l1 >= MIN_MATCH && base + pos + 1 + 8 < end) {
		l2 = find_match(m, base, pos + 1, end, &d2);
		if (l2 > l1 + 1) {
			m->stats[2]++;
			*dist = d2;
			return 0; /* take a literal now, the longer match next */
		}
	}
	*dist = d1;
	return l1;
}

static NOINLINE size_t compress_block(struct matcher *m, const uint8_t *base, uint32_t start, uint32_t len,
				      struct bits *b)
{
	const uint8_t *end = base + start + len;
	uint32_t pos = start;

	while (base + pos + 8 < end) {
		uint32_t dist = 0, n = best_match(m, base, pos, end, &dist);

		if (n >= MIN_MATCH) {
			emit_sequence(b, n, dist);
			while (n--)
				insert_pos(m, base, pos++);
		} else {
			emit_literal(b, base[pos]);
			insert_pos(m, base, pos++);
		}
	}
	while (base + pos < end)
		emit_literal(b, base[pos++]);
	return b->pos;
}

static NOINLINE size_t compress_buffer(struct matcher *m, const uint8_t *in, size_t n, uint8_t *out, size_t cap)
{
	struct bits b = { out, 0, cap, 0, 0 };
	uint32_t off;

	memset(m->head, 0, sizeof(m->head));
	for (off = 0; off < n; off += BLOCK_SIZE)
		compress_block(m, in, off, (uint32_t)(n - off < BLOCK_SIZE ? n - off : BLOCK_SIZE), &b);
	bits_put(&b, 0, 7);
	return b.pos;
}

/* ---- the reader ---- */

struct rbits {
	const uint8_t *in;
	size_t pos, n;
	uint64_t acc;
	unsigned nacc;
};

INLINE void rbits_fill(struct rbits *r)
{
	while (r->nacc <= 56 && r->pos < r->n) {
		r->acc |= (uint64_t)r->in[r->pos++] << r->nacc;
		r->nacc += 8;
	}
}

INLINE uint64_t rbits_get(struct rbits *r, unsigned n)
{
	uint64_t v;

	rbits_fill(r);
	v = r->acc & ((1ull << n) - 1);
	r->acc >>= n;
	r->nacc -= n < r->nacc ? n : r->nacc;
	return v;
}

INLINE uint32_t get_varlen(struct rbits *r)
{
	unsigned h = (unsigned)rbits_get(r, 5);

	return (uint32_t)(rbits_get(r, h) | (1ull << h)) - 1;
}

INLINE void copy_match(uint8_t *out, size_t o, uint32_t len, uint32_t dist)
{
	if (dist >= len) {
		memcpy(out + o, out + o - dist, len);
		return;
	}
	while (len--) {
		out[o] = out[o - dist];
		o++;
	}
}

static NOINLINE size_t decompress_buffer(const uint8_t *in, size_t n, uint8_t *out, size_t want)
{
	struct rbits r = { in, 0, n, 0, 0 };
	size_t o = 0;

	while (o < want) {
		if (!rbits_get(&r, 1)) {
			out[o++] = (uint8_t)rbits_get(&r, 8);
			continue;
		}
		uint32_t len = get_varlen(&r) + MIN_MATCH, dist = get_varlen(&r);

		if (!dist || dist > o || len > want - o)
			break;
		copy_match(out, o, len, dist);
		o += len;
	}
	return o;
}

/* ---- symbol statistics: qsort with a callback into this program ---- */

struct freq {
	uint32_t sym, count;
};

static int cmp_freq(const void *a, const void *b)
{
	const struct freq *x = a, *y = b;

	if (x->count != y->count)
		return x->count < y->count ? 1 : -1;
	return x->sym < y->sym ? -1 : x->sym > y->sym;
}

static NOINLINE uint64_t sort_symbols(const uint8_t *buf, size_t n)
{
	static struct freq f[65536];
	uint64_t sum = 0;
	size_t i;

	for (i = 0; i < 65536; i++)
		f[i] = (struct freq){ (uint32_t)i, 0 };
	for (i = 0; i + 1 < n; i++)
		f[buf[i] | buf[i + 1] << 8].count++;
	qsort(f, 65536, sizeof(f[0]), cmp_freq);
	for (i = 0; i < 16; i++)
		sum += f[i].sym;
	return sum;
}

/* ---- a recursive tree: deep stacks of real frames ---- */

struct node {
	struct node *l, *r;
	uint64_t key;
};

INLINE uint64_t mix_key(uint64_t k)
{
	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdull;
	k ^= k >> 33;
	return k;
}

static NOINLINE struct node *tree_build(struct node *pool, size_t *used, unsigned depth, uint64_t key)
{
	struct node *t = &pool[(*used)++];

	t->key = mix_key(key);
	t->l = depth ? tree_build(pool, used, depth - 1, key * 2) : NULL;
	t->r = depth ? tree_build(pool, used, depth - 1, key * 2 + 1) : NULL;
	return t;
}

static NOINLINE uint64_t tree_sum(const struct node *t, unsigned depth)
{
	uint64_t s;

	if (!t)
		return 0;
	s = mix_key(t->key + depth);
	for (int i = 0; i < 8; i++)
		s = mix_key(s + (uint64_t)i);
	return s + tree_sum(t->l, depth + 1) + tree_sum(t->r, depth + 1);
}

/* ---- a round of everything ---- */

static NOINLINE uint64_t run_round(struct matcher *m, uint8_t *in, uint8_t *out, uint8_t *back, struct node *pool,
				   unsigned round)
{
	size_t used = 0, clen, dlen;
	uint64_t h;

	fill_input(in, BUF_SIZE, 0x9e3779b97f4a7c15ull + round);
	clen = compress_buffer(m, in, BUF_SIZE, out, 2 * BUF_SIZE);
	dlen = decompress_buffer(out, clen, back, BUF_SIZE);
	if (dlen != BUF_SIZE || memcmp(in, back, BUF_SIZE)) {
		fprintf(stderr, "inline_heavy: round %u: the data did not come back\n", round);
		exit(1);
	}
	h = sort_symbols(in, BUF_SIZE);
	h += tree_sum(tree_build(pool, &used, 15, round), 0);
	return h + clen;
}

int main(int argc, char **argv)
{
	unsigned rounds = argc > 1 ? (unsigned)strtoul(argv[1], NULL, 0) : 40, i;
	struct matcher *m = calloc(1, sizeof(*m));
	uint8_t *in = malloc(BUF_SIZE), *out = malloc(2 * BUF_SIZE), *back = malloc(BUF_SIZE);
	struct node *pool = malloc(sizeof(*pool) << 16);
	uint64_t h = 0;

	if (!m || !in || !out || !back || !pool) {
		fprintf(stderr, "inline_heavy: out of memory\n");
		return 1;
	}
	for (i = 0; i < rounds; i++)
		h += run_round(m, in, out, back, pool, i);
	sink = h;
	printf("inline_heavy: %u rounds, %llu, %llu matches, %llu lazy\n", rounds, (unsigned long long)h,
	       (unsigned long long)m->stats[1], (unsigned long long)m->stats[2]);
	free(pool);
	free(back);
	free(out);
	free(in);
	free(m);
	return 0;
}
