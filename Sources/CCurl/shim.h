// libcurl's curl_easy_setopt and curl_easy_getinfo are variadic, which Swift cannot call:
// these fixed-argument wrappers, one for each type of argument keep passes, are the only
// way in. KeepEngines' CurlTransfer is the one user.
#ifndef KEEP_CCURL_SHIM_H
#define KEEP_CCURL_SHIM_H

// Only the current names: a deprecated option is a compile error, not a silent fallback.
#define CURL_NO_OLDIES
#include <curl/curl.h>

/// A callback that receives bytes: a header line, or a piece of the body.
typedef size_t (*keep_curl_receiver)(char *bytes, size_t size, size_t count, void *context);

/// curl_easy_setopt with a long (a flag, a number, an enum value).
static inline CURLcode keep_curl_set_long(CURL *handle, CURLoption option, long value) {
    return curl_easy_setopt(handle, option, value);
}

/// curl_easy_setopt with a curl_off_t (a size).
static inline CURLcode keep_curl_set_size(CURL *handle, CURLoption option, curl_off_t value) {
    return curl_easy_setopt(handle, option, value);
}

/// curl_easy_setopt with text (libcurl copies it), or NULL to clear the option.
static inline CURLcode keep_curl_set_text(CURL *handle, CURLoption option, const char *value) {
    return curl_easy_setopt(handle, option, value);
}

/// curl_easy_setopt with a pointer libcurl keeps and hands back (a callback's context).
static inline CURLcode keep_curl_set_pointer(CURL *handle, CURLoption option, void *value) {
    return curl_easy_setopt(handle, option, value);
}

/// curl_easy_setopt with a list (headers, pinned addresses), which must outlive the transfer.
static inline CURLcode keep_curl_set_list(CURL *handle, CURLoption option, struct curl_slist *list) {
    return curl_easy_setopt(handle, option, list);
}

/// curl_easy_setopt with a receiving callback (CURLOPT_HEADERFUNCTION, CURLOPT_WRITEFUNCTION).
static inline CURLcode keep_curl_set_receiver(CURL *handle, CURLoption option, keep_curl_receiver callback) {
    return curl_easy_setopt(handle, option, callback);
}

/// curl_easy_getinfo of a long (the TLS verification's result).
static inline CURLcode keep_curl_get_long(CURL *handle, CURLINFO info, long *value) {
    return curl_easy_getinfo(handle, info, value);
}

#endif
