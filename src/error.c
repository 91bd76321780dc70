/* Status strings (expanded from PSCR_STATUS_LIST) and thread-local details. */
#include "error.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define PSCR_DETAIL_MAX 512

static _Thread_local char pscr_detail[PSCR_DETAIL_MAX];

const char *pscr_status_string(pscr_status status)
{
  switch (status) {
#define PSCR_STATUS_CASE_(name, value, text) \
  case name:                          \
    return #name ": " text;
    PSCR_STATUS_LIST(PSCR_STATUS_CASE_)
#undef PSCR_STATUS_CASE_
  }
  return "unknown status";
}

const char *pscr_last_error(void) { return pscr_detail; }

const char *pscr_version(void) { return PSCR_VERSION_STRING; }

void pscr_version_get(int *major, int *minor, int *patch)
{
  if (major)
    *major = PSCR_VERSION_MAJOR;
  if (minor)
    *minor = PSCR_VERSION_MINOR;
  if (patch)
    *patch = PSCR_VERSION_PATCH;
}

void pscr_error_clear(void) { pscr_detail[0] = '\0'; }

pscr_status pscr_error_set(pscr_status status, const char *fmt, ...)
{
  if (status == PSCR_SUCCESS)
    return status;
  /* Formatted aside first: callers wrap the previous message
     (PSCR_ERROR(st, "%s (context)", pscr_last_error())), and vsnprintf
     into the buffer it reads from is undefined (glibc emptied it). */
  char text[PSCR_DETAIL_MAX];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(text, sizeof text, fmt, ap);
  va_end(ap);
  memcpy(pscr_detail, text, sizeof text);
  return status;
}
