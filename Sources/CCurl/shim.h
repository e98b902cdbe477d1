#ifndef BOUNCER_CCURL_SHIM_H
#define BOUNCER_CCURL_SHIM_H

#include <curl/curl.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>

// curl_easy_setopt and curl_easy_getinfo are variadic, which Swift cannot call: one typed
// wrapper for each kind of value the webhook sender sets or reads.

static inline CURLcode bouncer_curl_set_long(CURL *handle, CURLoption option, long value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode bouncer_curl_set_string(CURL *handle, CURLoption option, const char *value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode bouncer_curl_set_pointer(CURL *handle, CURLoption option, void *value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode bouncer_curl_set_list(CURL *handle, CURLoption option, struct curl_slist *value) {
    return curl_easy_setopt(handle, option, value);
}

typedef size_t (*bouncer_curl_write_callback)(char *data, size_t size, size_t count, void *context);

static inline CURLcode bouncer_curl_set_write_function(CURL *handle, bouncer_curl_write_callback callback) {
    return curl_easy_setopt(handle, CURLOPT_WRITEFUNCTION, callback);
}

static inline CURLcode bouncer_curl_response_code(CURL *handle, long *code) {
    return curl_easy_getinfo(handle, CURLINFO_RESPONSE_CODE, code);
}

typedef curl_socket_t (*bouncer_curl_open_socket)(void *context, curlsocktype purpose, struct curl_sockaddr *address);

// Calls `callback` (with `context`) to open each socket libcurl connects through: it sees the
// address itself, whatever name resolution gave it.
static inline CURLcode bouncer_curl_set_open_socket(CURL *handle, bouncer_curl_open_socket callback, void *context) {
    CURLcode code = curl_easy_setopt(handle, CURLOPT_OPENSOCKETFUNCTION, callback);
    return code != CURLE_OK ? code : curl_easy_setopt(handle, CURLOPT_OPENSOCKETDATA, context);
}

// The IPv4 or IPv6 address of `address`, as 4 or 16 bytes into `bytes`: their count, or 0 for
// another family. (libcurl hands over room for a whole IPv6 address behind `addr`.)
static inline int bouncer_curl_address(const struct curl_sockaddr *address, unsigned char bytes[16]) {
    if (address->family == AF_INET) {
        const struct sockaddr_in *inet = (const void *)&address->addr;
        memcpy(bytes, &inet->sin_addr, 4);
        return 4;
    }
    if (address->family == AF_INET6) {
        const struct sockaddr_in6 *inet6 = (const void *)&address->addr;
        memcpy(bytes, &inet6->sin6_addr, 16);
        return 16;
    }
    return 0;
}

#endif
