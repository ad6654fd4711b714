/* fuzz_csv.c - libFuzzer target for the study CSV reader (fsvc/csv.c),
 * text in memory. On success: every record within the limits, fields
 * NUL-terminated, `complete` inside the input, line numbers increasing;
 * the prefix up to `complete` parses to the same records with nothing
 * partial; and the records written back with the CSV writer parse to the
 * same fields (the writer and the reader agree on every text). Build and
 * run: make fuzz; kept inputs: tests/fuzz/corpus/fuzz_csv/. */
#include "fsvc/csv.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void same(const fsvc_csv *a, const fsvc_csv *b)
{
    if (a->nrec != b->nrec)
        abort();
    for (int64_t r = 0; r < a->nrec; r++) {
        int n = fsvc_csv_nfields(a, r);
        if (n != fsvc_csv_nfields(b, r))
            abort();
        for (int c = 0; c < n; c++)
            if (strcmp(fsvc_csv_get(a, r, c), fsvc_csv_get(b, r, c)))
                abort();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *text = (const char *)data;
    fsvc_csv t, u;
    fsvc_error err;
    fsvc_error_clear(&err);
    if (fsvc_csv_parse(&t, text, size, "fuzz", &err) != FSVC_OK) {
        if (!err.msg[0] || t.nrec || t.field)
            abort();
        return 0;
    }
    if (t.complete > size || (!t.partial && t.complete != size))
        abort();
    for (int64_t r = 0; r < t.nrec; r++) {
        int n = fsvc_csv_nfields(&t, r);
        if (n < 1 || n > FSVC_CSV_MAX_FIELDS || (r && t.line[r] <= t.line[r - 1]))
            abort();
        for (int c = 0; c < n; c++)
            if (strlen(fsvc_csv_get(&t, r, c)) > size)
                abort();
    }
    /* the complete part alone: the same records, nothing partial */
    if (fsvc_csv_parse(&u, text, t.complete, "fuzz", &err) != FSVC_OK || u.partial ||
        u.complete != t.complete)
        abort();
    same(&t, &u);
    fsvc_csv_free(&u);
    /* written back and read again: the same fields */
    fsvc_csv_out o = {0};
    for (int64_t r = 0; r < t.nrec; r++) {
        for (int c = 0; c < fsvc_csv_nfields(&t, r); c++)
            fsvc_csv_field(&o, fsvc_csv_get(&t, r, c));
        fsvc_csv_endrow(&o);
    }
    if (!o.oom) {
        if (fsvc_csv_parse(&u, o.s ? o.s : "", o.len, "fuzz", &err) != FSVC_OK || u.partial ||
            u.complete != o.len)
            abort();
        same(&t, &u);
        fsvc_csv_free(&u);
    }
    fsvc_csv_out_free(&o);
    fsvc_csv_free(&t);
    return 0;
}
