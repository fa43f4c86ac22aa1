// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The oracle's C++ program (tests/cli/oracle.sh): templates, lambdas (std::sort
 * with one over a vector of a template type), exceptions thrown and caught,
 * virtual calls.  cxx [ROUNDS] */
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <stdexcept>
#include <vector>

namespace oracle {
template <typename T> struct Pair {
	T key;
	T value;
};

struct Shape {
	virtual ~Shape() = default;
	virtual uint64_t area(uint64_t i) const = 0;
};
struct Square : Shape {
	uint64_t area(uint64_t i) const override { return i * i + 1; }
};
struct Tri : Shape {
	uint64_t area(uint64_t i) const override { return i * (i + 1) / 2 + 3; }
};

template <typename T> __attribute__((noinline)) T sort_pairs(size_t n)
{
	std::vector<Pair<T>> v(n);
	for (size_t i = 0; i < n; i++)
		v[i] = Pair<T>{(T)((i * 2654435761u) % 100003), (T)i};
	std::sort(v.begin(), v.end(), [](const Pair<T> &a, const Pair<T> &b) { return a.key < b.key; });
	return v[n / 2].value;
}

__attribute__((noinline)) uint64_t shapes(const std::vector<std::unique_ptr<Shape>> &s, uint64_t n)
{
	uint64_t sum = 0;
	for (uint64_t i = 0; i < n; i++)
		sum += s[i % s.size()]->area(i);
	return sum;
}

__attribute__((noinline)) uint64_t may_throw(uint64_t i)
{
	if (i % 7 == 0)
		throw std::runtime_error("seven");
	return i;
}

__attribute__((noinline)) uint64_t catches(uint64_t n)
{
	uint64_t sum = 0;
	for (uint64_t i = 0; i < n; i++) {
		try {
			sum += may_throw(i);
		} catch (const std::exception &) {
			sum++;
		}
	}
	return sum;
}
} // namespace oracle

volatile uint64_t oracle_sink;

int main(int argc, char **argv)
{
	long rounds = argc > 1 ? strtol(argv[1], nullptr, 10) : 20;
	std::vector<std::unique_ptr<oracle::Shape>> s;
	s.emplace_back(new oracle::Square);
	s.emplace_back(new oracle::Tri);

	for (long r = 0; r < rounds; r++) {
		oracle_sink += oracle::sort_pairs<long>(60000);
		oracle_sink += oracle::sort_pairs<int>(60000);
		oracle_sink += oracle::shapes(s, 2000000);
		oracle_sink += oracle::catches(7000);
	}
	return 0;
}
