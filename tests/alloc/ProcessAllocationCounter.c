// ProcessAllocationCounter: an LD_PRELOAD library that counts every heap allocation a whole process makes
// (malloc, calloc, realloc, the aligned ones; operator new calls malloc), Node and V8 included, where the
// counting build of the addon sees only loopwire's own. The count lives in the first eight bytes of the file named
// by LW_ALLOCATION_COUNT_FILE, mapped shared, so that another process (the test) reads it at any moment without
// asking this one. Without that variable nothing is counted and the library only forwards.
//
// glibc only: the real allocator is reached through its __libc_* entry points, which need no dlsym (dlsym itself
// allocates, and would recurse).
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

extern void* __libc_malloc(size_t size);
extern void* __libc_calloc(size_t count, size_t size);
extern void* __libc_realloc(void* pointer, size_t size);
extern void* __libc_memalign(size_t alignment, size_t size);

static uint64_t* counter;

__attribute__((constructor)) static void mapCounter(void) {
    const char* file = getenv("LW_ALLOCATION_COUNT_FILE");
    if (file == NULL) return;
    int fd = open(file, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (fd < 0) return;
    if (ftruncate(fd, (off_t)sizeof(uint64_t)) == 0) {
        void* mapped = mmap(NULL, sizeof(uint64_t), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
        if (mapped != MAP_FAILED) counter = (uint64_t*)mapped;
    }
    close(fd);
}

static void count(void) {
    if (counter != NULL) __atomic_fetch_add(counter, 1, __ATOMIC_RELAXED);
}

void* malloc(size_t size) {
    count();
    return __libc_malloc(size);
}

void* calloc(size_t count_, size_t size) {
    count();
    return __libc_calloc(count_, size);
}

// A realloc that moves or grows a block is an allocation as far as the cost rules go; one that frees (size 0) is
// counted too: telling them apart would need the allocator's internals, and neither belongs on a request's path.
void* realloc(void* pointer, size_t size) {
    count();
    return __libc_realloc(pointer, size);
}

void* memalign(size_t alignment, size_t size) {
    count();
    return __libc_memalign(alignment, size);
}

void* aligned_alloc(size_t alignment, size_t size) {
    count();
    return __libc_memalign(alignment, size);
}

int posix_memalign(void** result, size_t alignment, size_t size) {
    count();
    if (alignment < sizeof(void*) || (alignment & (alignment - 1)) != 0) return EINVAL;
    void* pointer = __libc_memalign(alignment, size);
    if (pointer == NULL) return ENOMEM;
    *result = pointer;
    return 0;
}

void* valloc(size_t size) {
    count();
    return __libc_memalign((size_t)sysconf(_SC_PAGESIZE), size);
}
