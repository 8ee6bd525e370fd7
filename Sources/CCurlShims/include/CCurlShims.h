#ifndef QBARCHIVE_CCURLSHIMS_H
#define QBARCHIVE_CCURLSHIMS_H

#include <curl/curl.h>

/// curl_easy_setopt and curl_easy_getinfo are variadic C functions, which Swift cannot call;
/// these typed wrappers are the whole of the shim.
typedef size_t (*qb_curl_data_callback)(char *data, size_t size, size_t count, void *context);

CURLcode qb_curl_setopt_long(CURL *handle, CURLoption option, long value);
CURLcode qb_curl_setopt_string(CURL *handle, CURLoption option, const char *value);
CURLcode qb_curl_setopt_pointer(CURL *handle, CURLoption option, void *value);
CURLcode qb_curl_setopt_slist(CURL *handle, CURLoption option, struct curl_slist *value);
CURLcode qb_curl_setopt_callback(CURL *handle, CURLoption option, qb_curl_data_callback callback);
typedef int (*qb_curl_progress_callback)(void *context, curl_off_t dltotal, curl_off_t dlnow, curl_off_t ultotal,
                                         curl_off_t ulnow);
CURLcode qb_curl_setopt_progress(CURL *handle, qb_curl_progress_callback callback);
CURLcode qb_curl_getinfo_long(CURL *handle, CURLINFO info, long *value);
CURLcode qb_curl_getinfo_double(CURL *handle, CURLINFO info, double *value);

#endif
