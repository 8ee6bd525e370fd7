#ifndef QBARCHIVE_CCURL_SHIM_H
#define QBARCHIVE_CCURL_SHIM_H
#include <curl/curl.h>
#endif
