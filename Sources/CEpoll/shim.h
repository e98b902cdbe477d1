// epoll, which Glibc's Swift module leaves out. The event struct is packed on x86-64, so it
// stays on the C side: Swift passes and receives plain integers.
#include <stdint.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/eventfd.h>
#include <unistd.h>

static inline uint32_t cepoll_in(void) { return EPOLLIN; }
static inline uint32_t cepoll_out(void) { return EPOLLOUT; }
static inline uint32_t cepoll_rdhup(void) { return EPOLLRDHUP; }
static inline uint32_t cepoll_hup(void) { return EPOLLHUP; }
static inline uint32_t cepoll_err(void) { return EPOLLERR; }
static inline uint32_t cepoll_et(void) { return EPOLLET; }

static inline int cepoll_create(void) { return epoll_create1(EPOLL_CLOEXEC); }

// accept4 is a GNU extension Glibc's Swift module does not declare; the kernel has it.
extern int accept4(int fd, struct sockaddr *address, socklen_t *length, int flags);

/// Accepts a connection that is non-blocking and close-on-exec from its first moment.
static inline int cepoll_accept(int listener) { return accept4(listener, 0, 0, SOCK_NONBLOCK | SOCK_CLOEXEC); }

static inline int cepoll_add(int epfd, int fd, uint32_t events, uint64_t token) {
    struct epoll_event event = { .events = events, .data.u64 = token };
    return epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &event);
}

static inline int cepoll_modify(int epfd, int fd, uint32_t events, uint64_t token) {
    struct epoll_event event = { .events = events, .data.u64 = token };
    return epoll_ctl(epfd, EPOLL_CTL_MOD, fd, &event);
}

static inline int cepoll_delete(int epfd, int fd) {
    struct epoll_event event = { 0 };
    return epoll_ctl(epfd, EPOLL_CTL_DEL, fd, &event);
}

/// Waits for at most `capacity` (up to 256) events and copies out their masks and tokens.
static inline int cepoll_wait(int epfd, uint32_t *masks, uint64_t *tokens, int capacity, int timeout) {
    struct epoll_event events[256];
    if (capacity > 256) capacity = 256;
    int count = epoll_wait(epfd, events, capacity, timeout);
    for (int index = 0; index < count; index++) {
        masks[index] = events[index].events;
        tokens[index] = events[index].data.u64;
    }
    return count;
}

/// An eventfd: another thread writes it to wake a thread blocked in `epoll_wait`.
static inline int cepoll_wakeup_create(void) { return eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK); }
static inline void cepoll_wakeup_signal(int fd) { uint64_t one = 1; (void)!write(fd, &one, sizeof one); }
static inline void cepoll_wakeup_clear(int fd) { uint64_t count; (void)!read(fd, &count, sizeof count); }
