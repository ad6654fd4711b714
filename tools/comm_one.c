/* comm_one.c - one process (fsvc built without Open MPI). */
#include "tools/comm.h"
#include "tools/cli.h"

int cli_comm_init(int *argc, char ***argv) { return FSVC_OK; }
const fsvc_comm *cli_comm(void) { return fsvc_comm_one(); }
int cli_comm_agree(int rc, fsvc_error *err) { return rc; }
int cli_comm_end(int rc, const fsvc_error *err) { return rc ? cli_report(err) : FSVC_OK; }
void cli_comm_finalize(void) {}
const char *cli_comm_library(void) { return "not compiled in"; }
