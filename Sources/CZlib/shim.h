#ifndef QBARCHIVE_CZLIB_SHIM_H
#define QBARCHIVE_CZLIB_SHIM_H
#include <zlib.h>
#endif
