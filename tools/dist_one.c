/* dist_one.c - one process (fsvc built without Open MPI). */
#include "tools/dist.h"
#include "tools/cli.h"

int cli_dist_init(int *argc, char ***argv) { return FSVC_OK; }
const fsvc_dist *cli_dist(void) { return fsvc_dist_one(); }
int cli_dist_agree(int rc, fsvc_error *err) { return rc; }
int cli_dist_end(int rc, const fsvc_error *err) { return rc ? cli_report(err) : FSVC_OK; }
void cli_dist_finalize(void) {}
const char *cli_dist_library(void) { return "not compiled in"; }
