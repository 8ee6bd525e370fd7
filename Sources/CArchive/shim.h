#ifndef QBARCHIVE_CARCHIVE_SHIM_H
#define QBARCHIVE_CARCHIVE_SHIM_H
#include <archive.h>
#include <archive_entry.h>
#endif
