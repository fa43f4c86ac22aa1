/* Built by examples/cmake/CMakeLists.txt against an installed perfring: prints the library's
 * version and opens a 2-page ring over memory (no kernel needed), then reads it as empty. */
#include <perfring/perfring.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(void)
{
	size_t page = perfring_page_size();
	size_t len = 3 * page;
	void *mem = aligned_alloc(page, len);
	if (!mem)
		return 1;
	memset(mem, 0, len);
	struct perfring_ring *ring = perfring_ring_new_mem(mem, len, page, NULL);
	if (!ring) {
		fprintf(stderr, "perfring_ring_new_mem: %s\n", perfring_errmsg());
		return 1;
	}
	printf("perfring %s: ring of %zu bytes, %llu available\n", perfring_version(),
	       perfring_ring_data_size(ring), (unsigned long long)perfring_ring_bytes_available(ring));
	perfring_ring_free(ring);
	free(mem);
	return 0;
}
