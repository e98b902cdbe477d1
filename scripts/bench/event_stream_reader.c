// The subscribers' side of scripts/bench-event-stream.sh, compiled so that the reader costs far
// less than the server it measures: opens N streams on GET /v1/events/stream, reads them all
// with epoll, counts each one's events (its `event:` lines) and, for every event of a sample of
// the streams, the time from the event's `created_at` to its arrival. Runs until every stream
// has EXPECTED events or TIMEOUT seconds pass with nothing new, then prints
// "counts <fewest> <most> <streams with every one>" and "latency_ms <p50> <p99> <max> <samples>".
//
// usage: event_stream_reader PORT TOKEN STREAMS READY_FILE EXPECTED_FILE
// It writes READY_FILE once every stream has its response head, and reads the number of events
// to expect from EXPECTED_FILE once that exists.
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

typedef struct {
    int fd;
    long events;
    int sampled;
    int headed;
    char carry[16];     // the end of the last read, for an `event:` line split across reads
    size_t carry_length;
    char *pending;      // sampled streams: the text of the event being read
    size_t pending_length, pending_capacity;
} Stream;

static double now_seconds(void) {
    struct timespec time;
    clock_gettime(CLOCK_REALTIME, &time);
    return time.tv_sec + time.tv_nsec / 1e9;
}

// "2026-12-01T22:30:46.601Z" as seconds since 1970.
static double parse_stamp(const char *text) {
    struct tm parts = {0};
    int milliseconds = 0;
    if (sscanf(text, "%4d-%2d-%2dT%2d:%2d:%2d.%3dZ", &parts.tm_year, &parts.tm_mon, &parts.tm_mday, &parts.tm_hour, &parts.tm_min,
               &parts.tm_sec, &milliseconds) != 7) return 0;
    parts.tm_year -= 1900;
    parts.tm_mon -= 1;
    return (double)timegm(&parts) + milliseconds / 1000.0;
}

static double *latencies;
static size_t latency_count, latency_capacity;

static void record(double value) {
    if (latency_count == latency_capacity) {
        latency_capacity = latency_capacity ? latency_capacity * 2 : 65536;
        latencies = realloc(latencies, latency_capacity * sizeof(double));
    }
    latencies[latency_count++] = value;
}

static long count_events(Stream *stream, const char *data, size_t length) {
    static const char needle[] = "\nevent: ";
    const size_t size = sizeof(needle) - 1;
    long found = 0;
    // Matches that start in the tail carried from the last read (its last size - 1 bytes).
    char edge[32];
    size_t head = length < size - 1 ? length : size - 1;
    memcpy(edge, stream->carry, stream->carry_length);
    memcpy(edge + stream->carry_length, data, head);
    size_t edge_length = stream->carry_length + head;
    for (size_t index = 0; index < stream->carry_length && index + size <= edge_length; index++) {
        if (memcmp(edge + index, needle, size) == 0) found++;
    }
    for (const char *cursor = data; (cursor = memmem(cursor, data + length - cursor, needle, size)) != NULL; cursor++) found++;
    // The new tail: the last size - 1 bytes of everything read.
    if (length >= size - 1) {
        memcpy(stream->carry, data + length - (size - 1), size - 1);
        stream->carry_length = size - 1;
    } else {
        size_t keep = edge_length < size - 1 ? edge_length : size - 1;
        memmove(stream->carry, edge + edge_length - keep, keep);
        stream->carry_length = keep;
    }
    return found;
}

static void sample(Stream *stream, const char *data, size_t length, double arrived) {
    if (stream->pending_length + length > stream->pending_capacity) {
        stream->pending_capacity = (stream->pending_length + length) * 2;
        stream->pending = realloc(stream->pending, stream->pending_capacity);
    }
    memcpy(stream->pending + stream->pending_length, data, length);
    stream->pending_length += length;
    char *start = stream->pending;
    char *end = stream->pending + stream->pending_length;
    char *boundary;
    while ((boundary = memmem(start, end - start, "\n\n", 2)) != NULL) {
        if (memmem(start, boundary - start, "event: ", 7) != NULL) {
            char *stamp = memmem(start, boundary - start, "\"created_at\":\"", 14);
            if (stamp && stamp + 14 + 24 <= boundary) {
                double created = parse_stamp(stamp + 14);
                if (created > 0) record(arrived - created);
            }
        }
        start = boundary + 2;
    }
    stream->pending_length = end - start;
    memmove(stream->pending, start, stream->pending_length);
}

