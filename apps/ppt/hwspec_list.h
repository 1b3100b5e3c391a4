/* hwspec_list.h — `ppt hwspec --list [DIR]`: every spec of a folder, one row each
 * (docs/hwspec.md, "Shipped specs"). */
#ifndef PPT_APP_HWSPEC_LIST_H
#define PPT_APP_HWSPEC_LIST_H

#include <stddef.h>

#include "ppt/hwspec.h"

typedef struct hwspec_row {
  char file[256];   /* the file's name inside the folder */
  char vendor[32];  /* the file name up to its first '-' (vendor-family-model.json) */
  ppt_hwspec *hw;
} hwspec_row;

typedef struct hwspec_lib {
  char dir[4096];
  size_t n;
  hwspec_row *rows; /* sorted by vendor, then year (unknown last), then name */
} hwspec_lib;

/* Loads every *.json of dir (NULL: the shipped folder, ppt_cli_hwspecs_default_dir); the
 * first spec that does not parse fails the whole listing with its own message, since a
 * library is only useful when every sheet in it holds. */
int ppt_cli_hwspecs_load(const char *dir, hwspec_lib *lib, ppt_err *err);
/* The shipped folder: share/ppt/hwspecs beside an installed binary, else the source
 * tree's hwspecs/ (PPT_HWSPECS_SOURCE_DIR). 0, or PPT_EINPUT when neither exists. */
int ppt_cli_hwspecs_default_dir(char *buf, size_t cap, ppt_err *err);
void ppt_hwspec_write_list_table(const hwspec_lib *lib);
int ppt_hwspec_write_list_json(const hwspec_lib *lib, ppt_err *err);
void ppt_cli_hwspecs_free(hwspec_lib *lib);

#endif