static int compare(const void *left, const void *right) {
    double a = *(const double *)left, b = *(const double *)right;
    return (a > b) - (a < b);
}

int main(int argc, char **argv) {
    if (argc != 6) {
        fprintf(stderr, "usage: %s PORT TOKEN STREAMS READY_FILE EXPECTED_FILE\n", argv[0]);
        return 2;
    }
    int port = atoi(argv[1]);
    int count = atoi(argv[3]);
    char request[4096];
    int request_length = snprintf(request, sizeof request,
                                  "GET /v1/events/stream HTTP/1.1\r\nHost: bench\r\nAuthorization: Bearer %s\r\nAccept: text/event-stream\r\n\r\n", argv[2]);
    int poller = epoll_create1(0);
    Stream *streams = calloc(count, sizeof(Stream));
    int step = count / 20 > 0 ? count / 20 : 1;
    for (int index = 0; index < count; index++) {
        int fd = socket(AF_INET, SOCK_STREAM, 0);
        struct sockaddr_in address = {.sin_family = AF_INET, .sin_port = htons(port)};
        inet_pton(AF_INET, "127.0.0.1", &address.sin_addr);
        if (fd < 0 || connect(fd, (struct sockaddr *)&address, sizeof address) != 0) { perror("connect"); return 1; }
        if (write(fd, request, request_length) != request_length) { perror("write"); return 1; }
        streams[index].fd = fd;
        streams[index].sampled = index % step == 0;
        struct epoll_event event = {.events = EPOLLIN, .data.u32 = (unsigned)index};
        epoll_ctl(poller, EPOLL_CTL_ADD, fd, &event);
    }
    static char buffer[1 << 18];
    struct epoll_event ready[256];
    int headed = 0;
    long expected = -1;
    double last_progress = now_seconds();
    for (;;) {
        int n = epoll_wait(poller, ready, 256, 100);
        double arrived = now_seconds();
        for (int index = 0; index < n; index++) {
            Stream *stream = &streams[ready[index].data.u32];
            ssize_t length = read(stream->fd, buffer, sizeof buffer);
            if (length <= 0) {
                if (length == 0) fprintf(stderr, "a stream was closed by the server\n");
                epoll_ctl(poller, EPOLL_CTL_DEL, stream->fd, NULL);
                continue;
            }
            if (!stream->headed && memmem(buffer, length, "\r\n\r\n", 4)) {
                stream->headed = 1;
                if (++headed == count) {
                    FILE *file = fopen(argv[4], "w");
                    if (file) fclose(file);
                }
            }
            long found = count_events(stream, buffer, length);
            if (found > 0) last_progress = arrived;
            stream->events += found;
            if (stream->sampled) sample(stream, buffer, length, arrived);
        }
        if (expected < 0) {
            FILE *file = fopen(argv[5], "r");
            if (file) {
                if (fscanf(file, "%ld", &expected) != 1) expected = -1;
                fclose(file);
            }
        }
        long fewest = -1, most = 0, complete = 0;
        for (int index = 0; index < count; index++) {
            if (fewest < 0 || streams[index].events < fewest) fewest = streams[index].events;
            if (streams[index].events > most) most = streams[index].events;
        }
        int done = expected >= 0 && fewest >= expected;
        if (done || (expected >= 0 && arrived - last_progress > 10)) {
            for (int index = 0; index < count; index++) complete += expected >= 0 && streams[index].events >= expected;
            qsort(latencies, latency_count, sizeof(double), compare);
            double p50 = latency_count ? latencies[latency_count / 2] * 1000 : 0;
            double p99 = latency_count ? latencies[(size_t)(latency_count * 0.99)] * 1000 : 0;
            double max = latency_count ? latencies[latency_count - 1] * 1000 : 0;
            printf("counts %ld %ld %ld\nlatency_ms %.1f %.1f %.1f %zu\n", fewest, most, complete, p50, p99, max, latency_count);
            return 0;
        }
    }
}
